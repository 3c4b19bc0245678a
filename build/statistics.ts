import { NO_DETAIL, allocateColumns, type DetailText, type SelectedFit } from '../format/columns.js'
import { confidenceOf, percentDiff, percentile, priceFigures, roundHalfAway } from '../format/figures.js'
import { fitMileage } from '../format/mileage-fit.js'
import { filterSelector } from '../format/rendered.js'
import {
  DETECTION_DELAY_DAYS,
  HISTORY_MONTHS,
  MIN_LISTINGS,
  type AnswerRecords,
  type FactorEntry,
  type ModelNames,
  type FilteredFigures,
  type FactorSide,
  type RegionEntry,
  type Target,
  type ValuationFigures,
} from '../format/schema.js'
import { monthLabel, monthOfDay } from '../format/calendar.js'
import { FUEL_TYPES, GEARBOXES, IMPORT_STATUSES, UNKNOWN, VOIVODESHIPS } from '../format/vocabulary.js'
import type { ListingStore } from './listing-store.js'
import { normalize } from '../format/normalize.js'

/** Everything the snapshot holds for one model or family and one production year. */
export interface KeyStatistics {
  readonly target: Target
  readonly year: number
  readonly records: Omit<AnswerRecords, 'depreciation'>
  /** Packed listings and mileage fits (format/columns.ts), when there are enough listings for a figure or a version. */
  readonly columns: Uint8Array | undefined
  /** The year's median over every fuel and per fuel, where there are enough listings. */
  readonly medians: readonly YearMedian[]
}

/** A canonical model's production years with listings, its listings, and the years with enough for figures. */
export type ModelListings = Omit<ModelNames, 'name'>

/** A median of one production year, for a depreciation curve (contract 5.5). */
export interface YearMedian {
  /** A fuel code, or UNKNOWN for any fuel. */
  readonly fuel: number
  /** Unrounded; null below MIN_LISTINGS. */
  readonly median: number | null
  readonly sample_size: number
}

const collator = new Intl.Collator('pl')

/**
 * The kept listings grouped by (model, year), in memory that worker threads share:
 * each key's rows lie together and are read front to back, instead of costing a cache
 * miss per column per row all over a million-row store.
 */
export interface GroupedRows {
  /** NUMBERS interleaved numbers per row. */
  readonly numbers: Float64Array
  /** CODES interleaved codes per row. */
  readonly codes: Uint8Array
  /** Key k (model * span + year - minYear) has rows starts[k] to starts[k + 1]. */
  readonly starts: Uint32Array
  readonly span: number
  readonly minYear: number
  /** First month of the history window, as a month number. */
  readonly firstMonth: number
  /** The day `months` starts at, and the month of each day from then to the as-of date. */
  readonly firstDay: number
  readonly months: Int32Array
  /**
   * DETAILS interleaved detail text ids per row (version, generation; 0 for none) and each row's power (0 unknown);
   * empty when no row gives any detail.
   */
  readonly details: Uint32Array
  readonly power: Uint16Array
  /** Every version and generation of the export, by its id (0 is none), as written and normalized. */
  readonly detailTexts: readonly DetailText[]
}

/**
 * Groups the kept rows by key (a counting sort). `model` gives each row's canonical model index, -1 for a row not kept.
 */
export function groupRows(store: ListingStore, model: Int32Array, models: number, asOf: number): GroupedRows {
  const detailTexts = store.spellings.detailTexts.map((text) => ({ text, normalized: normalize(text) }))
  let minYear = Infinity
  let maxYear = -Infinity
  for (let i = 0; i < store.length; i++) {
    if (model[i]! < 0) continue
    const year = store.year[i]!
    if (year < minYear) minYear = year
    if (year > maxYear) maxYear = year
  }
  if (minYear === Infinity) minYear = 0
  const span = maxYear === -Infinity ? 1 : maxYear - minYear + 1
  // Month of each day from HISTORY_MONTHS + 1 months before the as-of date on: older
  // first sightings fall outside every window and take the slow path.
  const firstDay = asOf - (HISTORY_MONTHS + 1) * 31
  const months = Int32Array.from({ length: asOf - firstDay + 1 }, (_, d) => monthOfDay(firstDay + d))
  const keyOf = (row: number) => model[row]! * span + (store.year[row]! - minYear)
  const keys = models * span
  const starts = new Uint32Array(keys + 1)
  for (let i = 0; i < store.length; i++) if (model[i]! >= 0) starts[keyOf(i) + 1]!++
  for (let k = 0; k < keys; k++) starts[k + 1]! += starts[k]!
  const next = starts.slice(0, keys)
  const rows = starts[keys]!
  const numbers = new Float64Array(new SharedArrayBuffer(rows * NUMBERS * Float64Array.BYTES_PER_ELEMENT))
  const codes = new Uint8Array(new SharedArrayBuffer(rows * CODES))
  // An export without detail columns costs no memory for them here either.
  const detailRows = store.detailed ? rows : 0
  const details = new Uint32Array(new SharedArrayBuffer(detailRows * DETAILS * Uint32Array.BYTES_PER_ELEMENT))
  const power = new Uint16Array(new SharedArrayBuffer(detailRows * Uint16Array.BYTES_PER_ELEMENT))
  const { price, mileage, firstSeen, lastSeen, fuel, gearbox, imported, voivodeship, active } = store
  for (let i = 0; i < store.length; i++) {
    if (model[i]! < 0) continue
    const at = next[keyOf(i)]!++
    numbers[at * NUMBERS + PRICE] = price[i]!
    numbers[at * NUMBERS + MILEAGE] = mileage[i]!
    numbers[at * NUMBERS + FIRST_SEEN] = firstSeen[i]!
    numbers[at * NUMBERS + LAST_SEEN] = lastSeen[i]!
    codes[at * CODES + FUEL] = fuel[i]!
    codes[at * CODES + GEARBOX] = gearbox[i]!
    codes[at * CODES + IMPORTED] = imported[i]!
    codes[at * CODES + VOIVODESHIP] = voivodeship[i]!
    codes[at * CODES + ACTIVE] = active[i]!
    if (!store.detailed) {
      codes[at * CODES + BODY] = UNKNOWN
      continue
    }
    codes[at * CODES + BODY] = store.bodyType[i]!
    details[at * DETAILS + VERSION] = store.version[i]!
    details[at * DETAILS + GENERATION] = store.generation[i]!
    power[at] = store.power[i]!
  }
  return {
    numbers,
    codes,
    starts,
    span,
    minYear,
    firstMonth: monthOfDay(asOf) - (HISTORY_MONTHS - 1),
    firstDay,
    months,
    details,
    power,
    detailTexts,
  }
}

/** Computes keys' statistics (data contract, section 2) from grouped rows, one key at a time. */
export class StatisticsBuilder {
  private readonly firstMonth: number
  private readonly numbers: Float64Array
  private readonly codes: Uint8Array
  private readonly starts: Uint32Array
  private readonly span: number
  private readonly minYear: number
  private readonly firstDay: number
  private readonly months: Int32Array
  private readonly details: Uint32Array
  private readonly power: Uint16Array
  private readonly scratch: Scratch

  constructor(rows: GroupedRows) {
    this.details = rows.details
    this.power = rows.power
    this.scratch = new Scratch(rows.detailTexts)
    this.firstMonth = rows.firstMonth
    this.numbers = rows.numbers
    this.codes = rows.codes
    this.starts = rows.starts
    this.span = rows.span
    this.minYear = rows.minYear
    this.firstDay = rows.firstDay
    this.months = rows.months
  }

  /** What the name index and the catalogue tell of a canonical model: its years and listings. */
  listingsOf(model: number): ModelListings {
    const years: number[] = []
    const figureYears: number[] = []
    let listings = 0
    for (let y = 0; y < this.span; y++) {
      const k = model * this.span + y
      const count = this.starts[k + 1]! - this.starts[k]!
      listings += count
      if (count > 0) years.push(this.minYear + y)
      if (count >= MIN_LISTINGS) figureYears.push(this.minYear + y)
    }
    return { years, listings, figure_years: figureYears }
  }

  /** How many of a model's listings of each production year have this body type. */
  yearsWithBody(model: number, body: number): Map<number, number> {
    const years = new Map<number, number>()
    for (let y = 0; y < this.span; y++) {
      const k = model * this.span + y
      let count = 0
      for (let r = this.starts[k]!; r < this.starts[k + 1]!; r++) if (this.codes[r * CODES + BODY] === body) count++
      if (count > 0) years.set(this.minYear + y, count)
    }
    return years
  }

  /**
   * Statistics of a target (a model, or several pooled) in one year: the listings of each of `models`, those of
   * `bodies[i]` alone where it is not UNKNOWN (a body variant's base model, contract 3.1).
   */
  key(target: Target, models: readonly number[], bodies: readonly number[], year: number): KeyStatistics {
    const { numbers, codes, starts, details, power } = this
    const detailed = power.length > 0
    const y = year - this.minYear
    let n = 0
    models.forEach((m, j) => {
      const k = m * this.span + y
      if (bodies[j] === UNKNOWN) n += starts[k + 1]! - starts[k]!
      else for (let r = starts[k]!; r < starts[k + 1]!; r++) if (codes[r * CODES + BODY] === bodies[j]) n++
    })
    const local = this.scratch.forKey(n)
    const sums = local.sums
    let i = 0
    let closed = 0
    // One pass gathers the key's own columns and every sum and count the five records need.
    for (let j = 0; j < models.length; j++) {
      const k = models[j]! * this.span + y
      const body = bodies[j]!
      for (let r = starts[k]!; r < starts[k + 1]!; r++) {
        if (body !== UNKNOWN && codes[r * CODES + BODY] !== body) continue
        const p = numbers[r * NUMBERS + PRICE]!
        const mileage = numbers[r * NUMBERS + MILEAGE]!
        const firstSeen = numbers[r * NUMBERS + FIRST_SEEN]!
        const f = codes[r * CODES + FUEL]!
        const g = codes[r * CODES + GEARBOX]!
        local.price[i] = p
        local.fuel[i] = f
        local.gearbox[i] = g
        local.mileage[i] = mileage
        local.version[i] = detailed ? details[r * DETAILS + VERSION]! : 0
        local.generation[i] = detailed ? details[r * DETAILS + GENERATION]! : 0
        local.power[i] = detailed ? power[r]! : 0
        local.body[i] = codes[r * CODES + BODY]!
        if (f !== UNKNOWN) {
          sums.add(sums.fuel, f, p)
          sums.combo(f, UNKNOWN)
        }
        if (g !== UNKNOWN) {
          sums.add(sums.gearbox, g, p)
          sums.combo(UNKNOWN, g)
        }
        if (f !== UNKNOWN && g !== UNKNOWN) sums.combo(f, g)
        const imported = codes[r * CODES + IMPORTED]!
        if (imported !== UNKNOWN) sums.add(sums.imported, imported, p)
        const voivodeship = codes[r * CODES + VOIVODESHIP]!
        if (voivodeship !== UNKNOWN) sums.add(sums.region, voivodeship, p)
        const month = this.monthOfDay(firstSeen) - this.firstMonth
        if (month >= 0 && month < HISTORY_MONTHS) sums.add(sums.month, month, p)
        if (codes[r * CODES + ACTIVE] === 0) local.spans[closed++] = numbers[r * NUMBERS + LAST_SEEN]! - firstSeen
        i++
      }
    }
    const byPrice = local.orderByPrice(n)
    const { all, filtered, columns, medians } = valuationFigures(local, byPrice)
    return {
      target,
      year,
      columns,
      medians,
      records: {
        valuation: { all, filtered },
        'price-history': {
          first_month: monthLabel(this.firstMonth),
          avg_price: Array.from(sums.month.counts, (c, m) => (c === 0 ? 0 : roundHalfAway(sums.month.sums[m]! / c))),
          sample_size: Array.from(sums.month.counts),
        },
        liquidity: liquidity(local.spans.subarray(0, closed), n),
        'valuation-factors': factors(sums, n),
        regional: regional(sums),
      },
    }
  }

  /** Month number of a day, from a table over the export's days (a Date per row costs more than the rest). */
  private monthOfDay(day: number): number {
    const at = day - this.firstDay
    return at >= 0 && at < this.months.length ? this.months[at]! : monthOfDay(day)
  }
}

// The interleaved layout of StatisticsBuilder's key-ordered rows.
const NUMBERS = 4
const PRICE = 0
const MILEAGE = 1
const FIRST_SEEN = 2
const LAST_SEEN = 3
const CODES = 6
const FUEL = 0
const GEARBOX = 1
const IMPORTED = 2
const VOIVODESHIP = 3
const ACTIVE = 4
const BODY = 5
const DETAILS = 2
const VERSION = 0
const GENERATION = 1

const FUELS = FUEL_TYPES.length + 1 // the last slot stands for "any fuel"
const GEARS = GEARBOXES.length + 1
const COMBOS = FUELS * GEARS
const comboSlot = (f: number, g: number) => (f === UNKNOWN ? FUELS - 1 : f) * GEARS + (g === UNKNOWN ? GEARS - 1 : g)
const comboFuel = (c: number) => (Math.floor(c / GEARS) === FUELS - 1 ? UNKNOWN : Math.floor(c / GEARS))
const comboGearbox = (c: number) => (c % GEARS === GEARS - 1 ? UNKNOWN : c % GEARS)

/**
 * Working memory for one key at a time, reused across keys so that computing ten
 * thousand keys does not allocate a quarter of a million typed arrays.
 */
class Scratch {
  price = new Float64Array(0)
  fuel = new Uint8Array(0)
  gearbox = new Uint8Array(0)
  mileage = new Int32Array(0)
  version = new Uint32Array(0)
  generation = new Uint32Array(0)
  power = new Uint16Array(0)
  body = new Uint8Array(0)
  spans = new Float64Array(0)
  private sorted = new Float64Array(0)
  private placed = new Uint32Array(0)
  private byPrice = new Uint32Array(0)
  /** Room for the price lists of every fuel/gearbox filter (each listing is in at most three), and their mileages. */
  lists = new Float64Array(0)
  mileages = new Int32Array(0)
  /** ln(price) beside each price of `lists` with a known mileage: the fits need it, and each listing is in up to four. */
  logs = new Float64Array(0)
  /** Room for a fit's moved prices and a copy to select from. */
  private fitScratch = new Float64Array(0)
  readonly sums = new Sums()
  /** The index of each detail text among the key's (its columns' own numbering), valid where its stamp is the key's. */
  private readonly detailIndex: Uint32Array
  private readonly detailStamp: Uint32Array
  private stamp = 0

  constructor(private readonly detailTexts: readonly DetailText[]) {
    this.detailIndex = new Uint32Array(detailTexts.length)
    this.detailStamp = new Uint32Array(detailTexts.length)
  }

  /**
   * The key's detail texts, each once, in the order its listings (in `order`) first name them, and each listing's
   * version and generation as an index among them (NO_DETAIL for none) in `version` and `generation`, in place.
   */
  keyDetails(order: Uint32Array): DetailText[] {
    this.stamp++
    const texts: DetailText[] = []
    const local = (id: number) => {
      if (id === 0) return NO_DETAIL
      if (this.detailStamp[id] !== this.stamp) {
        this.detailStamp[id] = this.stamp
        this.detailIndex[id] = texts.push(this.detailTexts[id]!) - 1
      }
      return this.detailIndex[id]!
    }
    for (const i of order) {
      this.version[i] = local(this.version[i]!)
      this.generation[i] = local(this.generation[i]!)
    }
    return texts
  }

  forKey(n: number): this {
    if (this.price.length < n) {
      const size = Math.max(n, this.price.length * 2)
      this.price = new Float64Array(size)
      this.fuel = new Uint8Array(size)
      this.gearbox = new Uint8Array(size)
      this.mileage = new Int32Array(size)
      this.version = new Uint32Array(size)
      this.generation = new Uint32Array(size)
      this.power = new Uint16Array(size)
      this.body = new Uint8Array(size)
      this.spans = new Float64Array(size)
      this.sorted = new Float64Array(size)
      this.placed = new Uint32Array(size)
      this.byPrice = new Uint32Array(size)
      this.lists = new Float64Array(size * 4)
      this.mileages = new Int32Array(size * 4)
      this.logs = new Float64Array(size * 4)
      this.fitScratch = new Float64Array(size * 2)
    }
    this.sums.clear()
    return this
  }

  /** The figures of the ascending prices lists[from, to): the spec's, the median's interval and the mileage fit. */
  figures(from: number, to: number): ValuationFigures {
    const prices = this.lists.subarray(from, to)
    return {
      ...priceFigures(prices),
      confidence: confidenceOf(prices),
      fit: fitMileage(this.lists, this.logs, this.mileages, from, to, this.fitScratch),
    }
  }

  /**
   * The key's listings in ascending price order, equal prices in row order. A sort with
   * a comparator calls back into JavaScript n log n times; this sorts the prices
   * natively and places each listing by binary search instead.
   */
  orderByPrice(n: number): Uint32Array {
    const sorted = this.sorted.subarray(0, n)
    sorted.set(this.price.subarray(0, n))
    sorted.sort()
    const placed = this.placed.subarray(0, n).fill(0)
    const order = this.byPrice.subarray(0, n)
    for (let i = 0; i < n; i++) {
      const p = this.price[i]!
      let low = 0
      let high = n
      while (low < high) {
        const mid = (low + high) >>> 1
        if (sorted[mid]! < p) low = mid + 1
        else high = mid
      }
      order[low + placed[low]!++] = i
    }
    return order
  }
}

/**
 * The key's figures, those of every fuel/gearbox filter with enough listings (so those
 * answers are a look-up), their mileage fits, and the packed columns the answers that
 * depend on a request's numbers are computed from. Walking the key in price order makes
 * every gathered price list sorted already.
 */
function valuationFigures(local: Scratch, byPrice: Uint32Array) {
  const counts = local.sums.combos
  // Each filter's prices (and mileages, -1 unknown) get a stretch of local.lists:
  // [start, start + count); the whole key's come first.
  const n = byPrice.length
  const start = new Int32Array(COMBOS).fill(-1)
  let offset = n
  for (let c = 0; c < COMBOS; c++) {
    if (counts[c]! < MIN_LISTINGS) continue
    start[c] = offset
    offset += counts[c]!
  }
  const fill = start.slice()
  const { lists, mileages, logs } = local
  for (let k = 0; k < n; k++) {
    const i = byPrice[k]!
    const f = local.fuel[i]!
    const g = local.gearbox[i]!
    const p = local.price[i]!
    const m = local.mileage[i]!
    const lp = m >= 0 ? Math.log(p) : 0
    lists[k] = p
    mileages[k] = m
    logs[k] = lp
    if (f !== UNKNOWN) push(local, fill, comboSlot(f, UNKNOWN), p, m, lp)
    if (g !== UNKNOWN) push(local, fill, comboSlot(UNKNOWN, g), p, m, lp)
    if (f !== UNKNOWN && g !== UNKNOWN) push(local, fill, comboSlot(f, g), p, m, lp)
  }
  const all = local.figures(0, n)
  const fits: SelectedFit[] = []
  if (all.fit !== null) fits.push({ selector: filterSelector(UNKNOWN, UNKNOWN), fit: all.fit })
  const filtered: FilteredFigures[] = []
  for (let c = 0; c < COMBOS; c++) {
    if (counts[c] === 0) continue
    const fuel = comboFuel(c)
    const gearbox = comboGearbox(c)
    const figures = start[c]! >= 0 ? local.figures(start[c]!, fill[c]!) : null
    if (figures?.fit != null) fits.push({ selector: filterSelector(fuel, gearbox), fit: figures.fit })
    filtered.push({ fuel, gearbox, sample_size: counts[c]!, figures })
  }
  // Kept from MIN_LISTINGS listings on, and for a thinner key whose listings tell their versions: a depreciation
  // narrowed by version words asks every year, thin ones too, whether its listings tell them (contract 5.5 and 4.1,
  // rule 3).
  let columns: Uint8Array | undefined
  const texts = n > 0 ? local.keyDetails(byPrice) : []
  if (n >= MIN_LISTINGS || texts.length > 0) {
    let power = false
    let body = false
    for (let k = 0; k < n && !(power && body); k++) {
      power ||= local.power[k] !== 0
      body ||= local.body[k] !== UNKNOWN
    }
    const packed = allocateColumns(n, fits, texts, { versions: texts.length > 0, power, body })
    const c = packed.columns
    for (let k = 0; k < n; k++) {
      const i = byPrice[k]!
      c.price[k] = local.price[i]!
      c.mileage[k] = local.mileage[i]!
      c.fuel[k] = local.fuel[i]!
      c.gearbox[k] = local.gearbox[i]!
      if (c.version !== undefined) c.version[k] = local.version[i]!
      if (c.generation !== undefined) c.generation[k] = local.generation[i]!
      if (c.power !== undefined) c.power[k] = local.power[i]!
      if (c.body !== undefined) c.body[k] = local.body[i]!
    }
    columns = packed.bytes
  }
  // Depreciation (contract 5.5) needs each year's median over every fuel and per fuel, unrounded.
  const medianOf = (from: number, to: number) =>
    to - from >= MIN_LISTINGS ? percentile(lists.subarray(from, to), 0.5) : null
  const medians: YearMedian[] = [{ fuel: UNKNOWN, median: medianOf(0, n), sample_size: n }]
  for (let f = 0; f < FUEL_TYPES.length; f++) {
    const c = comboSlot(f, UNKNOWN)
    if (counts[c]! > 0) medians.push({ fuel: f, median: medianOf(start[c]!, fill[c]!), sample_size: counts[c]! })
  }
  return { all, filtered, columns, medians }
}

function push(local: Scratch, fill: Int32Array, slot: number, p: number, m: number, lp: number): void {
  const at = fill[slot]!
  if (at < 0) return
  local.lists[at] = p
  local.mileages[at] = m
  local.logs[at] = lp
  fill[slot] = at + 1
}

interface SumsBy {
  readonly sums: Float64Array
  readonly counts: Uint32Array
}
const sumsBy = (size: number): SumsBy => ({ sums: new Float64Array(size), counts: new Uint32Array(size) })

/** Price sums and counts of one key by each attribute, and listing counts per fuel/gearbox filter. */
class Sums {
  readonly fuel = sumsBy(FUEL_TYPES.length)
  readonly gearbox = sumsBy(GEARBOXES.length)
  readonly imported = sumsBy(2)
  readonly region = sumsBy(VOIVODESHIPS.length)
  readonly month = sumsBy(HISTORY_MONTHS)
  readonly combos = new Uint32Array(COMBOS)

  add(by: SumsBy, code: number, price: number): void {
    by.sums[code]! += price
    by.counts[code]!++
  }

  combo(f: number, g: number): void {
    this.combos[comboSlot(f, g)]!++
  }

  clear(): void {
    for (const by of [this.fuel, this.gearbox, this.imported, this.region, this.month]) {
      by.sums.fill(0)
      by.counts.fill(0)
    }
    this.combos.fill(0)
  }
}

/**
 * Median days between first and last sighting of closed listings. The 13 days added
 * for the estimate compensate for the delay with which a new listing is first detected.
 */
function liquidity(spans: Float64Array, listings: number) {
  spans.sort()
  const span = spans.length === 0 ? 0 : roundHalfAway(percentile(spans, 0.5))
  return {
    estimated_days_on_market: span + DETECTION_DELAY_DAYS,
    observed_listing_span: span,
    active_listings: listings - spans.length,
    sample_size: spans.length,
  }
}

/** One baseline/comparison entry, when both sides have enough listings. */
function factor(
  dimension: FactorEntry['dimension'],
  by: SumsBy,
  base: number,
  baseLabel: string,
  other: number,
  otherLabel: string,
) {
  const baseCount = by.counts[base]!
  const otherCount = by.counts[other]!
  if (baseCount < MIN_LISTINGS || otherCount < MIN_LISTINGS) return undefined
  const baseMean = by.sums[base]! / baseCount
  const otherMean = by.sums[other]! / otherCount
  return {
    dimension,
    baseline: factorSide(baseLabel, baseMean, baseCount),
    comparison: factorSide(otherLabel, otherMean, otherCount),
    price_diff_percent: percentDiff(otherMean, baseMean),
  }
}

function factors(sums: Sums, listings: number) {
  const fuelEntries: FactorEntry[] = []
  for (let f = 1; f < FUEL_TYPES.length; f++) {
    const e = factor('fuel_type', sums.fuel, 0, FUEL_TYPES[0], f, FUEL_TYPES[f]!)
    if (e !== undefined) fuelEntries.push(e)
  }
  // Stable sort: equal sample sizes keep the table's fuel order.
  fuelEntries.sort((a, b) => b.comparison.sample_size - a.comparison.sample_size)
  const entries = [
    factor('import_status', sums.imported, 0, IMPORT_STATUSES[0], 1, IMPORT_STATUSES[1]),
    factor('gearbox', sums.gearbox, 0, GEARBOXES[0], 1, GEARBOXES[1]),
    ...fuelEntries,
  ]
  return { total_sample_size: listings, factors: entries.filter((e): e is FactorEntry => e !== undefined) }
}

function regional(sums: Sums) {
  const { sums: total, counts } = sums.region
  let count = 0
  let sum = 0
  for (let v = 0; v < VOIVODESHIPS.length; v++) {
    count += counts[v]!
    sum += total[v]!
  }
  const national = count === 0 ? 0 : sum / count
  const regions: RegionEntry[] = []
  for (let v = 0; v < VOIVODESHIPS.length; v++) {
    if (counts[v] === 0) continue
    const mean = total[v]! / counts[v]!
    regions.push({
      region: VOIVODESHIPS[v]!,
      avg_price: roundHalfAway(mean),
      sample_size: counts[v]!,
      vs_national_pct: percentDiff(mean, national),
    })
  }
  regions.sort((a, b) => b.sample_size - a.sample_size || collator.compare(a.region, b.region))
  return { national_average: roundHalfAway(national), total_sample_size: count, regions }
}

function factorSide(label: string, mean: number, count: number): FactorSide {
  return { label, avg_price: roundHalfAway(mean), sample_size: count }
}
