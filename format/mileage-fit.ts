import { roundHalfAway } from './figures.js'
import { MAX_MILEAGE_EFFECT_PCT, MIN_LISTINGS, MIN_MILEAGE_IQR_KM, type MileageFit } from './schema.js'

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
 * null where contract 5.2 says: fewer than MIN_LISTINGS known, their mileages' interquartile
 * range under MIN_MILEAGE_IQR_KM, or an effect that is not finite or lies beyond
 * ±MAX_MILEAGE_EFFECT_PCT per 10,000 km. `scratch` holds at least 2 (to - from) numbers.
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
  const known = scratch.subarray(to - from, 2 * (to - from))
  for (let i = from; i < to; i++) {
    const m = mileage[i]!
    if (m < 0) continue
    known[size++] = m
    sumX += m
    sumY += logPrice[i]!
  }
  if (size < MIN_LISTINGS) return null
  const mileages = known.subarray(0, size)
  if (rankValue(mileages, 0.75) - rankValue(mileages, 0.25) < MIN_MILEAGE_IQR_KM) return null
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
  const effect = effectPct(slope)
  if (!(Math.abs(effect) <= MAX_MILEAGE_EFFECT_PCT)) return null
  // ln p' - b m, by listing (NaN for an unknown mileage): the moved order as numbers; the
  // middle one or two are selected from a copy of the known ones, not sorted.
  const moved = scratch.subarray(0, to - from)
  const movedKnown = known.subarray(0, size)
  let k = 0
  for (let i = from; i < to; i++) {
    const m = mileage[i]!
    moved[i - from] = m < 0 ? Number.NaN : logPrice[i]! - slope * m
    if (m >= 0) movedKnown[k++] = moved[i - from]!
  }
  const lowRank = (size - 1) >> 1
  const lowValue = selectRank(movedKnown, lowRank)
  const highValue = size % 2 === 0 ? nextRankValue(movedKnown, lowRank) : lowValue
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
 * The percentile p of `values` by the contract's rule (linear interpolation between
 * closest ranks, section 2), found by selection rather than a sort; reorders `values`.
 */
function rankValue(values: Float64Array, p: number): number {
  const h = (values.length - 1) * p
  const low = Math.floor(h)
  const value = selectRank(values, low)
  return h === low ? value : value + (h - low) * (nextRankValue(values, low) - value)
}

/** After selectRank(values, k), the value of rank k + 1: every value past k is at least as large, so the least of them. */
function nextRankValue(values: Float64Array, k: number): number {
  let next = Infinity
  for (let i = k + 1; i < values.length; i++) if (values[i]! < next) next = values[i]!
  return next
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

/** The price change per 10,000 km more of a slope, in per cent, unrounded. */
function effectPct(slope: number): number {
  return 100 * (Math.exp(10_000 * slope) - 1)
}

/** 5.2's pct_per_10000_km: the price change per 10,000 km more, in per cent, one decimal. */
export function pctPer10000Km(fit: MileageFit): number {
  return roundHalfAway(effectPct(fit.slope), 1)
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

/**
 * The `adjusted` member of a valuation with a target mileage m (contract 5.3): null
 * without a fit, and null where the moved median is not a finite number (contract 2: a
 * figure that cannot be computed is null where null is allowed, never `Infinity`).
 */
export function adjustedMember(fit: MileageFit | null, m: number): string {
  const median = fit === null ? NaN : roundHalfAway(adjustedMedian(fit, m))
  return Number.isFinite(median)
    ? `"adjusted":{"mileage":${m},"median":${median},"sample_size":${fit!.size}}`
    : '"adjusted":null'
}
