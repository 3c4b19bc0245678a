import { roundHalfAway } from './figures.js'
import { MIN_LISTINGS, type MileageFit } from './schema.js'

/**
 * What mileage does to a price (data contract 5.2 and 5.3): the least-squares slope b of
 * ln(price) on mileage_km over listings with a known mileage, and the listings' median
 * once each is moved to a target mileage m, p' = p exp(b (m - mileage)).
 *
 * p' = exp(b m) * p exp(-b mileage): the order of the moved prices is the same for every
 * m, so the build finds the one or two listings at the middle of that order once, and
 * the median at any m is computed from those two alone, by the contract's formula.
 */

/**
 * The fit over the listings from..to of `price` (with their natural logarithms in
 * `logPrice` and their mileages in `mileage`, -1 where unknown: those are left out), or
 * null with fewer than MIN_LISTINGS known or when every known mileage is the same.
 * `scratch` holds at least 2 (to - from) numbers.
 */
export function fitMileage(
  price: ArrayLike<number>,
  logPrice: ArrayLike<number>,
  mileage: ArrayLike<number>,
  from: number,
  to: number,
  scratch: Float64Array,
): MileageFit | null {
  let size = 0
  let sumX = 0
  let sumY = 0
  let first = -1
  let same = true
  for (let i = from; i < to; i++) {
    const m = mileage[i]!
    if (m < 0) continue
    if (first < 0) first = m
    else if (m !== first) same = false
    size++
    sumX += m
    sumY += logPrice[i]!
  }
  if (size < MIN_LISTINGS || same) return null
  // Centred sums (a second pass) keep the slope exact to the last digits the contract rounds to.
  const meanX = sumX / size
  const meanY = sumY / size
  let sxy = 0
  let sxx = 0
  for (let i = from; i < to; i++) {
    if (mileage[i]! < 0) continue
    const dx = mileage[i]! - meanX
    sxy += dx * (logPrice[i]! - meanY)
    sxx += dx * dx
  }
  const slope = sxy / sxx
  // ln p' - b m, by listing (NaN for an unknown mileage): the moved order as numbers; the
  // middle one or two are selected from a copy of the known ones, not sorted.
  const moved = scratch.subarray(0, to - from)
  const known = scratch.subarray(to - from, to - from + size)
  let k = 0
  for (let i = from; i < to; i++) {
    const m = mileage[i]!
    moved[i - from] = m < 0 ? Number.NaN : logPrice[i]! - slope * m
    if (m >= 0) known[k++] = moved[i - from]!
  }
  const lowRank = (size - 1) >> 1
  const lowValue = selectRank(known, lowRank)
  // Selection leaves every value past the lower middle at least as large: the next rank up is the least of them.
  let highValue = lowValue
  if (size % 2 === 0) {
    highValue = Infinity
    for (let i = lowRank + 1; i < size; i++) if (known[i]! < highValue) highValue = known[i]!
  }
  let low = -1
  let high = -1
  for (let i = 0; i < moved.length && (low < 0 || high < 0); i++) {
    if (low < 0 && moved[i] === lowValue) low = i
    else if (high < 0 && moved[i] === highValue) high = i
  }
  if (high < 0) high = low
  return {
    slope,
    size,
    lowPrice: price[from + low]!,
    lowMileage: mileage[from + low]!,
    highPrice: price[from + high]!,
    highMileage: mileage[from + high]!,
  }
}

/**
 * The value of rank k (0-based) of `values`, which it reorders so that none before k is larger and none after it
 * smaller: Hoare's selection, O(n) on average.
 */
function selectRank(values: Float64Array, k: number): number {
  let left = 0
  let right = values.length - 1
  while (left < right) {
    const pivot = values[(left + right) >>> 1]!
    let i = left
    let j = right
    while (i <= j) {
      while (values[i]! < pivot) i++
      while (values[j]! > pivot) j--
      if (i <= j) {
        const t = values[i]!
        values[i++] = values[j]!
        values[j--] = t
      }
    }
    if (k <= j) right = j
    else if (k >= i) left = i
    else return values[k]!
  }
  return values[k]!
}

/** 5.2's pct_per_10000_km: the price change per 10,000 km more, in per cent, one decimal. */
export function pctPer10000Km(fit: MileageFit): number {
  return roundHalfAway(100 * (Math.exp(10_000 * fit.slope) - 1), 1)
}

/** 5.3's adjusted median at mileage m, unrounded: the section 2 median of the moved prices. */
export function adjustedMedian(fit: MileageFit, m: number): number {
  const low = fit.lowPrice * Math.exp(fit.slope * (m - fit.lowMileage))
  if (fit.size % 2 === 1) return low
  // Interpolated as figures.ts's percentile interpolates, so equal inputs give equal medians.
  return low + 0.5 * (fit.highPrice * Math.exp(fit.slope * (m - fit.highMileage)) - low)
}

/** The `mileage_effect` member of a valuation. */
export function mileageEffectMember(fit: MileageFit | null): string {
  return fit === null
    ? '"mileage_effect":null'
    : `"mileage_effect":{"pct_per_10000_km":${pctPer10000Km(fit)},"sample_size":${fit.size}}`
}

/** The `adjusted` member of a valuation with a target mileage m (contract 5.3). */
export function adjustedMember(fit: MileageFit | null, m: number): string {
  return fit === null
    ? '"adjusted":null'
    : `"adjusted":{"mileage":${m},"median":${roundHalfAway(adjustedMedian(fit, m))},"sample_size":${fit.size}}`
}
