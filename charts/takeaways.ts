import { count } from '../format/amounts.js'
import { inEnglish } from '../format/vocabulary.js'
import type {
  DepreciationData,
  LiquidityData,
  PriceHistoryData,
  RegionalData,
  ValuationData,
  ValuationFactorsData,
} from '../query/answers.js'
import { pln, signedPct, vehicleName } from './svg.js'
import { VERDICTS } from './valuation-chart.js'

/**
 * What a reader takes from each chart of the explorer, in one line, and from the price
 * part as a whole, in the headline: the charts' figures in full stay in their own words
 * (each chart's describe).
 */

/** The car asked about, its market value, and how sure that value is: the explorer's headline. */
export interface Headline {
  readonly car: string
  readonly range: string
  readonly sentence: string
}

export function headline(data: ValuationData): Headline {
  const v = data.valuation
  const c = data.confidence
  const within = Math.round(((c.median_high - c.median_low) / 2 / v.median) * 100 * 10) / 10
  const ask = data.asking_price
  const sentences = [
    `Half of the ${count(data.sample_size)} listings ask between ${pln(v.p25)} and ${pln(v.p75)}; the median, ${pln(v.median)}, is known to within ±${within} % (${c.level_pct} % confidence).`,
  ]
  if (ask !== null)
    sentences.push(
      `An asking price of ${pln(ask.price)} is ${VERDICTS[ask.verdict].words}: ${ask.percentile} % of these listings ask less.`,
    )
  return {
    car: `${vehicleName(data)} ${data.year}`,
    range: `${count(v.p25)}–${count(v.p75)} PLN`,
    sentence: sentences.join(' '),
  }
}

export function valuationTakeaway(data: ValuationData): string {
  const v = data.valuation
  return `The middle half of the asking prices runs from ${pln(v.p25)} to ${pln(v.p75)}, around a median of ${pln(v.median)}.`
}

export function mileageTakeaway(data: ValuationData): string {
  const effect = data.mileage_effect
  if (effect === null) return 'Too few listings with a known mileage to tell what mileage does to the price.'
  const pct = effect.pct_per_10000_km
  const adjusted = data.adjusted
  const at = adjusted === null ? '' : `; at ${count(adjusted.mileage)} km the median would be ${pln(adjusted.median)}`
  return `Each 10,000 km more ${pct < 0 ? 'takes' : 'adds'} about ${Math.abs(pct)} % ${pct < 0 ? 'off' : 'to'} the price${at}.`
}

export function historyTakeaway(data: PriceHistoryData): string {
  const trend = data.trend
  if (trend.length === 0) return 'No month has enough listings to tell.'
  const first = trend[0]!
  const last = trend[trend.length - 1]!
  if (trend.length === 1) return `Only ${first.month} has enough listings: an average of ${pln(first.avg_price)}.`
  const pct = ((last.avg_price - first.avg_price) / first.avg_price) * 100
  return `The average asking price went from ${pln(first.avg_price)} in ${first.month} to ${pln(last.avg_price)} in ${last.month} (${signedPct(pct)}).`
}

export function depreciationTakeaway(data: DepreciationData, year: number | undefined): string {
  const pct = data.annual_change_pct
  const asked = data.curve.find((p) => p.year === year)
  const at = asked === undefined ? '' : `; one from ${asked.year} asks ${pln(asked.median)} (the median)`
  if (pct === null) return `Too few production years to tell a trend${at}.`
  return `Each newer production year asks about ${Math.abs(pct)} % ${pct >= 0 ? 'more' : 'less'} than the year before${at}.`
}

export function regionalTakeaway(data: RegionalData): string {
  const regions = [...data.regions].sort((a, b) => a.avg_price - b.avg_price)
  if (regions.length === 0) return 'No voivodeship has enough listings to compare.'
  const cheapest = regions[0]!
  const dearest = regions[regions.length - 1]!
  if (regions.length === 1) return `Listed in ${cheapest.region} only, at an average of ${pln(cheapest.avg_price)}.`
  return `Cheapest in ${cheapest.region} (${signedPct(cheapest.vs_national_pct)}), dearest in ${dearest.region} (${signedPct(dearest.vs_national_pct)}), against a national average of ${pln(data.national_average)}.`
}

export function liquidityTakeaway(data: LiquidityData): string {
  return `Such a car stays listed about ${count(data.estimated_days_on_market)} days before it sells.`
}

export function factorsTakeaway(data: ValuationFactorsData): string {
  if (data.factors.length === 0) return 'Too few listings of each kind to compare.'
  const largest = [...data.factors].sort((a, b) => Math.abs(b.price_diff_percent) - Math.abs(a.price_diff_percent))[0]!
  return `The largest difference: ${inEnglish(largest.comparison.label)} against ${inEnglish(largest.baseline.label)}, ${signedPct(largest.price_diff_percent)} on the mean asking price of ${vehicleName(data)}.`
}
