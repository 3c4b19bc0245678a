import { isCount, isObject } from '../format/json-shape.js'
import { filterSelector, type StoredAnswer, type Variant } from '../format/rendered.js'
import {
  DETECTION_DELAY_DAYS,
  HISTORY_MONTHS,
  MAX_MILEAGE_EFFECT_PCT,
  MIN_LISTINGS,
  type Operation,
  type Quartiles,
} from '../format/schema.js'
import { UNKNOWN } from '../format/vocabulary.js'

/**
 * What every answer a correct build stores satisfies, variant by variant (see
 * build/statistics.ts and format/rendered.ts): figures that agree with each other and
 * with the table of sample sizes the reader chooses by. Reading as JSON is not enough:
 * an answer changed after its build (a median above its p75) still does.
 */

type Row = Pick<Variant, 'selector' | 'sample_size' | 'items'>
type Check = (members: unknown, variant: Row) => string | undefined

/**
 * What is wrong with a stored answer (bytes of `operation`), or undefined when each of its variants is as a build
 * writes it.
 */
export function answerProblem(stored: StoredAnswer, bytes: Buffer, operation: Operation): string | undefined {
  if (!stored.reset(bytes)) return 'its table of variants is cut short'
  if (stored.count === 0) return 'it has no variants'
  const history = operation === 'price-history' ? historyPoints(stored) : undefined
  if (typeof history === 'string') return history
  for (let i = 0; i < stored.count; i++) {
    const variant = { selector: stored.selector(i), sample_size: stored.sampleSize(i), items: stored.items(i) }
    let members: unknown
    if (history !== undefined) {
      members = history.from(stored.textStart(i), stored.textEnd(i))
      if (members === undefined) return `variant ${variant.selector} is not a tail of the points`
    } else {
      try {
        members = JSON.parse(`{${stored.text(i)}}`)
      } catch {
        return `variant ${variant.selector} is not JSON`
      }
    }
    const problem = CHECKS[operation](members, variant)
    if (problem !== undefined) return `variant ${variant.selector}: ${problem}`
  }
  return undefined
}

/**
 * A price history's points, parsed once: its variants are tails of one list of points
 * (rendered.ts), each starting at a point and ending where the list ends, so each is read
 * as the points from its first byte on rather than parsed again (24 parses of up to 24
 * points each would be most of a build's checking). A point is a flat object, so each
 * `{` of the text starts one.
 */
function historyPoints(stored: StoredAnswer) {
  let start = Infinity
  let end = -1
  for (let i = 0; i < stored.count; i++) {
    start = Math.min(start, stored.textStart(i))
    end = Math.max(end, stored.textEnd(i))
  }
  let points: unknown
  try {
    points = JSON.parse(`[${stored.text(longest(stored, start))}]`)
  } catch {
    return 'its points are not JSON'
  }
  const offsets: number[] = []
  for (let at = start; at < end; at++) if (stored.textByte(at) === 0x7b) offsets.push(at)
  if (!Array.isArray(points) || points.length !== offsets.length) return 'its points are not flat objects'
  const list = points as unknown[]
  return {
    /** The points of the variant whose text is [from, to), or undefined when that is no tail of them. */
    from(from: number, to: number): unknown[] | undefined {
      if (to !== end) return undefined
      if (from === end) return []
      const first = offsets.indexOf(from)
      return first < 0 ? undefined : list.slice(first)
    },
  }
}

/** The variant whose text starts at `start`. */
function longest(stored: StoredAnswer, start: number): number {
  for (let i = 0; i < stored.count; i++) if (stored.textStart(i) === start) return i
  return 0
}

const ALL = filterSelector(UNKNOWN, UNKNOWN)

/**
 * A valuation's unfiltered variant always holds figures (the reader refuses them below
 * MIN_LISTINGS); a filtered one holds figures exactly when it has MIN_LISTINGS listings.
 */
function valuation(members: unknown, variant: Row): string | undefined {
  if (!isObject(members)) return 'not an object'
  if (variant.items === 0) {
    if (Object.keys(members).length > 0) return 'figures where its table says none'
    if (variant.selector === ALL) return 'no unfiltered figures'
    return variant.sample_size >= MIN_LISTINGS ? `no figures for ${variant.sample_size} listings` : undefined
  }
  if (variant.items !== 1) return `${variant.items} items`
  const figures = members.valuation
  if (!isQuartiles(figures)) return 'its average, median, p25 and p75 are not all positive prices'
  if (!(figures.p25 <= figures.median && figures.median <= figures.p75)) {
    return `p25 ${figures.p25}, median ${figures.median}, p75 ${figures.p75} are out of order`
  }
  if (members.sample_size !== variant.sample_size)
    return `sample_size ${String(members.sample_size)}, its table ${variant.sample_size}`
  if (variant.selector !== ALL && variant.sample_size < MIN_LISTINGS)
    return `figures from ${variant.sample_size} listings, fewer than ${MIN_LISTINGS}`
  const interval = members.confidence
  if (!isObject(interval) || !isPrice(interval.median_low) || !isPrice(interval.median_high))
    return 'no interval of the median'
  if (!(interval.median_low <= figures.median && figures.median <= interval.median_high))
    return `median ${figures.median} outside its interval [${interval.median_low}, ${interval.median_high}]`
  if (!isPercent(interval.level_pct) || interval.level_pct < 95 || interval.level_pct > 100)
    return `a coverage of ${String(interval.level_pct)} %`
  const effect = members.mileage_effect
  if (effect === null) return undefined
  if (!isObject(effect) || !isPercent(effect.pct_per_10000_km) || !isCount(effect.sample_size))
    return 'a mileage effect without its figures'
  if (effect.sample_size < MIN_LISTINGS || effect.sample_size > variant.sample_size)
    return `a mileage effect of ${effect.sample_size} listings`
  if (Math.abs(effect.pct_per_10000_km) > MAX_MILEAGE_EFFECT_PCT)
    return `a mileage effect of ${effect.pct_per_10000_km} % per 10,000 km`
  return undefined
}

/** A price history's variant for `selector` months: the points of the months with listings among them, oldest first. */
function priceHistory(members: unknown, variant: Row): string | undefined {
  if (!Array.isArray(members)) return 'not a list of points'
  if (variant.selector < 1 || variant.selector > HISTORY_MONTHS) return `a history of ${variant.selector} months`
  if (members.length !== variant.items || members.length > variant.selector)
    return `${members.length} points, its table ${variant.items}`
  let listings = 0
  let previous = ''
  for (const point of members) {
    if (!isObject(point) || typeof point.month !== 'string' || !/^\d{4}-\d{2}$/.test(point.month))
      return 'a point without a month'
    if (point.month <= previous) return `month ${point.month} after ${previous}`
    if (!isPrice(point.avg_price)) return `${point.month}: avg_price is not a positive price`
    if (!isCount(point.sample_size) || point.sample_size === 0)
      return `${point.month}: sample_size is not a positive count`
    listings += point.sample_size
    previous = point.month
  }
  return listings === variant.sample_size
    ? undefined
    : `${listings} listings in its points, its table ${variant.sample_size}`
}

function liquidity(members: unknown, variant: Row): string | undefined {
  if (!isObject(members)) return 'not an object'
  const {
    estimated_days_on_market: estimate,
    observed_listing_span: span,
    active_listings: active,
    sample_size: closed,
  } = members
  if (!isCount(estimate) || !isCount(span) || !isCount(active) || !isCount(closed))
    return 'a figure that is not a count'
  if (estimate !== span + DETECTION_DELAY_DAYS)
    return `estimated_days_on_market ${estimate} is not observed_listing_span ${span} + ${DETECTION_DELAY_DAYS}`
  return closed === variant.sample_size ? undefined : `sample_size ${closed}, its table ${variant.sample_size}`
}

/** Each factor compares two disjoint groups of the key's listings, each of MIN_LISTINGS or more. */
function valuationFactors(members: unknown, variant: Row): string | undefined {
  if (!isObject(members) || !Array.isArray(members.factors)) return 'no factors'
  const total = members.total_sample_size
  if (total !== variant.sample_size) return `total_sample_size ${String(total)}, its table ${variant.sample_size}`
  if (members.factors.length !== variant.items) return `${members.factors.length} factors, its table ${variant.items}`
  for (const factor of members.factors) {
    if (!isObject(factor) || typeof factor.dimension !== 'string') return 'a factor without a dimension'
    const { baseline, comparison, price_diff_percent: diff } = factor
    if (!isSide(baseline) || !isSide(comparison))
      return `${factor.dimension}: a side without a positive avg_price or with fewer than ${MIN_LISTINGS} listings`
    if (baseline.sample_size + comparison.sample_size > variant.sample_size)
      return `${factor.dimension}: its sides hold more listings than the key`
    if (!isPercent(diff) || !signAgrees(diff, comparison.avg_price, baseline.avg_price))
      return `${factor.dimension}: price_diff_percent ${String(diff)} disagrees with its averages`
  }
  return undefined
}

/** The regions share the key's listings that name one; the national average is their mean. */
function regional(members: unknown, variant: Row): string | undefined {
  if (!isObject(members) || !Array.isArray(members.regions)) return 'no regions'
  const { national_average: national, total_sample_size: total, regions } = members
  if (total !== variant.sample_size) return `total_sample_size ${String(total)}, its table ${variant.sample_size}`
  if (regions.length !== variant.items) return `${regions.length} regions, its table ${variant.items}`
  if (regions.length === 0)
    return national === 0 && total === 0
      ? undefined
      : `national_average ${String(national)} and total_sample_size ${String(total)} without regions`
  if (!isPrice(national)) return 'national_average is not a positive price'
  let listings = 0
  let lowest = Infinity
  let highest = -Infinity
  for (const region of regions) {
    if (!isObject(region) || typeof region.region !== 'string') return 'a region without a name'
    const { avg_price: average, sample_size: size, vs_national_pct: pct } = region
    if (!isPrice(average) || !isCount(size) || size === 0)
      return `${region.region}: no positive avg_price and sample_size`
    if (!isPercent(pct) || !signAgrees(pct, average, national))
      return `${region.region}: vs_national_pct ${String(pct)} disagrees with its average`
    listings += size
    lowest = Math.min(lowest, average)
    highest = Math.max(highest, average)
  }
  if (listings !== total) return `${listings} listings in its regions, total_sample_size ${total}`
  return national >= lowest && national <= highest
    ? undefined
    : `national_average ${national} outside its regions' averages`
}

/** A fuel's curve: its years ascending, each of MIN_LISTINGS listings or more, within the fuel's listings. */
function depreciation(members: unknown, variant: Row): string | undefined {
  if (!isObject(members) || !Array.isArray(members.curve)) return 'no curve'
  if (members.curve.length !== variant.items) return `${members.curve.length} points, its table ${variant.items}`
  let listings = 0
  let previous = -Infinity
  for (const point of members.curve) {
    if (!isObject(point) || !isCount(point.year) || point.year <= previous) return 'its years are not ascending'
    if (!isPrice(point.median)) return `${point.year}: median is not a positive price`
    if (!isCount(point.sample_size) || point.sample_size < MIN_LISTINGS)
      return `${point.year}: fewer than ${MIN_LISTINGS} listings`
    listings += point.sample_size
    previous = point.year
  }
  if (listings > variant.sample_size) return `${listings} listings in its points, ${variant.sample_size} in all`
  const change = members.annual_change_pct
  if (members.curve.length < 3) return change === null ? undefined : 'an annual change from fewer than 3 points'
  return isPercent(change) && change > -100 ? undefined : `an annual change of ${String(change)} %`
}

const CHECKS: Readonly<Record<Operation, Check>> = {
  valuation,
  'price-history': priceHistory,
  liquidity,
  'valuation-factors': valuationFactors,
  regional,
  depreciation,
}

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
}

function isPercent(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

function isQuartiles(value: unknown): value is Quartiles {
  return isObject(value) && isPrice(value.average) && isPrice(value.median) && isPrice(value.p25) && isPrice(value.p75)
}

function isSide(value: unknown): value is { avg_price: number; sample_size: number } {
  return isObject(value) && isPrice(value.avg_price) && isCount(value.sample_size) && value.sample_size >= MIN_LISTINGS
}

/**
 * Whether a percentage difference has the sign of the difference of the figures it
 * compares: both were rounded from the same unrounded means, and rounding never
 * reverses an order (equal rounded figures allow either sign).
 */
function signAgrees(pct: number, value: number, base: number): boolean {
  return value > base ? pct >= 0 : value < base ? pct <= 0 : true
}
