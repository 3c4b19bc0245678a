import { count } from '../format/amounts.js'
import { inEnglish } from '../format/vocabulary.js'
import type { ValuationFactorsData } from '../query/answers.js'
import { barChartSvg } from './bar-chart.js'
import { COLOURS, pln, signedPct, vehicleName } from './svg.js'

/** Each factor's price difference against its baseline, as bars either side of zero (dearer orange, cheaper blue). */
export function factorsChart(data: ValuationFactorsData, width?: number): string {
  return barChartSvg(
    'valuation-factors',
    `${vehicleName(data)} ${data.year}: what attributes do to the price`,
    describe(data),
    data.factors.map((f) => ({
      label: `${inEnglish(f.comparison.label)} against ${inEnglish(f.baseline.label)}`,
      value: f.price_diff_percent,
      text: signedPct(f.price_diff_percent),
      colour: f.price_diff_percent < 0 ? COLOURS.blue : COLOURS.orange,
    })),
    width,
  )
}

/** The figures the chart draws, in words. */
export function describe(data: ValuationFactorsData): string {
  return [
    `Mean asking prices of the ${vehicleName(data)} from ${data.year} compared by attribute, from ${count(data.total_sample_size)} listings:`,
    data.factors
      .map(
        (f) =>
          `${inEnglish(f.comparison.label)} ${pln(f.comparison.avg_price)} (${count(f.comparison.sample_size)} listings) against ${inEnglish(f.baseline.label)} ${pln(f.baseline.avg_price)} (${count(f.baseline.sample_size)} listings), ${signedPct(f.price_diff_percent)}`,
      )
      .join('; ') + '.',
  ].join(' ')
}
