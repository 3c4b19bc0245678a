import { DAY_MS, dayOf } from '../format/calendar.js'
import { memoize } from './memo.js'
import { UNKNOWN, fuelCode, gearboxCode, voivodeshipCode } from '../format/vocabulary.js'
import { COL, type Column, type RawRow } from './export-reader.js'

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

/** A row that passed validation, its texts still raw (RawRow); one object is reused for every row. */
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

const DECIMAL = /^-?\d+(\.\d+)?$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i

/**
 * Checks rows against the data contract (section 1.1). One validator serves one
 * export: it remembers what each distinct raw fuel name, voivodeship, boolean and date
 * parsed to, so a million rows cost a million map look-ups, not a million parses.
 */
export class RowValidator {
  private text: (raw: string) => string = (raw) => raw
  private readonly fuel = memoize((raw) => optionalCode(this.text(raw), fuelCode))
  private readonly gearbox = memoize((raw) => optionalCode(this.text(raw), gearboxCode))
  private readonly voivodeship = memoize((raw) => optionalCode(this.text(raw), voivodeshipCode))
  private readonly otherBoolean = memoize((raw) => optionalCode(raw, booleanCode))
  private readonly otherDay = memoize(dayNumber)
  private readonly otherCurrency = memoize((raw) => raw.toUpperCase())

  constructor(private readonly rules: ValidationRules) {}

  private boolean(raw: string): number | undefined {
    return raw === 'true' ? 1 : raw === 'false' ? 0 : this.otherBoolean(raw)
  }

  private day(raw: string): number | undefined {
    return plainDay(raw) ?? this.otherDay(raw)
  }

  /**
   * Fills `out` from `row` and returns undefined when the row is kept, or the reason it
   * is rejected. Checks run in column order, so a row with several problems is counted
   * under the first.
   */
  validate(row: RawRow, out: ParsedListing): RejectionReason | undefined {
    this.text = row.text
    const rules = this.rules
    const listingId = row.get(COL.listing_id)
    if (listingId === '') return 'missing_listing_id'
    const make = row.get(COL.make)
    if (make === '') return 'missing_make'
    const model = row.get(COL.model)
    if (model === '') return 'missing_model'

    const yearText = row.get(COL.year)
    if (yearText === '') return 'missing_year'
    const year = integer(yearText)
    if (Number.isNaN(year)) return 'invalid_year'
    if (year < MIN_YEAR || (rules.maxYear !== undefined && year > rules.maxYear)) return 'year_out_of_range'

    const priceText = row.get(COL.price)
    if (priceText === '') return 'missing_price'
    let price = integer(priceText)
    if (Number.isNaN(price)) {
      if (!DECIMAL.test(priceText)) return 'invalid_price'
      price = Number(priceText)
    }
    const currencyText = row.get(COL.currency)
    const currency = currencyText === '' || currencyText === 'PLN' ? 'PLN' : this.otherCurrency(currencyText)
    let convertedFrom = ''
    if (currency !== 'PLN') {
      const rate = rules.fx.get(currency)
      if (rate === undefined) return 'unsupported_currency'
      price *= rate
      convertedFrom = currency
    }
    if (!(price >= MIN_PRICE && price <= MAX_PRICE)) return 'price_out_of_range'

    let mileage = -1
    const mileageText = row.get(COL.mileage_km)
    if (mileageText !== '') {
      mileage = integer(mileageText)
      if (Number.isNaN(mileage)) return 'invalid_mileage_km'
      if (mileage < 0 || mileage > MAX_MILEAGE) return 'mileage_km_out_of_range'
    }

    const fuel = this.fuel(row.get(COL.fuel_type))
    if (fuel === undefined) return 'invalid_fuel_type'
    const gearbox = this.gearbox(row.get(COL.gearbox))
    if (gearbox === undefined) return 'invalid_gearbox'
    const imported = this.boolean(row.get(COL.imported))
    if (imported === undefined) return 'invalid_imported'
    const voivodeship = this.voivodeship(row.get(COL.voivodeship))
    if (voivodeship === undefined) return 'invalid_voivodeship'

    const firstText = row.get(COL.first_seen)
    if (firstText === '') return 'missing_first_seen'
    const firstSeen = this.day(firstText)
    if (firstSeen === undefined) return 'invalid_first_seen'
    const lastText = row.get(COL.last_seen)
    if (lastText === '') return 'missing_last_seen'
    const lastSeen = this.day(lastText)
    if (lastSeen === undefined) return 'invalid_last_seen'

    const activeText = row.get(COL.active)
    if (activeText === '') return 'missing_active'
    const active = this.boolean(activeText)
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

/** An optionally signed run of decimal digits (at most 15, so it stays exact), or NaN. */
function integer(s: string): number {
  let i = s.charCodeAt(0) === 0x2d ? 1 : 0
  if (i === s.length || s.length - i > 15) return NaN
  let n = 0
  for (; i < s.length; i++) {
    const d = s.charCodeAt(i) - 0x30
    if (d < 0 || d > 9) return NaN
    n = n * 10 + d
  }
  return s.charCodeAt(0) === 0x2d ? -n : n
}

/** Day number of a well-formed YYYY-MM-DD read without a regular expression, or undefined. */
function plainDay(s: string): number | undefined {
  if (s.length !== 10 || s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d) return undefined
  const digit = (i: number) => s.charCodeAt(i) - 0x30
  for (let i = 0; i < 10; i++) if (i !== 4 && i !== 7 && !(digit(i) >= 0 && digit(i) <= 9)) return undefined
  const year = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3)
  const month = digit(5) * 10 + digit(6)
  const day = digit(8) * 10 + digit(9)
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  return dayOf(year, month, day)
}

function daysInMonth(year: number, month: number): number {
  return month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31
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
