import { allocateColumns, type SelectedFit } from '../format/columns.js'
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

/** Everything the snapshot holds for one model or family and one production year. */
export interface KeyStatistics {
  readonly target: Target
  readonly year: number
  readonly records: Omit<AnswerRecords, 'depreciation'>
  /** Packed listings and mileage fits (format/columns.ts), when there are enough listings for any figure. */
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
}

/**
 * Groups the kept rows by key (a counting sort). `model` gives each row's canonical model index, -1 for a row not kept.
 */
export function groupRows(store: ListingStore, model: Int32Array, models: number, asOf: number): GroupedRows {
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
  private readonly scratch = new Scratch()

  constructor(rows: GroupedRows) {
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

  /** Statistics of a target (a model, or a family pooling several) in one year. */
  key(target: Target, models: readonly number[], year: number): KeyStatistics {
    const { numbers, codes, starts } = this
    const y = year - this.minYear
    let n = 0
    for (const m of models) n += starts[m * this.span + y + 1]! - starts[m * this.span + y]!
    const local = this.scratch.forKey(n)
    const sums = local.sums
    let i = 0
    let closed = 0
    // One pass gathers the key's own columns and every sum and count the five records need.
    for (const m of models) {
      const k = m * this.span + y
      for (let r = starts[k]!; r < starts[k + 1]!; r++, i++) {
        const p = numbers[r * NUMBERS + PRICE]!
        const mileage = numbers[r * NUMBERS + MILEAGE]!
        const firstSeen = numbers[r * NUMBERS + FIRST_SEEN]!
        const f = codes[r * CODES + FUEL]!
        const g = codes[r * CODES + GEARBOX]!
        local.price[i] = p
        local.fuel[i] = f
        local.gearbox[i] = g
        local.mileage[i] = mileage
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
const CODES = 5
const FUEL = 0
const GEARBOX = 1
const IMPORTED = 2
const VOIVODESHIP = 3
const ACTIVE = 4

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

  forKey(n: number): this {
    if (this.price.length < n) {
      const size = Math.max(n, this.price.length * 2)
      this.price = new Float64Array(size)
      this.fuel = new Uint8Array(size)
      this.gearbox = new Uint8Array(size)
      this.mileage = new Int32Array(size)
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
  let columns: Uint8Array | undefined
  if (n >= MIN_LISTINGS) {
    const packed = allocateColumns(n, fits)
    for (let k = 0; k < n; k++) {
      const i = byPrice[k]!
      packed.columns.price[k] = local.price[i]!
      packed.columns.mileage[k] = local.mileage[i]!
      packed.columns.fuel[k] = local.fuel[i]!
      packed.columns.gearbox[k] = local.gearbox[i]!
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
