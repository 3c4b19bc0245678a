import { count } from '../format/amounts.js'
import { COLOURS, anchorFor, at, chartSvg, chartWidth, label, linear, tickLabel, ticks, xml } from './svg.js'

/** One point of a line: its place among the slots (months, years), its label, its price and how many listings made it. */
export interface LinePoint {
  readonly slot: number
  readonly label: string
  readonly price: number
  readonly listings: number
}

const HEIGHT = 330
const LEFT = 56
/** The room a slot's label takes on the axis: no more labels than fit. */
const LABEL_ROOM = 56
const PRICE = { top: 60, bottom: 220 }
const LISTINGS = { top: 240, bottom: 290 }

/**
 * A chart of prices over slots in order (see lineChart) as a document: its id, title and
 * figures in words, and the slot of the point a reader asked about, marked.
 */
export function lineChartSvg(
  id: string,
  title: string,
  description: string,
  points: readonly LinePoint[],
  marked?: number,
  width?: number,
): string {
  const drawn = chartWidth(width)
  return chartSvg({ id, width: drawn, height: HEIGHT, title, description, body: lineChart(points, marked, drawn - 20) })
}

/**
 * Prices as a line over slots in order, from the first point's slot (0) to the last's (a
 * slot without a point breaks the line), each point's listings as a bar under it, and as
 * many slot labels on the axis as fit between LEFT and `right`.
 */
function lineChart(points: readonly LinePoint[], marked: number | undefined, right: number): string {
  const RIGHT = right
  if (points.length === 0) return label((LEFT + RIGHT) / 2, 160, 'No listings to draw.', { anchor: 'middle', size: 13 })
  const labels = Math.max(2, Math.min(12, Math.floor((RIGHT - LEFT) / LABEL_ROOM)))
  const slots = points[points.length - 1]!.slot + 1
  const prices = points.map((p) => p.price)
  const low = Math.min(...prices)
  const high = Math.max(...prices)
  const pad = Math.max((high - low) * 0.1, high * 0.02)
  const axis = ticks(Math.max(low - pad, 0), high + pad, 5)
  const y = linear(axis[0]!, axis[axis.length - 1]!, PRICE.bottom, PRICE.top)
  const band = (RIGHT - LEFT) / slots
  const x = (slot: number) => LEFT + band * (slot + 0.5)
  const most = Math.max(...points.map((p) => p.listings))
  const bar = linear(0, most, 0, LISTINGS.bottom - LISTINGS.top)

  const parts: string[] = []
  for (const tick of axis) {
    parts.push(`<line x1="${LEFT}" x2="${RIGHT}" y1="${at(y(tick))}" y2="${at(y(tick))}" stroke="${COLOURS.grid}"/>`)
    parts.push(label(LEFT - 6, y(tick) + 4, tickLabel(tick), { anchor: 'end', size: 11, fill: COLOURS.muted }))
  }
  parts.push(label(LEFT - 6, LISTINGS.top + 8, count(most), { anchor: 'end', size: 11, fill: COLOURS.muted }))
  parts.push(label(LEFT - 6, LISTINGS.bottom, 'listings', { anchor: 'end', size: 11, fill: COLOURS.muted }))
  const every = Math.ceil(slots / labels)
  for (const p of points) {
    const height = Math.max(bar(p.listings), 1)
    parts.push(
      `<rect x="${at(x(p.slot) - band * 0.35)}" y="${at(LISTINGS.bottom - height)}" width="${at(band * 0.7)}" height="${at(height)}" fill="${COLOURS.lightBlue}"><title>${xml(p.label)}: ${count(p.listings)} listings</title></rect>`,
    )
  }
  // Labelled back from the last point, so that the newest slot always has its label.
  const last = points[points.length - 1]!.slot
  for (const p of points)
    if ((last - p.slot) % every === 0)
      parts.push(label(x(p.slot), LISTINGS.bottom + 16, p.label, { anchor: 'middle', size: 11, fill: COLOURS.muted }))

  let path = ''
  points.forEach((p, i) => {
    const joined = i > 0 && points[i - 1]!.slot === p.slot - 1
    path += `${joined ? 'L' : 'M'}${at(x(p.slot))} ${at(y(p.price))}`
  })
  parts.push(`<path d="${path}" fill="none" stroke="${COLOURS.blue}" stroke-width="2.5" stroke-linejoin="round"/>`)
  for (const p of points)
    parts.push(
      `<circle cx="${at(x(p.slot))}" cy="${at(y(p.price))}" r="4" fill="${COLOURS.blue}"><title>${xml(p.label)}: ${count(p.price)} PLN from ${count(p.listings)} listings</title></circle>`,
    )
  const asked = points.find((p) => p.slot === marked)
  if (asked !== undefined) {
    const [ax, ay] = [x(asked.slot), y(asked.price)]
    parts.push(
      `<circle class="asked" cx="${at(ax)}" cy="${at(ay)}" r="9" fill="none" stroke="${COLOURS.vermillion}" stroke-width="2.5"/>`,
      label(ax, ay - 16, `${asked.label}: ${count(asked.price)}`, {
        anchor: anchorFor(ax, LEFT, RIGHT),
        size: 12,
        weight: 'bold',
        fill: COLOURS.vermillion,
      }),
    )
  }
  return parts.join('')
}
