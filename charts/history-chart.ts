import { monthOfLabel } from '../format/calendar.js'
import type { PriceHistoryData } from '../query/answers.js'
import { lineChartSvg } from './line-chart.js'
import { count } from '../format/amounts.js'
import { pln, signedPct, vehicleName } from './svg.js'

/** The mean asking price of each month's new listings as a line, with the number of listings under it. */
export function historyChart(data: PriceHistoryData, width?: number): string {
  const first = data.trend.length === 0 ? 0 : monthOfLabel(data.trend[0]!.month)
  const points = data.trend.map((p) => ({
    slot: monthOfLabel(p.month) - first,
    label: p.month,
    price: p.avg_price,
    listings: p.sample_size,
  }))
  return lineChartSvg(
    'price-history',
    `${vehicleName(data)} ${data.year}: mean asking price by month (PLN)`,
    describe(data),
    points,
    undefined,
    width,
  )
}

/** The figures the chart draws, in words. */
export function describe(data: PriceHistoryData): string {
  const trend = data.trend
  const heading = `Mean asking price of the ${vehicleName(data)} from ${data.year} listed in each of the last ${data.months_requested} months`
  if (trend.length === 0) return `${heading}: no month has listings.`
  const first = trend[0]!
  const last = trend[trend.length - 1]!
  const lowest = trend.reduce((a, b) => (b.avg_price < a.avg_price ? b : a))
  const highest = trend.reduce((a, b) => (b.avg_price > a.avg_price ? b : a))
  const change = ((last.avg_price - first.avg_price) / first.avg_price) * 100
  const sentences = [
    `${heading}, ${trend.length} of them with listings.`,
    trend.length === 1
      ? `${first.month}: ${pln(first.avg_price)}.`
      : `From ${pln(first.avg_price)} in ${first.month} to ${pln(last.avg_price)} in ${last.month} (${signedPct(change)}); lowest ${pln(lowest.avg_price)} in ${lowest.month}, highest ${pln(highest.avg_price)} in ${highest.month}.`,
    `By month: ${trend.map((p) => `${p.month} ${pln(p.avg_price)} from ${count(p.sample_size)} listings`).join('; ')}.`,
  ]
  return sentences.join(' ')
}
