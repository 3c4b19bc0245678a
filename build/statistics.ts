import { allocateColumns } from '../format/columns.js'
import { percentDiff, percentile, priceFigures, roundHalfAway } from '../format/figures.js'
import {
  DETECTION_DELAY_DAYS,
  HISTORY_MONTHS,
  MIN_LISTINGS,
  type AnswerRecords,
  type FactorEntry,
  type FactorSide,
  type PriceFigures,
  type PriceHistoryRecord,
  type RegionEntry,
  type Target,
} from '../format/schema.js'
import { monthLabel, monthOfDay } from '../format/calendar.js'
import { FUEL_TYPES, GEARBOXES, UNKNOWN, VOIVODESHIPS } from '../format/vocabulary.js'
import type { ListingStore } from './listing-store.js'

/** Everything the snapshot holds for one model or family and one production year. */
export interface KeyStatistics {
  readonly target: Target
  readonly year: number
  readonly records: AnswerRecords
  /** Packed listings with a known mileage (format/columns.ts), when there are enough to filter. */
  readonly columns: Uint8Array | undefined
}

const collator = new Intl.Collator('pl')

/**
 * Computes every key's statistics from the kept listings (data contract, section 2).
 * `model` gives each row's canonical model index (-1 for a row not kept).
 */
export class StatisticsBuilder {
  private readonly firstMonth: number
  private readonly order: Uint32Array
  private readonly starts: Uint32Array
  private readonly span: number
  private readonly minYear: number

  constructor(
    private readonly store: ListingStore,
    private readonly model: Int32Array,
    models: number,
    asOf: number,
  ) {
    this.firstMonth = monthOfDay(asOf) - (HISTORY_MONTHS - 1)
    let minYear = Infinity
    let maxYear = -Infinity
    for (let i = 0; i < store.length; i++) {
      if (model[i]! < 0) continue
      const year = store.year[i]!
      if (year < minYear) minYear = year
      if (year > maxYear) maxYear = year
    }
    this.minYear = minYear === Infinity ? 0 : minYear
    this.span = maxYear === -Infinity ? 1 : maxYear - minYear + 1
    // Counting sort of the kept rows by (model, year): each key's rows end up contiguous.
    const keys = models * this.span
    const starts = new Uint32Array(keys + 1)
    for (let i = 0; i < store.length; i++) if (model[i]! >= 0) starts[this.keyOf(i) + 1]!++
    for (let k = 0; k < keys; k++) starts[k + 1]! += starts[k]!
    const next = starts.slice(0, keys)
    const order = new Uint32Array(starts[keys]!)
    for (let i = 0; i < store.length; i++) if (model[i]! >= 0) order[next[this.keyOf(i)]!++] = i
    this.order = order
    this.starts = starts
  }

  private keyOf(row: number): number {
    return this.model[row]! * this.span + (this.store.year[row]! - this.minYear)
  }

  /** Years with listings of a canonical model, ascending. */
  yearsOf(model: number): number[] {
    const years: number[] = []
    for (let y = 0; y < this.span; y++) {
      const k = model * this.span + y
      if (this.starts[k + 1]! > this.starts[k]!) years.push(this.minYear + y)
    }
    return years
  }

  /** The rows of some models in one year. */
  private rowsOf(models: readonly number[], year: number): Uint32Array {
    const y = year - this.minYear
    let total = 0
    for (const m of models) total += this.starts[m * this.span + y + 1]! - this.starts[m * this.span + y]!
    const rows = new Uint32Array(total)
    let at = 0
    for (const m of models) {
      const k = m * this.span + y
      rows.set(this.order.subarray(this.starts[k]!, this.starts[k + 1]!), at)
      at += this.starts[k + 1]! - this.starts[k]!
    }
    return rows
  }

  /** Statistics of a target (a model, or a family pooling several) in one year. */
  key(target: Target, models: readonly number[], year: number): KeyStatistics {
    const store = this.store
    const rows = this.rowsOf(models, year)
    const price = store.price
    rows.sort((a, b) => price[a]! - price[b]!)
    const n = rows.length
    const prices = new Float64Array(n)
    for (let i = 0; i < n; i++) prices[i] = price[rows[i]!]!

    const { filtered, columns, withMileage } = this.valuationFilters(rows)
    return {
      target,
      year,
      columns,
      records: {
        valuation: { all: priceFigures(prices), filtered, with_mileage: withMileage },
        'price-history': this.history(rows),
        liquidity: this.liquidity(rows),
        'valuation-factors': this.factors(rows),
        regional: this.regional(rows),
      },
    }
  }

  /**
   * Figures for every fuel/gearbox filter with enough listings (so those answers are a
   * look-up) and the packed columns a mileage window is computed from.
   * `rows` are ascending by price, so every gathered price list is sorted already.
   */
  private valuationFilters(rows: Uint32Array) {
    const { fuel, gearbox, mileage, price } = this.store
    const FUELS = FUEL_TYPES.length + 1 // the last slot is "any"
    const GEARS = GEARBOXES.length + 1
    const slot = (f: number, g: number) => (f === UNKNOWN ? FUELS - 1 : f) * GEARS + (g === UNKNOWN ? GEARS - 1 : g)
    const counts = new Uint32Array(FUELS * GEARS)
    let withMileage = 0
    for (const r of rows) {
      const f = fuel[r]!
      const g = gearbox[r]!
      if (f !== UNKNOWN) counts[slot(f, UNKNOWN)]!++
      if (g !== UNKNOWN) counts[slot(UNKNOWN, g)]!++
      if (f !== UNKNOWN && g !== UNKNOWN) counts[slot(f, g)]!++
      if (mileage[r]! >= 0) withMileage++
    }
    const filtered: [number, number, PriceFigures][] = []
    for (let f = 0; f < FUELS; f++) {
      for (let g = 0; g < GEARS; g++) {
        const fuelCode = f === FUELS - 1 ? UNKNOWN : f
        const gearCode = g === GEARS - 1 ? UNKNOWN : g
        if (fuelCode === UNKNOWN && gearCode === UNKNOWN) continue
        const count = counts[slot(fuelCode, gearCode)]!
        if (count < MIN_LISTINGS) continue
        const prices = new Float64Array(count)
        let at = 0
        for (const r of rows) {
          if ((fuelCode === UNKNOWN || fuel[r] === fuelCode) && (gearCode === UNKNOWN || gearbox[r] === gearCode)) {
            prices[at++] = price[r]!
          }
        }
        filtered.push([fuelCode, gearCode, priceFigures(prices)])
      }
    }
    let columns: Uint8Array | undefined
    if (withMileage >= MIN_LISTINGS) {
      const packed = allocateColumns(withMileage)
      let at = 0
      for (const r of rows) {
        if (mileage[r]! < 0) continue
        packed.columns.price[at] = price[r]!
        packed.columns.mileage[at] = mileage[r]!
        packed.columns.fuel[at] = fuel[r]!
        packed.columns.gearbox[at] = gearbox[r]!
        at++
      }
      columns = packed.bytes
    }
    return { filtered, columns, withMileage }
  }

  /** Mean price per month of first_seen over the HISTORY_MONTHS months ending with the as-of month. */
  private history(rows: Uint32Array): PriceHistoryRecord {
    const sums = new Float64Array(HISTORY_MONTHS)
    const counts = new Array<number>(HISTORY_MONTHS).fill(0)
    for (const r of rows) {
      const m = monthOfDay(this.store.firstSeen[r]!) - this.firstMonth
      if (m < 0 || m >= HISTORY_MONTHS) continue
      sums[m]! += this.store.price[r]!
      counts[m]!++
    }
    return {
      first_month: monthLabel(this.firstMonth),
      avg_price: counts.map((c, m) => (c === 0 ? 0 : roundHalfAway(sums[m]! / c))),
      sample_size: counts,
    }
  }

  /**
   * Median days between first and last sighting of closed listings. The 13 days added
   * for the estimate compensate for the delay with which a new listing is first detected.
   */
  private liquidity(rows: Uint32Array) {
    const { active, firstSeen, lastSeen } = this.store
    let closed = 0
    for (const r of rows) if (active[r] === 0) closed++
    const spans = new Float64Array(closed)
    let at = 0
    for (const r of rows) if (active[r] === 0) spans[at++] = lastSeen[r]! - firstSeen[r]!
    spans.sort()
    const span = closed === 0 ? 0 : roundHalfAway(percentile(spans, 0.5))
    return {
      estimated_days_on_market: span + DETECTION_DELAY_DAYS,
      observed_listing_span: span,
      active_listings: rows.length - closed,
      sample_size: closed,
    }
  }

  /** Mean price of each value of a coded attribute (sum and count per code). */
  private meansBy(rows: Uint32Array, codes: Uint8Array, size: number) {
    const sums = new Float64Array(size)
    const counts = new Uint32Array(size)
    for (const r of rows) {
      const c = codes[r]!
      if (c === UNKNOWN) continue
      sums[c]! += this.store.price[r]!
      counts[c]!++
    }
    return { sums, counts }
  }

  private factors(rows: Uint32Array) {
    const side = (label: string, sum: number, count: number) => ({ label, mean: sum / count, count })
    const entry = (
      dimension: FactorEntry['dimension'],
      base: ReturnType<typeof side>,
      comparison: ReturnType<typeof side>,
    ): FactorEntry | undefined =>
      base.count < MIN_LISTINGS || comparison.count < MIN_LISTINGS
        ? undefined
        : {
            dimension,
            baseline: factorSide(base.label, base.mean, base.count),
            comparison: factorSide(comparison.label, comparison.mean, comparison.count),
            price_diff_percent: percentDiff(comparison.mean, base.mean),
          }

    const imported = this.meansBy(rows, this.store.imported, 2)
    const gearbox = this.meansBy(rows, this.store.gearbox, GEARBOXES.length)
    const fuel = this.meansBy(rows, this.store.fuel, FUEL_TYPES.length)
    const fuelEntries: FactorEntry[] = []
    const petrol = side(FUEL_TYPES[0], fuel.sums[0]!, fuel.counts[0]!)
    for (let f = 1; f < FUEL_TYPES.length; f++) {
      const e = entry('fuel_type', petrol, side(FUEL_TYPES[f]!, fuel.sums[f]!, fuel.counts[f]!))
      if (e !== undefined) fuelEntries.push(e)
    }
    // Stable sort: equal sample sizes keep the table's fuel order.
    fuelEntries.sort((a, b) => b.comparison.sample_size - a.comparison.sample_size)
    const factors = [
      entry('import_status', side('Krajowy', imported.sums[0]!, imported.counts[0]!), side('Sprowadzony', imported.sums[1]!, imported.counts[1]!)),
      entry('gearbox', side(GEARBOXES[0], gearbox.sums[0]!, gearbox.counts[0]!), side(GEARBOXES[1], gearbox.sums[1]!, gearbox.counts[1]!)),
      ...fuelEntries,
    ].filter((e): e is FactorEntry => e !== undefined)
    return { total_sample_size: rows.length, factors }
  }

  private regional(rows: Uint32Array) {
    const { sums, counts } = this.meansBy(rows, this.store.voivodeship, VOIVODESHIPS.length)
    let total = 0
    let sum = 0
    for (let v = 0; v < VOIVODESHIPS.length; v++) {
      total += counts[v]!
      sum += sums[v]!
    }
    const national = total === 0 ? 0 : sum / total
    const regions: RegionEntry[] = []
    for (let v = 0; v < VOIVODESHIPS.length; v++) {
      if (counts[v] === 0) continue
      const mean = sums[v]! / counts[v]!
      regions.push({
        region: VOIVODESHIPS[v]!,
        avg_price: roundHalfAway(mean),
        sample_size: counts[v]!,
        vs_national_pct: percentDiff(mean, national),
      })
    }
    regions.sort((a, b) => b.sample_size - a.sample_size || collator.compare(a.region, b.region))
    return { national_average: roundHalfAway(national), total_sample_size: total, regions }
  }
}

function factorSide(label: string, mean: number, count: number): FactorSide {
  return { label, avg_price: roundHalfAway(mean), sample_size: count }
}
