import { annualChangePct } from '../format/annual-change.js'
import type { CurvePoint, DepreciationRecord, Target } from '../format/schema.js'
import type { YearMedian } from './statistics.js'

/**
 * Gathers the yearly medians of each model and family as their keys come out of the
 * statistics (in any order), and turns them into depreciation records (contract 5.5):
 * per fuel (and over every fuel), the years with enough listings and the annual change.
 */
export class DepreciationCurves {
  private readonly targets = new Map<
    string,
    { target: Target; years: { year: number; medians: readonly YearMedian[] }[] }
  >()

  add(target: Target, year: number, medians: readonly YearMedian[]): void {
    const id = `${target.kind}\u0000${target.make}\u0000${target.name}`
    let entry = this.targets.get(id)
    if (entry === undefined) this.targets.set(id, (entry = { target, years: [] }))
    entry.years.push({ year, medians })
  }

  /** Every model and family added, with its record. */
  *records(): Generator<[Target, DepreciationRecord]> {
    for (const { target, years } of this.targets.values()) {
      years.sort((a, b) => a.year - b.year)
      const byFuel = new Map<number, { listings: number; points: CurvePoint[] }>()
      for (const { year, medians } of years) {
        for (const m of medians) {
          let curve = byFuel.get(m.fuel)
          if (curve === undefined) byFuel.set(m.fuel, (curve = { listings: 0, points: [] }))
          curve.listings += m.sample_size
          if (m.median !== null) curve.points.push({ year, median: m.median, sample_size: m.sample_size })
        }
      }
      const curves = [...byFuel].map(([fuel, { listings, points }]) => ({
        fuel,
        listings,
        points,
        annual_change_pct: annualChangePct(points),
      }))
      yield [target, { curves }]
    }
  }
}
