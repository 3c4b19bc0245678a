import { count, counted } from '../format/amounts.js'
import type { LiquidityData } from '../query/answers.js'
import { barChartSvg } from './bar-chart.js'
import { COLOURS, vehicleName } from './svg.js'

const days = (n: number) => counted(n, 'day')

/** How long cars stay listed: the median span seen, and the estimate with the days before a listing is first seen. */
export function liquidityChart(data: LiquidityData, width?: number): string {
  const bars = [
    {
      label: 'Seen listed (median of closed listings)',
      value: data.observed_listing_span,
      text: days(data.observed_listing_span),
      colour: COLOURS.lightBlue,
    },
    {
      label: 'Estimated days on market',
      value: data.estimated_days_on_market,
      text: days(data.estimated_days_on_market),
      colour: COLOURS.blue,
    },
  ]
  return barChartSvg('liquidity', `${vehicleName(data)} ${data.year}: days on market`, describe(data), bars, width)
}

/** The figures the chart draws, in words. */
export function describe(data: LiquidityData): string {
  return [
    `A ${vehicleName(data)} from ${data.year} stays on the market for an estimated ${days(data.estimated_days_on_market)}:`,
    `its closed listings were seen listed for a median of ${days(data.observed_listing_span)}, to which the estimate adds the ${days(data.estimated_days_on_market - data.observed_listing_span)} before a listing is first seen.`,
    `From ${count(data.sample_size)} closed listings; ${count(data.active_listings)} are listed now.`,
  ].join(' ')
}
