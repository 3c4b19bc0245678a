import { monthLabel, monthOfLabel } from './calendar.js'
import { roundHalfAway } from './figures.js'
import { mileageEffectMember } from './mileage-fit.js'
import {
  DETECTION_DELAY_DAYS,
  HISTORY_MONTHS,
  type AnswerRecords,
  type Confidence,
  type CurvePoint,
  type DepreciationRecord,
  type LiquidityRecord,
  type Operation,
  type PriceFigures,
  type PriceHistoryRecord,
  type RegionalRecord,
  type ValuationFactorsRecord,
  type ValuationFigures,
  type ValuationRecord,
} from './schema.js'
import { UNKNOWN } from './vocabulary.js'

/**
 * Answers are stored rendered: the JSON members of an answer that only the data decides
 * are written once, at build time, so that serving a call copies text instead of
 * decoding a record and serialising an object.
 *
 * A stored answer is a table of variants and their text, in little-endian u32s:
 *
 *     count
 *     count × [selector, sample_size, items, start, end]
 *     UTF-8 text: a variant's members are text[start, end)
 *
 * The selector says which request a variant answers: a valuation has one variant per
 * fuel and gearbox filter (filterSelector); a price history one per number of months,
 * each a tail of the same points; the other operations one, selector 0. `sample_size`
 * and `items` (factors, regions or trend points) let a reader choose between the answer
 * and INSUFFICIENT_DATA without touching the text.
 *
 * What a variant's text holds, by operation (the reader adds what the request decides):
 * - valuation: `"valuation":{…},"sample_size":n,"confidence":{…},"mileage_effect":…`
 *   (empty below MIN_LISTINGS)
 * - price-history: the trend points, comma-separated, without the brackets
 * - liquidity: every member from `estimated_days_on_market` to `sample_size` (`note` is
 *   the same for every answer, LIQUIDITY_NOTE)
 * - valuation-factors: `"total_sample_size":n,"factors":[…]`
 * - regional: `"national_average":n,"total_sample_size":n,"regions":[…]`
 * - depreciation (stored under ALL_YEARS, one variant per fuel, selector UNKNOWN for any,
 *   `sample_size` the fuel's listings in all years, `items` its points):
 *   `"curve":[…],"annual_change_pct":…`
 */

export const LIQUIDITY_NOTE =
  `estimated_days_on_market is the median span between first and last sighting of closed listings ` +
  `(observed_listing_span) plus ${DETECTION_DELAY_DAYS} days, which compensate for the delay with which ` +
  `a new listing is first detected.`

/** The note every liquidity answer ends with, as JSON: the same for all, so not stored with each. */
export const LIQUIDITY_NOTE_JSON = JSON.stringify(LIQUIDITY_NOTE)

/** One variant of a stored answer: its text is text[start, end) of the answer's text, in bytes. */
export interface Variant {
  readonly selector: number
  readonly sample_size: number
  readonly items: number
  readonly start: number
  readonly end: number
}

const FIELDS = 5
const ROW = 4 * FIELDS

/** The selector of a valuation's variant for a fuel and a gearbox code (UNKNOWN for any). */
export function filterSelector(fuel: number, gearbox: number): number {
  return fuel * 256 + gearbox
}

/**
 * The members of a valuation its listings decide, from its figures and its median's interval, at build time and for
 * a mileage window at request time.
 */
export function valuationMembers(figures: PriceFigures, confidence: Confidence): string {
  return `"valuation":{"average":${figures.average},"median":${figures.median},"p25":${figures.p25},"p75":${figures.p75}},"sample_size":${figures.sample_size},"confidence":{"median_low":${confidence.median_low},"median_high":${confidence.median_high},"level_pct":${confidence.level_pct}}`
}

/** A stored valuation variant's text: its members and its mileage effect. */
function storedValuation(figures: ValuationFigures): string {
  return `${valuationMembers(figures, figures.confidence)},${mileageEffectMember(figures.fit)}`
}

/** An operation's record as stored. */
export function renderAnswer<O extends Operation>(operation: O, record: AnswerRecords[O]): Buffer {
  switch (operation) {
    case 'valuation':
      return valuationAnswer(record as ValuationRecord)
    case 'price-history':
      return historyAnswer(record as PriceHistoryRecord)
    case 'liquidity': {
      const r = record as LiquidityRecord
      const text = `"estimated_days_on_market":${r.estimated_days_on_market},"observed_listing_span":${r.observed_listing_span},"active_listings":${r.active_listings},"sample_size":${r.sample_size}`
      return single(r.sample_size, 1, text)
    }
    case 'valuation-factors': {
      const factors = record as ValuationFactorsRecord
      return single(factors.total_sample_size, factors.factors.length, members(factors))
    }
    case 'regional': {
      const regional = record as RegionalRecord
      return single(regional.total_sample_size, regional.regions.length, members(regional))
    }
    default:
      return depreciationAnswer(record as DepreciationRecord)
  }
}

function members(record: object): string {
  return JSON.stringify(record).slice(1, -1)
}

function single(sampleSize: number, items: number, text: string): Buffer {
  const bytes = Buffer.byteLength(text)
  return encodeAnswer(text, bytes, [{ selector: 0, sample_size: sampleSize, items, start: 0, end: bytes }])
}

/** The unfiltered figures and those of each fuel and gearbox filter, one text after the other. */
function valuationAnswer(record: ValuationRecord): Buffer {
  const texts = [storedValuation(record.all)]
  const variants: Variant[] = [
    {
      selector: filterSelector(UNKNOWN, UNKNOWN),
      sample_size: record.all.sample_size,
      items: 1,
      start: 0,
      end: Buffer.byteLength(texts[0]!),
    },
  ]
  let at = variants[0]!.end
  for (const filtered of record.filtered) {
    const text = filtered.figures === null ? '' : storedValuation(filtered.figures)
    const bytes = Buffer.byteLength(text)
    texts.push(text)
    variants.push({
      selector: filterSelector(filtered.fuel, filtered.gearbox),
      sample_size: filtered.sample_size,
      items: text === '' ? 0 : 1,
      start: at,
      end: at + bytes,
    })
    at += bytes
  }
  return encodeAnswer(texts.join(''), at, variants)
}

/**
 * The points of the months with listings, comma-separated, written once; the variant
 * for `months` months starts at the first point among the last `months` months.
 */
function historyAnswer(record: PriceHistoryRecord): Buffer {
  const first = monthOfLabel(record.first_month)
  const points: string[] = []
  const pointStart = new Array<number>(HISTORY_MONTHS)
  let at = 0
  for (let m = 0; m < HISTORY_MONTHS; m++) {
    if (record.sample_size[m] === 0) continue
    const point = `{"month":"${monthLabel(first + m)}","avg_price":${record.avg_price[m]},"sample_size":${record.sample_size[m]}}`
    if (points.length > 0) at++ // the comma before it
    pointStart[m] = at
    at += Buffer.byteLength(point)
    points.push(point)
  }
  const variants: Variant[] = []
  let start = at
  let listings = 0
  let items = 0
  for (let months = 1; months <= HISTORY_MONTHS; months++) {
    const m = HISTORY_MONTHS - months
    if (record.sample_size[m]! > 0) {
      start = pointStart[m]!
      listings += record.sample_size[m]!
      items++
    }
    variants.push({ selector: months, sample_size: listings, items, start, end: at })
  }
  return encodeAnswer(points.join(','), at, variants)
}

/**
 * The members of a depreciation its listings decide: the curve's points with their medians
 * rounded, and the annual change; at build time, and for a narrowed question at request time.
 */
export function curveMembers(points: readonly CurvePoint[], annualChangePct: number | null): string {
  const items = points.map(
    (p) => `{"year":${p.year},"median":${roundHalfAway(p.median)},"sample_size":${p.sample_size}}`,
  )
  return `"curve":[${items.join(',')}],"annual_change_pct":${annualChangePct}`
}

/** One variant per fuel: its curve's points with their medians rounded, and the annual change. */
function depreciationAnswer(record: DepreciationRecord): Buffer {
  let at = 0
  const texts: string[] = []
  const variants = record.curves.map((curve): Variant => {
    const text = curveMembers(curve.points, curve.annual_change_pct)
    const bytes = Buffer.byteLength(text)
    texts.push(text)
    at += bytes
    return { selector: curve.fuel, sample_size: curve.listings, items: curve.points.length, start: at - bytes, end: at }
  })
  return encodeAnswer(texts.join(''), at, variants)
}

/** A stored answer: the table of variants, then the text they point into (`bytes` long in UTF-8). */
export function encodeAnswer(text: string, bytes: number, variants: readonly Variant[]): Buffer {
  const table = 4 + variants.length * ROW
  // Unpooled: a worker posts it, and posting a pooled buffer would copy the whole pool.
  const out = Buffer.allocUnsafeSlow(table + bytes)
  out.writeUInt32LE(variants.length, 0)
  variants.forEach((v, i) => {
    const at = 4 + i * ROW
    out.writeUInt32LE(v.selector, at)
    out.writeUInt32LE(v.sample_size, at + 4)
    out.writeUInt32LE(v.items, at + 8)
    out.writeUInt32LE(v.start, at + 12)
    out.writeUInt32LE(v.end, at + 16)
  })
  out.write(text, table, 'utf8')
  return out
}

/**
 * Reads a stored answer in place (it may be a buffer lent by lmdb-js until the next
 * read), allocating nothing but the text it is asked for.
 */
export class StoredAnswer {
  private bytes: Buffer = Buffer.alloc(4)

  /** Points this reader at a stored answer; false when it is not one. */
  reset(bytes: Buffer): boolean {
    this.bytes = bytes
    return bytes.length >= 4 && bytes.length >= 4 + this.count * ROW
  }

  get count(): number {
    return this.bytes.readUInt32LE(0)
  }

  /** The index of the variant with this selector, or -1. */
  find(selector: number): number {
    const count = this.count
    for (let i = 0; i < count; i++) if (this.bytes.readUInt32LE(4 + i * ROW) === selector) return i
    return -1
  }

  selector(variant: number): number {
    return this.bytes.readUInt32LE(4 + variant * ROW)
  }

  sampleSize(variant: number): number {
    return this.bytes.readUInt32LE(4 + variant * ROW + 4)
  }

  items(variant: number): number {
    return this.bytes.readUInt32LE(4 + variant * ROW + 8)
  }

  text(variant: number): string {
    const base = 4 + this.count * ROW
    return this.bytes.toString('utf8', base + this.textStart(variant), base + this.textEnd(variant))
  }

  /** Where a variant's text starts in the answer's text, in bytes. */
  textStart(variant: number): number {
    return this.bytes.readUInt32LE(4 + variant * ROW + 12)
  }

  textEnd(variant: number): number {
    return this.bytes.readUInt32LE(4 + variant * ROW + 16)
  }

  /** The byte at `offset` of the answer's text. */
  textByte(offset: number): number | undefined {
    return this.bytes[4 + this.count * ROW + offset]
  }
}
