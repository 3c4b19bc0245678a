import { count } from '../format/amounts.js'
import type { ValuationData } from '../query/answers.js'
import {
  COLOURS,
  anchorFor,
  at,
  chartSvg,
  chartWidth,
  label,
  linear,
  pln,
  signedPct,
  tickLabel,
  ticks,
  vehicleName,
} from './svg.js'

const HEIGHT = 260
const LEFT = 64
/** The room a mileage's label takes on the axis: no more labels than fit. */
const LABEL_ROOM = 110
const PLOT = { top: 56, bottom: 200 }
/** How far either side of the mileage asked about the line runs, and the step of its points. */
const SPAN_KM = 100_000
const STEP_KM = 10_000

/** The change in per cent over `km` more kilometres, compounded from the change per 10,000 km. */
function changeOver(km: number, pctPer10000: number): number {
  return ((1 + pctPer10000 / 100) ** (km / STEP_KM) - 1) * 100
}

/**
 * What mileage does to the price, as the fit of the answer draws it (contract 5.2): with
 * a mileage asked about, the median moved to each mileage up to 100,000 km either side of
 * it, in PLN, through the adjusted median; without one, the change in per cent over up to
 * 200,000 km more. Undefined when the answer has no mileage effect.
 */
export function mileageChart(data: ValuationData, width?: number): string | undefined {
  const effect = data.mileage_effect
  if (effect === null) return undefined
  const WIDTH = chartWidth(width)
  const RIGHT = WIDTH - 24
  const pct = effect.pct_per_10000_km
  const adjusted = data.adjusted
  const from = adjusted === null ? 0 : Math.max(0, adjusted.mileage - SPAN_KM)
  const to = adjusted === null ? 2 * SPAN_KM : adjusted.mileage + SPAN_KM
  const value =
    adjusted === null
      ? (km: number) => changeOver(km, pct)
      : (km: number) => adjusted.median * (1 + changeOver(km - adjusted.mileage, pct) / 100)
  const points: [number, number][] = []
  for (let km = from; km < to; km += STEP_KM) points.push([km, value(km)])
  // The last point at the axis's end, whatever step the start left.
  points.push([to, value(to)])
  const values = points.map(([, v]) => v)
  const low = Math.min(...values)
  const high = Math.max(...values)
  const pad = Math.max((high - low) * 0.1, adjusted === null ? 0.5 : high * 0.01)
  const axis = ticks(adjusted === null ? low - pad : Math.max(low - pad, 0), high + pad, 5)
  const y = linear(axis[0]!, axis[axis.length - 1]!, PLOT.bottom, PLOT.top)
  const x = linear(from, to, LEFT, RIGHT)
  const yText = (v: number) => (adjusted === null ? signedPct(v) : tickLabel(v))

  const parts: string[] = []
  for (const tick of axis) {
    parts.push(`<line x1="${LEFT}" x2="${RIGHT}" y1="${at(y(tick))}" y2="${at(y(tick))}" stroke="${COLOURS.grid}"/>`)
    parts.push(label(LEFT - 6, y(tick) + 4, yText(tick), { anchor: 'end', size: 11, fill: COLOURS.muted }))
  }
  const kmTicks = Math.max(2, Math.min(5, Math.floor((RIGHT - LEFT) / LABEL_ROOM)))
  for (const km of ticks(from, to, kmTicks).filter((km) => km >= from && km <= to))
    parts.push(
      label(x(km), PLOT.bottom + 18, `${adjusted === null ? '+' : ''}${tickLabel(km)} km`, {
        anchor: anchorFor(x(km), LEFT, RIGHT),
        size: 11,
        fill: COLOURS.muted,
      }),
    )
  parts.push(
    label(LEFT, HEIGHT - 16, adjusted === null ? 'kilometres more' : 'mileage', { size: 11, fill: COLOURS.muted }),
  )
  parts.push(
    `<path d="${points.map(([km, v], i) => `${i === 0 ? 'M' : 'L'}${at(x(km))} ${at(y(v))}`).join('')}" fill="none" stroke="${COLOURS.vermillion}" stroke-width="2.5"/>`,
  )
  if (adjusted !== null) {
    const mx = x(adjusted.mileage)
    const my = y(adjusted.median)
    parts.push(
      `<line x1="${at(mx)}" x2="${at(mx)}" y1="${PLOT.top}" y2="${PLOT.bottom}" stroke="${COLOURS.muted}" stroke-dasharray="4 3"/>`,
      `<circle cx="${at(mx)}" cy="${at(my)}" r="5" fill="#ffffff" stroke="${COLOURS.vermillion}" stroke-width="2"/>`,
      label(mx, PLOT.top - 8, `${count(adjusted.mileage)} km: ${pln(adjusted.median)}`, {
        anchor: anchorFor(mx, LEFT, RIGHT),
        size: 12,
        weight: 'bold',
      }),
    )
  }
  return chartSvg({
    id: 'mileage',
    width: WIDTH,
    height: HEIGHT,
    title: `${vehicleName(data)} ${data.year}: ${signedPct(pct)} per 10,000 km`,
    description: describe(data),
    body: parts.join(''),
  })
}

/** The figures the chart draws, in words. */
export function describe(data: ValuationData): string {
  const effect = data.mileage_effect
  if (effect === null)
    return `Too few listings of the ${vehicleName(data)} from ${data.year} with a known mileage to tell what mileage does to the price.`
  const pct = effect.pct_per_10000_km
  const sentences = [
    `Each 10,000 km more changes the price of the ${vehicleName(data)} from ${data.year} by ${signedPct(pct)}, ${signedPct(changeOver(SPAN_KM, pct))} over 100,000 km (fitted on ${count(effect.sample_size)} listings with a known mileage).`,
  ]
  const adjusted = data.adjusted
  sentences.push(
    adjusted === null
      ? `Give a mileage to see the value at it.`
      : `Moved to ${count(adjusted.mileage)} km, the median of all ${count(adjusted.sample_size)} listings is ${pln(adjusted.median)}, against ${pln(data.valuation.median)} for the ${count(data.sample_size)} listings within ±30 % of that mileage.`,
  )
  return sentences.join(' ')
}
