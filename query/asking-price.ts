import { percentile, roundHalfAway } from '../format/figures.js'

/**
 * Where an asking price a sits among a valuation's prices (data contract 5.4): its
 * percentile, 100 (count(p < a) + 0.5 count(p = a)) / n, and a verdict against the
 * unrounded quartiles. The prices are ascending, so both counts are binary searches.
 */
export function askingPriceMember(sortedPrices: ArrayLike<number>, a: number | null): string {
  if (a === null) return '"asking_price":null'
  const n = sortedPrices.length
  const below = firstAtLeast(sortedPrices, a, false)
  const equal = firstAtLeast(sortedPrices, a, true) - below
  const position = roundHalfAway((100 * (below + 0.5 * equal)) / n, 1)
  const verdict =
    a < percentile(sortedPrices, 0.25) ? 'below_market' : a > percentile(sortedPrices, 0.75) ? 'above_market' : 'fair'
  return `"asking_price":{"price":${a},"percentile":${position},"verdict":"${verdict}"}`
}

/** The index of the first price >= a (or > a when `past`), n when none is. */
function firstAtLeast(sorted: ArrayLike<number>, a: number, past: boolean): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (sorted[mid]! < a || (past && sorted[mid] === a)) low = mid + 1
    else high = mid
  }
  return low
}
