import { COLOURS, at, chartSvg, chartWidth, label, linear, textWidth, xml } from './svg.js'

/** One bar: its name, its value on the common scale, that value as text, and its colour. */
export interface Bar {
  readonly label: string
  readonly value: number
  readonly text: string
  readonly colour: string
}

const LEFT = 16
const TOP = 44
/** A row: its name and value on one line, the bar under them, and air. */
const ROW = { height: 48, bar: 16 }

/**
 * Bars from zero on one scale, one under another, each under a line with its name (at the
 * left) and its value in words (at the right), so that names of any length and a narrow
 * screen leave every figure readable; values below zero run left of a zero line.
 */
export function barChartSvg(
  id: string,
  title: string,
  description: string,
  bars: readonly Bar[],
  width?: number,
): string {
  const drawn = chartWidth(width)
  const RIGHT = drawn - 16
  const values = bars.map((b) => b.value)
  const low = Math.min(0, ...values)
  const high = Math.max(0, ...values)
  const x = linear(low, high === low ? 1 : high, LEFT, RIGHT)
  const zero = x(0)
  const parts: string[] = []
  bars.forEach((bar, i) => {
    const top = TOP + i * ROW.height
    const end = x(bar.value)
    const from = Math.min(zero, end)
    parts.push(
      `<g><title>${xml(bar.label)}: ${xml(bar.text)}</title>`,
      // The name takes the line but for its value.
      label(LEFT, top + 14, bar.label, { size: 12, room: RIGHT - LEFT - textWidth(bar.text, 12) - 16 }),
      label(RIGHT, top + 14, bar.text, { anchor: 'end', size: 12, weight: 'bold' }),
      `<rect x="${at(from)}" y="${top + 20}" width="${at(Math.max(Math.abs(end - zero), 2))}" height="${ROW.bar}" rx="2" fill="${bar.colour}"/>`,
      // Zero, where bars run both ways: beside each bar, clear of the names above it.
      low < 0
        ? `<line x1="${at(zero)}" x2="${at(zero)}" y1="${top + 17}" y2="${top + 23 + ROW.bar}" stroke="${COLOURS.muted}"/>`
        : '',
      '</g>',
    )
  })
  const bottom = TOP + bars.length * ROW.height
  return chartSvg({ id, width: drawn, height: bottom + 8, title, description, body: parts.join('') })
}
