import type { ValuationData } from '../query/answers.js'
import { count } from '../format/amounts.js'
import { mileageWindow } from '../format/mileage-window.js'
import { BODY_IN_ENGLISH, FUEL_IN_ENGLISH, GEARBOX_IN_ENGLISH } from '../format/vocabulary.js'
import { powerWindow } from '../format/power-window.js'
import {
  COLOURS,
  anchorFor,
  at,
  chartSvg,
  chartWidth,
  label,
  linear,
  pln,
  textWidth,
  tickLabel,
  ticks,
  vehicleName,
} from './svg.js'

const LEFT = 24
const AXIS_Y = 186
/** The legend's first line, and the height of each. */
const LEGEND = { top: 234, line: 18 }
/** The room an axis label takes: no more ticks than fit. */
const TICK_ROOM = 90
/** The box of the middle half of the prices. */
const BOX = { top: 114, bottom: 154 }
/** The asking price's label, and its marker's top and tip. */
const ASK = { label: 62, top: 66, tip: 78 }

export const VERDICTS = {
  below_market: { words: 'below the market', colour: COLOURS.green },
  fair: { words: 'a fair price', colour: COLOURS.blue },
  above_market: { words: 'above the market', colour: COLOURS.vermillion },
} as const

/**
 * Where prices sit, on one axis: the middle half of the asking prices (p25 to p75), the
 * median with its confidence interval and the average; with the answer's extras, the
 * asking price with its verdict and the median adjusted to a mileage.
 */
export function valuationChart(data: ValuationData, width?: number): string {
  const WIDTH = chartWidth(width)
  const RIGHT = WIDTH - LEFT
  const v = data.valuation
  const ask = data.asking_price
  const adjusted = data.adjusted
  const marks = [v.p25, v.p75, v.average, data.confidence.median_low, data.confidence.median_high]
  if (ask !== null) marks.push(ask.price)
  if (adjusted !== null) marks.push(adjusted.median)
  const low = Math.min(...marks)
  const high = Math.max(...marks)
  const pad = Math.max((high - low) * 0.12, v.median * 0.02)
  // Prices are never below nothing: the axis starts at 0 at the lowest.
  const axis = ticks(
    Math.max(low - pad, 0),
    high + pad,
    Math.max(3, Math.min(6, Math.floor((RIGHT - LEFT) / TICK_ROOM))),
  )
  const x = linear(axis[0]!, axis[axis.length - 1]!, LEFT + 8, RIGHT - 8)
  const mid = (BOX.top + BOX.bottom) / 2

  const parts: string[] = []
  for (const tick of axis) {
    parts.push(
      `<line x1="${at(x(tick))}" x2="${at(x(tick))}" y1="${BOX.top - 26}" y2="${AXIS_Y}" stroke="${COLOURS.grid}"/>`,
    )
    parts.push(label(x(tick), AXIS_Y + 16, tickLabel(tick), { anchor: 'middle', size: 11, fill: COLOURS.muted }))
  }
  parts.push(`<line x1="${LEFT}" x2="${RIGHT}" y1="${AXIS_Y}" y2="${AXIS_Y}" stroke="${COLOURS.muted}"/>`)
  parts.push(
    `<rect x="${at(x(v.p25))}" y="${BOX.top}" width="${at(Math.max(x(v.p75) - x(v.p25), 1))}" height="${BOX.bottom - BOX.top}" fill="${COLOURS.lightBlue}" stroke="${COLOURS.blue}"/>`,
  )
  const lo = x(data.confidence.median_low)
  parts.push(
    `<rect x="${at(lo)}" y="${BOX.top - 4}" width="${at(Math.max(x(data.confidence.median_high) - lo, 2))}" height="${BOX.bottom - BOX.top + 8}" fill="${COLOURS.blue}" fill-opacity="0.3"/>`,
  )
  parts.push(
    `<line x1="${at(x(v.median))}" x2="${at(x(v.median))}" y1="${BOX.top - 6}" y2="${BOX.bottom + 6}" stroke="${COLOURS.blue}" stroke-width="3"/>`,
  )
  parts.push(diamond(x(v.average), mid, COLOURS.ink))
  // The quartiles' labels outside the box, each on its own side, unless that side has no room: then turned inwards,
  // one after the other.
  const p25 = `p25 ${count(v.p25)}`
  const p75 = `p75 ${count(v.p75)}`
  const room = (text: string) => textWidth(text, 11)
  const y = BOX.bottom + 20
  if (x(v.p25) - room(p25) < 0) {
    parts.push(label(x(v.p25), y, p25, { anchor: 'start', size: 11 }))
    parts.push(label(Math.max(x(v.p75), x(v.p25) + room(p25) + 8), y, p75, { anchor: 'start', size: 11 }))
  } else if (x(v.p75) + room(p75) > WIDTH) {
    parts.push(label(x(v.p75), y, p75, { anchor: 'end', size: 11 }))
    parts.push(label(Math.min(x(v.p25), x(v.p75) - room(p75) - 8), y, p25, { anchor: 'end', size: 11 }))
  } else {
    parts.push(
      label(x(v.p25) - 3, y, p25, { anchor: 'end', size: 11 }),
      label(x(v.p75) + 3, y, p75, { anchor: 'start', size: 11 }),
    )
  }
  parts.push(
    label(x(v.median), BOX.top - 12, `median ${count(v.median)}`, {
      anchor: anchorFor(x(v.median), LEFT, RIGHT),
      size: 12,
      weight: 'bold',
    }),
  )
  if (ask !== null) {
    const verdict = VERDICTS[ask.verdict]
    const ax = x(ask.price)
    parts.push(
      `<path d="M${at(ax - 7)} ${ASK.top} L${at(ax + 7)} ${ASK.top} L${at(ax)} ${ASK.tip} Z" fill="${verdict.colour}"/>`,
      `<line x1="${at(ax)}" x2="${at(ax)}" y1="${ASK.tip}" y2="${AXIS_Y}" stroke="${verdict.colour}" stroke-dasharray="4 3"/>`,
      label(ax, ASK.label, `asking ${count(ask.price)}: ${verdict.words}`, {
        anchor: anchorFor(ax, LEFT, RIGHT),
        size: 12,
        weight: 'bold',
        fill: verdict.colour,
      }),
    )
  }
  if (adjusted !== null) {
    const mx = x(adjusted.median)
    parts.push(
      `<circle cx="${at(mx)}" cy="${mid}" r="5" fill="#ffffff" stroke="${COLOURS.vermillion}" stroke-width="2"/>`,
    )
  }
  // What the figures are of, under the heading: a filtered chart shared on its own still says so.
  parts.push(label(16, 44, subtitle(data), { size: 12, fill: COLOURS.muted, room: WIDTH - 32 }))
  const key = legend(adjusted, ask !== null, RIGHT)
  parts.push(key.svg)

  return chartSvg({
    id: 'valuation',
    width: WIDTH,
    height: LEGEND.top + (key.lines - 1) * LEGEND.line + 14,
    title: `${vehicleName(data)} ${data.year}: asking prices (PLN)`,
    description: describe(data),
    body: parts.join(''),
  })
}

function diamond(cx: number, cy: number, fill: string): string {
  return `<path d="M${at(cx)} ${at(cy - 6)} L${at(cx + 6)} ${at(cy)} L${at(cx)} ${at(cy + 6)} L${at(cx - 6)} ${at(cy)} Z" fill="${fill}"/>`
}

/**
 * The listings the figures come from, and the filters that chose them: "20 listings · version GTI · diesel · manual
 * gearbox · estate · 135–165 KM · 70,000–130,000 km".
 */
function subtitle(data: ValuationData): string {
  const { fuel_type, gearbox, body_type, power_hp, mileage } = data.filters
  const window = mileage === null ? null : mileageWindow(mileage)
  const power = power_hp === null ? null : powerWindow(power_hp)
  const words = data.matched.version_words
  return [
    `${count(data.sample_size)} listings`,
    words.length === 0 ? null : `version ${words.join(' ')}`,
    fuel_type === null ? null : FUEL_IN_ENGLISH[fuel_type],
    gearbox === null ? null : `${GEARBOX_IN_ENGLISH[gearbox]} gearbox`,
    body_type === null ? null : BODY_IN_ENGLISH[body_type],
    power === null ? null : `${power.from}–${power.to} KM`,
    window === null ? null : `${count(window.from)}–${count(window.to)} km`,
  ]
    .filter((part) => part !== null)
    .join(' · ')
}

/** What each mark means, under the axis: its items in a row, on as many lines as the width needs. */
function legend(
  adjusted: ValuationData['adjusted'],
  asked: boolean,
  right: number,
): { readonly svg: string; readonly lines: number } {
  // Each item: its mark drawn at (x, y), the mark's width, and its words.
  const items: [mark: (x: number, y: number) => string, width: number, words: string][] = [
    [
      (x, y) =>
        `<rect x="${at(x)}" y="${y - 9}" width="14" height="10" fill="${COLOURS.lightBlue}" stroke="${COLOURS.blue}"/>`,
      14,
      'middle half',
    ],
    [
      (x, y) =>
        `<rect x="${at(x)}" y="${y - 10}" width="10" height="12" fill="${COLOURS.blue}" fill-opacity="0.3"/>` +
        `<line x1="${at(x + 5)}" x2="${at(x + 5)}" y1="${y - 10}" y2="${y + 2}" stroke="${COLOURS.blue}" stroke-width="3"/>`,
      10,
      'median and its interval',
    ],
    [(x, y) => diamond(x + 6, y - 4, COLOURS.ink), 12, 'average'],
  ]
  if (adjusted !== null)
    items.push([
      (x, y) =>
        `<circle cx="${at(x + 5)}" cy="${y - 4}" r="5" fill="#ffffff" stroke="${COLOURS.vermillion}" stroke-width="2"/>`,
      10,
      `median at ${count(adjusted.mileage)} km`,
    ])
  if (asked) items.push([() => '', 0, '▼ asking price'])
  const parts: string[] = []
  let x = LEFT
  let line = 0
  for (const [mark, width, words] of items) {
    const room = width + (width === 0 ? 0 : 4) + textWidth(words, 11)
    if (x > LEFT && x + room > right) {
      x = LEFT
      line++
    }
    const y = LEGEND.top + line * LEGEND.line
    parts.push(mark(x, y), label(x + width + (width === 0 ? 0 : 4), y, words, { size: 11 }))
    x += room + 18
  }
  return { svg: parts.join(''), lines: line + 1 }
}

/** The figures the chart draws, in words. */
export function describe(data: ValuationData): string {
  const v = data.valuation
  const c = data.confidence
  const sentences = [
    `${count(data.sample_size)} listings of the ${vehicleName(data)} from ${data.year}${filters(data)}.`,
    `Half of them ask between ${pln(v.p25)} (p25) and ${pln(v.p75)} (p75).`,
    `The median is ${pln(v.median)}, within ${pln(c.median_low)} to ${pln(c.median_high)} at ${c.level_pct} % confidence; the average is ${pln(v.average)}.`,
  ]
  if (data.mileage_effect !== null)
    sentences.push(
      `Each 10,000 km more changes the price by ${data.mileage_effect.pct_per_10000_km} % (from ${count(data.mileage_effect.sample_size)} listings with a mileage).`,
    )
  if (data.adjusted !== null)
    sentences.push(`At ${count(data.adjusted.mileage)} km the median would be ${pln(data.adjusted.median)}.`)
  if (data.asking_price !== null) {
    const a = data.asking_price
    sentences.push(
      `An asking price of ${pln(a.price)} is at percentile ${a.percentile} of these listings: ${VERDICTS[a.verdict].words}.`,
    )
  }
  return sentences.join(' ')
}

function filters(data: ValuationData): string {
  const { fuel_type, gearbox, body_type, power_hp, mileage } = data.filters
  const words = data.matched.version_words
  const parts = [
    words.length === 0 ? '' : `a version or generation with the words ${words.join(' ')}`,
    fuel_type === null ? '' : `${FUEL_IN_ENGLISH[fuel_type]} (${fuel_type})`,
    gearbox === null ? '' : `${GEARBOX_IN_ENGLISH[gearbox]} gearbox`,
    body_type === null ? '' : `${BODY_IN_ENGLISH[body_type]} body (${body_type})`,
    power_hp === null ? '' : `power within ±10 % of ${power_hp} KM`,
    mileage === null ? '' : `mileage within ±30 % of ${count(mileage)} km`,
  ].filter((p) => p !== '')
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`
}
