import { mean, quantileSorted } from 'simple-statistics'
import { medianInterval } from './median-interval.js'
import type { Confidence, PriceFigures } from './schema.js'

// simple-statistics types its inputs as number[]; it only reads `length` and indexes,
// so typed arrays (what the build and the mileage filter hold) are passed as they are.
type Numbers = ArrayLike<number>
const asArray = (values: Numbers) => values as unknown as number[]

/** Arithmetic mean, with simple-statistics' compensated summation. */
export function average(values: Numbers): number {
  return mean(asArray(values))
}

/**
 * Percentile of ascending values by linear interpolation between closest ranks
 * (h = (n-1)p; numpy's default, SQL quantile_cont, Excel PERCENTILE.INC), which is how
 * the data contract defines median, p25 and p75.
 */
export function percentile(sorted: Numbers, p: number): number {
  return quantileSorted(asArray(sorted), p)
}

/** Half away from zero at the given decimals, the contract's rounding for money and percentages. */
export function roundHalfAway(x: number, decimals = 0): number {
  const scale = 10 ** decimals
  const r = Math.round(Math.abs(x) * scale) / scale
  return x < 0 ? -r : r
}

/** Percentage difference of `value` against `base`, rounded to one decimal. */
export function percentDiff(value: number, base: number): number {
  return roundHalfAway(((value - base) / base) * 100, 1)
}

/** average, median, p25 and p75 (rounded to whole PLN) of ascending prices. */
export function priceFigures(sortedPrices: Numbers): PriceFigures {
  return {
    average: roundHalfAway(average(sortedPrices)),
    median: roundHalfAway(percentile(sortedPrices, 0.5)),
    p25: roundHalfAway(percentile(sortedPrices, 0.25)),
    p75: roundHalfAway(percentile(sortedPrices, 0.75)),
    sample_size: sortedPrices.length,
  }
}

/** The median's interval (contract 5.1) of ascending prices. */
export function confidenceOf(sortedPrices: Numbers): Confidence {
  const n = sortedPrices.length
  const { k, levelPct } = medianInterval(n)
  return {
    median_low: roundHalfAway(sortedPrices[k - 1]!),
    median_high: roundHalfAway(sortedPrices[n - k]!),
    level_pct: roundHalfAway(levelPct, 1),
  }
}
