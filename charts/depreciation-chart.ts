import type { DepreciationData } from '../query/answers.js'
import { lineChartSvg } from './line-chart.js'
import { count } from '../format/amounts.js'
import { pln, signedPct, vehicleName } from './svg.js'

/**
 * The median asking price by production year as a line (oldest first), with each year's
 * listings under it; the year a reader asked about (the explorer's), marked.
 */
export function depreciationChart(data: DepreciationData, year?: number, width?: number): string {
  const first = data.curve.length === 0 ? 0 : data.curve[0]!.year
  const points = data.curve.map((p) => ({
    slot: p.year - first,
    label: String(p.year),
    price: p.median,
    listings: p.sample_size,
  }))
  return lineChartSvg(
    'depreciation',
    `${vehicleName(data)}: median asking price by production year (PLN)`,
    describe(data),
    points,
    year === undefined ? undefined : year - first,
    width,
  )
}

/** The figures the chart draws, in words. */
export function describe(data: DepreciationData): string {
  const curve = data.curve
  const heading = `Median asking price of the ${vehicleName(data)} by production year`
  if (curve.length === 0) return `${heading}: no year has enough listings.`
  const oldest = curve[0]!
  const newest = curve[curve.length - 1]!
  const pct = data.annual_change_pct
  const change =
    pct === null
      ? 'Too few years for an annual change.'
      : `On average each newer production year's median is ${Math.abs(pct)} % ${pct >= 0 ? 'above' : 'below'} the year before's (annual change ${signedPct(pct)})${pct > 0 ? ': roughly the share of its value a car loses per year of age' : ''}.`
  return [
    `${heading}, ${curve.length} years from ${oldest.year} to ${newest.year}: ${pln(newest.median)} for ${newest.year}, ${pln(oldest.median)} for ${oldest.year}.`,
    change,
    `By year: ${curve.map((p) => `${p.year} ${pln(p.median)} from ${count(p.sample_size)} listings`).join('; ')}.`,
  ].join(' ')
}
