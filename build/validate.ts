import { ENGINE_CAPACITY_CM3, MAX_MILEAGE, MAX_PRICE, MIN_PRICE, MIN_YEAR, POWER_HP } from '../format/bounds.js'
import { dayNumber } from '../format/calendar.js'
import { COL, type Column, type DETAIL_COLUMNS } from '../format/export-columns.js'
import { UNKNOWN, bodyTypeCode, conditionCode, fuelCode, gearboxCode, voivodeshipCode } from '../format/vocabulary.js'
import type { RawRow } from './export-reader.js'
import type { Spellings } from './listing-store.js'
import { TextTable } from './text-table.js'

/** Why a row was not kept; counted under this name in the build report. */
export type RejectionReason =
  | `missing_${Column}`
  | `invalid_${Column}`
  | 'year_out_of_range'
  | 'price_out_of_range'
  | 'mileage_km_out_of_range'
  | 'unsupported_currency'
  | 'last_seen_before_first_seen'
  | 'malformed_row'
  | 'unspecified_make'
  | 'unspecified_model'

/** Counts of values dropped, keeping their rows (contract 1.1): a voivodeship's and the detail columns'. */
export type IgnoredValues = Partial<Record<'voivodeship' | (typeof DETAIL_COLUMNS)[number], number>>

/** A row that passed validation; one object is reused for every row. */
export interface ParsedListing {
  /** The listing id as RawRow.key gives it: exact, for comparing. */
  listingId: string
  /** Interned spellings (Spellings) of the make and model as written. */
  makeSpelling: number
  modelSpelling: number
  year: number
  /** In PLN, converted and not rounded. */
  price: number
  /**
   * The currency of the price as written, upper case (PLN when empty). Set before its
   * rate is looked up, so that it also names the currency of a row rejected as
   * unsupported_currency.
   */
  currency: string
  /** Kilometres, or -1 when unknown. */
  mileage: number
  fuel: number
  gearbox: number
  /** 1 imported, 0 domestic, UNKNOWN. */
  imported: number
  /** UNKNOWN also for a value outside the 16, which the validator counts as ignored. */
  voivodeship: number
  /** USED, NEW or UNKNOWN. */
  condition: number
  /** Days since 1970-01-01 (UTC). */
  firstSeen: number
  lastSeen: number
  active: boolean
  /** Interned (Spellings.details) version and generation; 0 when the listing gives none. */
  version: number
  generation: number
  /** A body type code, or UNKNOWN. */
  bodyType: number
  /** KM, or 0 when unknown. */
  power: number
}

export interface ValidationRules {
  /** Exchange rates to PLN by upper-case ISO code. */
  readonly fx: ReadonlyMap<string, number>
  /** Latest production year accepted, when the as-of date is known before reading. */
  readonly maxYear: number | undefined
}

const DECIMAL = /^-?\d+(\.\d+)?$/

/**
 * Checks rows against the data contract (section 1.1). One validator serves one
 * export: what each distinct fuel name, voivodeship, boolean, currency and date parses
 * to is remembered (TextTable), so a million rows cost a million look-ups, not a
 * million parses.
 */
export class RowValidator {
  private readonly fuel = new TextTable((text) => optionalCode(text, fuelCode))
  private readonly gearbox = new TextTable((text) => optionalCode(text, gearboxCode))
  private readonly voivodeship = new TextTable((text) => optionalCode(text, voivodeshipCode))
  private readonly condition = new TextTable((text) => optionalCode(text, conditionCode))
  private readonly bodyType = new TextTable((text) => optionalCode(text, bodyTypeCode))
  private readonly boolean = new TextTable((text) => optionalCode(text, booleanCode))
  private readonly day = new TextTable(dayNumber)
  private readonly currency = new TextTable((text) => (text === '' ? 'PLN' : text.toUpperCase()))

  /** Values dropped from kept rows, by column. */
  readonly ignored: IgnoredValues = {}

  constructor(
    private readonly rules: ValidationRules,
    private readonly spellings: Spellings,
  ) {}

  /**
   * Fills `out` from `row` and returns undefined when the row is kept, or the reason it
   * is rejected. Checks run in column order, so a row with several problems is counted
   * under the first.
   */
  validate(row: RawRow, out: ParsedListing): RejectionReason | undefined {
    const rules = this.rules
    if (row.isEmpty(COL.listing_id)) return 'missing_listing_id'
    if (row.isEmpty(COL.make)) return 'missing_make'
    if (row.isEmpty(COL.model)) return 'missing_model'

    if (row.isEmpty(COL.year)) return 'missing_year'
    const year = row.integer(COL.year)
    if (Number.isNaN(year)) return 'invalid_year'
    if (year < MIN_YEAR || (rules.maxYear !== undefined && year > rules.maxYear)) return 'year_out_of_range'

    if (row.isEmpty(COL.price)) return 'missing_price'
    let price = row.integer(COL.price)
    if (Number.isNaN(price)) {
      const text = row.get(COL.price)
      if (!DECIMAL.test(text)) return 'invalid_price'
      price = Number(text)
    }
    const currency = row.lookup(COL.currency, this.currency)
    out.currency = currency
    if (currency !== 'PLN') {
      const rate = rules.fx.get(currency)
      if (rate === undefined) return 'unsupported_currency'
      price *= rate
    }
    if (!(price >= MIN_PRICE && price <= MAX_PRICE)) return 'price_out_of_range'

    let mileage = -1
    if (!row.isEmpty(COL.mileage_km)) {
      mileage = row.integer(COL.mileage_km)
      if (Number.isNaN(mileage)) return 'invalid_mileage_km'
      if (mileage < 0 || mileage > MAX_MILEAGE) return 'mileage_km_out_of_range'
    }

    const fuel = row.lookup(COL.fuel_type, this.fuel)
    if (fuel === undefined) return 'invalid_fuel_type'
    const gearbox = row.lookup(COL.gearbox, this.gearbox)
    if (gearbox === undefined) return 'invalid_gearbox'
    const imported = row.lookup(COL.imported, this.boolean)
    if (imported === undefined) return 'invalid_imported'
    // A region outside the 16 (a foreign one, a typo) says nothing of the car: the listing stays, its region unknown.
    const voivodeship = row.lookup(COL.voivodeship, this.voivodeship)

    if (row.isEmpty(COL.first_seen)) return 'missing_first_seen'
    const firstSeen = row.lookup(COL.first_seen, this.day)
    if (firstSeen === undefined) return 'invalid_first_seen'
    if (row.isEmpty(COL.last_seen)) return 'missing_last_seen'
    const lastSeen = row.lookup(COL.last_seen, this.day)
    if (lastSeen === undefined) return 'invalid_last_seen'

    if (row.isEmpty(COL.active)) return 'missing_active'
    const active = row.lookup(COL.active, this.boolean)
    if (active === undefined) return 'invalid_active'
    if (lastSeen < firstSeen) return 'last_seen_before_first_seen'

    const condition = row.lookup(COL.condition, this.condition)
    if (condition === undefined) return 'invalid_condition'

    out.listingId = row.key(COL.listing_id)
    out.makeSpelling = row.lookup(COL.make, this.spellings.makes)
    out.modelSpelling = row.lookup(COL.model, this.spellings.modelsOf(out.makeSpelling))
    out.year = year
    out.price = price
    out.mileage = mileage
    out.fuel = fuel
    out.gearbox = gearbox
    out.imported = imported
    if (voivodeship === undefined) this.ignore('voivodeship')
    out.voivodeship = voivodeship ?? UNKNOWN
    out.condition = condition
    out.firstSeen = firstSeen
    out.lastSeen = lastSeen
    out.active = active === 1
    this.readDetail(row, out)
    return undefined
  }

  /**
   * The detail columns of a kept row (contract 1.1): version and generation as written (an
   * NDJSON value that is no text set aside and counted);
   * a body type, power or displacement that is not recognised or out of its range is set
   * aside, the row kept and the value counted. The displacement is checked and counted
   * only: no figure narrows by it.
   */
  private readDetail(row: RawRow, out: ParsedListing): void {
    out.version = this.freeText(row, COL.version, 'version')
    out.generation = this.freeText(row, COL.generation, 'generation')
    const bodyType = row.lookup(COL.body_type, this.bodyType)
    if (bodyType === undefined) this.ignore('body_type')
    out.bodyType = bodyType ?? UNKNOWN
    out.power = 0
    if (!row.isEmpty(COL.power_hp)) {
      const power = row.integer(COL.power_hp)
      if (power >= POWER_HP.min && power <= POWER_HP.max) out.power = power
      else this.ignore('power_hp')
    }
    if (!row.isEmpty(COL.engine_capacity_cm3)) {
      const capacity = row.integer(COL.engine_capacity_cm3)
      // 0 is how exports write an electric car's displacement: unknown, not wrong.
      if (capacity !== 0 && !(capacity >= ENGINE_CAPACITY_CM3.min && capacity <= ENGINE_CAPACITY_CM3.max))
        this.ignore('engine_capacity_cm3')
    }
  }

  /** A version or generation as an interned text (0 for none); an NDJSON object or array is no text: set aside. */
  private freeText(row: RawRow, column: number, name: 'version' | 'generation'): number {
    if (row.isEmpty(column)) return 0
    if (row.isText(column)) return row.lookup(column, this.spellings.details)
    this.ignore(name)
    return 0
  }

  private ignore(column: keyof IgnoredValues): void {
    this.ignored[column] = (this.ignored[column] ?? 0) + 1
  }
}

export function emptyListing(): ParsedListing {
  return {
    listingId: '',
    makeSpelling: 0,
    modelSpelling: 0,
    year: 0,
    price: 0,
    currency: 'PLN',
    mileage: -1,
    fuel: UNKNOWN,
    gearbox: UNKNOWN,
    imported: UNKNOWN,
    voivodeship: UNKNOWN,
    condition: UNKNOWN,
    firstSeen: 0,
    lastSeen: 0,
    active: false,
    version: 0,
    generation: 0,
    bodyType: UNKNOWN,
    power: 0,
  }
}

/** An optional coded field: UNKNOWN when empty, undefined when present but not recognised. */
function optionalCode(text: string, code: (text: string) => number | undefined): number | undefined {
  return text === '' ? UNKNOWN : code(text)
}

const BOOLEANS = new Map([
  ['true', 1],
  ['1', 1],
  ['tak', 1],
  ['false', 0],
  ['0', 0],
  ['nie', 0],
])
function booleanCode(text: string): number | undefined {
  return BOOLEANS.get(text.toLowerCase())
}
