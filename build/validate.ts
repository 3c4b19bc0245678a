import { DAY_MS } from '../format/calendar.js'
import { UNKNOWN, fuelCode, gearboxCode, voivodeshipCode } from '../format/vocabulary.js'
import type { Column, RawRow } from './export-reader.js'

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

/** A row that passed validation; one object is reused for every row. */
export interface ParsedListing {
  listingId: string
  make: string
  model: string
  year: number
  /** In PLN, converted and not rounded. */
  price: number
  /** The currency the price was converted from, or '' for PLN. */
  convertedFrom: string
  /** Kilometres, or -1 when unknown. */
  mileage: number
  fuel: number
  gearbox: number
  /** 1 imported, 0 domestic, UNKNOWN. */
  imported: number
  voivodeship: number
  /** Days since 1970-01-01 (UTC). */
  firstSeen: number
  lastSeen: number
  active: boolean
}

export interface ValidationRules {
  /** Exchange rates to PLN by upper-case ISO code. */
  readonly fx: ReadonlyMap<string, number>
  /** Latest production year accepted, when the as-of date is known before reading. */
  readonly maxYear: number | undefined
}

export const MIN_YEAR = 1900
export const MIN_PRICE = 100
export const MAX_PRICE = 10_000_000
export const MAX_MILEAGE = 3_000_000

const INTEGER = /^-?\d+$/
const DECIMAL = /^-?\d+(\.\d+)?$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i

/**
 * Checks one row against the data contract (section 1.1) and fills `out`; returns the
 * reason it is rejected, or undefined when it is kept. Checks run in column order, so a
 * row with several problems is counted under the first.
 */
export function validateRow(row: RawRow, rules: ValidationRules, out: ParsedListing): RejectionReason | undefined {
  const listingId = row.get('listing_id')
  if (listingId === '') return 'missing_listing_id'
  const make = row.get('make')
  if (make === '') return 'missing_make'
  const model = row.get('model')
  if (model === '') return 'missing_model'

  const yearText = row.get('year')
  if (yearText === '') return 'missing_year'
  if (!INTEGER.test(yearText)) return 'invalid_year'
  const year = Number(yearText)
  if (year < MIN_YEAR || (rules.maxYear !== undefined && year > rules.maxYear)) return 'year_out_of_range'

  const priceText = row.get('price')
  if (priceText === '') return 'missing_price'
  if (!DECIMAL.test(priceText)) return 'invalid_price'
  let price = Number(priceText)
  const currency = row.get('currency').toUpperCase()
  let convertedFrom = ''
  if (currency !== '' && currency !== 'PLN') {
    const rate = rules.fx.get(currency)
    if (rate === undefined) return 'unsupported_currency'
    price *= rate
    convertedFrom = currency
  }
  if (!(price >= MIN_PRICE && price <= MAX_PRICE)) return 'price_out_of_range'

  let mileage = -1
  const mileageText = row.get('mileage_km')
  if (mileageText !== '') {
    if (!INTEGER.test(mileageText)) return 'invalid_mileage_km'
    mileage = Number(mileageText)
    if (mileage < 0 || mileage > MAX_MILEAGE) return 'mileage_km_out_of_range'
  }

  const fuel = optionalCode(row.get('fuel_type'), fuelCode)
  if (fuel === undefined) return 'invalid_fuel_type'
  const gearbox = optionalCode(row.get('gearbox'), gearboxCode)
  if (gearbox === undefined) return 'invalid_gearbox'
  const imported = optionalCode(row.get('imported'), booleanCode)
  if (imported === undefined) return 'invalid_imported'
  const voivodeship = optionalCode(row.get('voivodeship'), voivodeshipCode)
  if (voivodeship === undefined) return 'invalid_voivodeship'

  const firstText = row.get('first_seen')
  if (firstText === '') return 'missing_first_seen'
  const firstSeen = dayNumber(firstText)
  if (firstSeen === undefined) return 'invalid_first_seen'
  const lastText = row.get('last_seen')
  if (lastText === '') return 'missing_last_seen'
  const lastSeen = dayNumber(lastText)
  if (lastSeen === undefined) return 'invalid_last_seen'

  const activeText = row.get('active')
  if (activeText === '') return 'missing_active'
  const active = booleanCode(activeText)
  if (active === undefined) return 'invalid_active'
  if (lastSeen < firstSeen) return 'last_seen_before_first_seen'

  out.listingId = listingId
  out.make = make
  out.model = model
  out.year = year
  out.price = price
  out.convertedFrom = convertedFrom
  out.mileage = mileage
  out.fuel = fuel
  out.gearbox = gearbox
  out.imported = imported
  out.voivodeship = voivodeship
  out.firstSeen = firstSeen
  out.lastSeen = lastSeen
  out.active = active === 1
  return undefined
}

export function emptyListing(): ParsedListing {
  return {
    listingId: '',
    make: '',
    model: '',
    year: 0,
    price: 0,
    convertedFrom: '',
    mileage: -1,
    fuel: UNKNOWN,
    gearbox: UNKNOWN,
    imported: UNKNOWN,
    voivodeship: UNKNOWN,
    firstSeen: 0,
    lastSeen: 0,
    active: false,
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

/**
 * Day number (days since 1970-01-01) of `YYYY-MM-DD` or an ISO 8601 date-time, counted
 * by its UTC date; a date-time without an offset is taken as UTC.
 */
export function dayNumber(text: string): number | undefined {
  const m = DATE_TIME.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h, mi, s, zone] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const date = Date.UTC(year, month - 1, day)
  const check = new Date(date)
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined
  if (h === undefined) return date / DAY_MS
  const hours = Number(h)
  const minutes = Number(mi)
  const seconds = s === undefined ? 0 : Number(s)
  if (hours > 23 || minutes > 59 || seconds > 60) return undefined
  let offset = 0
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '')
    const zh = Number(digits.slice(1, 3))
    const zm = Number(digits.slice(3, 5))
    if (zh > 23 || zm > 59) return undefined
    offset = (zone.startsWith('-') ? -1 : 1) * (zh * 60 + zm) * 60_000
  }
  const instant = date + ((hours * 60 + minutes) * 60 + seconds) * 1000 - offset
  return Math.floor(instant / DAY_MS)
}
