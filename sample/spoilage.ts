import { MAX_PRICE } from '../format/bounds.js'
import type { Row } from './export-writer.js'
import type { Random } from './random.js'

/**
 * Ways a scrape spoils a row so that no build may keep it, each a rejection reason the
 * build must count, with its share of the rows: about 0.9% in all, 0.35% of them the
 * marketplace's catch-alls (`Inny` for a model it does not list, `Inne` or `other` for a
 * make), a few per ten thousand each of the rest.
 */
const SHARES = {
  catch_all_model: 0.0025,
  catch_all_make: 0.001,
  price_zero: 0.0004,
  price_text: 0.0004,
  price_with_currency: 0.0004,
  price_one: 0.0006,
  price_scaled: 0.0003,
  year_too_old: 0.0004,
  mileage_negative: 0.0004,
  odometer_absurd: 0.0003,
  unknown_fuel: 0.0004,
  unknown_gearbox: 0.0004,
  last_before_first: 0.0004,
  missing_model: 0.0004,
  imported_maybe: 0.0004,
} as const
export type Spoilage = keyof typeof SHARES
const KINDS = Object.keys(SHARES) as Spoilage[]
const SPOILED = KINDS.reduce((s, kind) => s + SHARES[kind], 0)

/** How a row is spoiled, or undefined for most rows. */
export function spoilage(random: Random): Spoilage | undefined {
  let r = random.next()
  if (r >= SPOILED) return undefined
  for (const kind of KINDS) {
    r -= SHARES[kind]
    if (r < 0) return kind
  }
  return undefined
}

/** Makes a row unusable in one of the ways real exports are. */
export function spoil(row: Row, kind: Spoilage, random: Random): void {
  const price = Number(row.price)
  switch (kind) {
    case 'catch_all_model':
      row.model = 'Inny'
      return
    case 'catch_all_make':
      row.make = random.pick(['Inne', 'other'])
      return
    case 'price_zero':
      row.price = 0
      return
    case 'price_text':
      row.price = 'do negocjacji'
      return
    case 'price_with_currency':
      // As the listing page shows it: `45 900 zł`, with a no-break space or a plain one.
      row.price = `${String(price).replace(/\B(?=(\d{3})+$)/g, random.pick([' ', '\u00a0']))} zł`
      return
    case 'price_one':
      // A placeholder for "ask me" or a leasing instalment.
      row.price = 1
      return
    case 'price_scaled': {
      // A price read in grosze, or with its thousands separator taken for a decimal point, then multiplied
      // back. Scaled past the contract's bound, as a mangled price that stayed within it would pass any
      // build unseen and move every mean of its key.
      let scaled = price * 100
      while (scaled <= MAX_PRICE) scaled *= 10
      row.price = scaled
      return
    }
    case 'year_too_old':
      row.year = 1850
      return
    case 'mileage_negative':
      row.mileage_km = -5
      return
    case 'odometer_absurd':
      row.mileage_km = 9_999_999
      return
    case 'unknown_fuel':
      row.fuel_type = 'Parowy'
      return
    case 'unknown_gearbox':
      row.gearbox = 'Półautomatyczna'
      return
    case 'last_before_first':
      ;[row.first_seen, row.last_seen] = [row.last_seen, row.first_seen]
      if (row.first_seen === row.last_seen) row.first_seen = '2099-01-01'
      return
    case 'missing_model':
      row.model = ''
      return
    case 'imported_maybe':
      row.imported = 'maybe'
  }
}
