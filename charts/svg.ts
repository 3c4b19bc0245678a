import { count } from '../format/amounts.js'

/** What every chart is made of: escaped text, numbers in words, scales, ticks and the document around a chart. */

/** Colours that stay apart for the common colour-vision deficiencies (Okabe and Ito, 2008). */
export const COLOURS = {
  ink: '#1f2937',
  muted: '#4b5563',
  grid: '#e5e7eb',
  blue: '#0072b2',
  lightBlue: '#cfe6f5',
  green: '#009e73',
  orange: '#e69f00',
  vermillion: '#d55e00',
} as const

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
}

/** Characters XML 1.0 has no place for (controls, lone surrogates, U+FFFE and U+FFFF): shown as U+FFFD. */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu

/** Text made safe for an SVG element's content or an attribute's value. */
export function xml(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

/** A whole number of złoty as the API's text writes amounts: 52,900 PLN. */
export function pln(amount: number): string {
  return `${count(amount)} PLN`
}

/** A change in per cent with its sign: +6.9 %, -5.2 %, 0.0 %. */
export function signedPct(pct: number): string {
  const text = Math.abs(pct).toFixed(1)
  return `${pct > 0 ? '+' : pct < 0 ? '-' : ''}${text} %`
}

/** A coordinate as SVG text: at most one decimal. */
export function at(value: number): string {
  return String(Math.round(value * 10) / 10)
}

/** A linear map of the domain [d0, d1] onto [r0, r1]; a domain of one value maps to the range's middle. */
export function linear(d0: number, d1: number, r0: number, r1: number): (value: number) => number {
  if (d1 === d0) return () => (r0 + r1) / 2
  const k = (r1 - r0) / (d1 - d0)
  return (value) => r0 + (value - d0) * k
}

/**
 * Round values from `min` to `max` at a step of 1, 2 or 5 times a power of ten, about
 * `wanted` of them, the first at or below `min` and the last at or above `max`.
 */
export function ticks(min: number, max: number, wanted = 5): number[] {
  if (max <= min) max = min + 1
  const rough = (max - min) / wanted
  const power = 10 ** Math.floor(Math.log10(rough))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power
  const out: number[] = []
  for (let v = Math.floor(min / step) * step; v < max + step / 2; v += step) out.push(Math.round(v / step) * step)
  if (out[out.length - 1]! < max) out.push(out[out.length - 1]! + step)
  return out
}

/** An axis tick's label, short: millions as M (1.5M), thousands as k (45k, 47.5k). */
export function tickLabel(value: number): string {
  const short = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 })
  if (Math.abs(value) >= 1_000_000) return `${short(value / 1_000_000)}M`
  if (Math.abs(value) >= 1_000) return `${short(value / 1_000)}k`
  return count(value)
}

/** Where a label sits: its anchor, so that it stays inside [left, right] of the chart. */
export function anchorFor(x: number, left: number, right: number): 'start' | 'middle' | 'end' {
  const share = (x - left) / (right - left)
  return share < 0.2 ? 'start' : share > 0.8 ? 'end' : 'middle'
}

/** About how wide text is drawn at `size` px (a character is a little over half its size): to tell whether it fits. */
export function textWidth(text: string, size: number): number {
  return text.length * size * 0.57
}

/**
 * Text at a point, escaped; given `room`, squeezed into that width when it would run past
 * it (a name as long as a request may give).
 */
export function label(
  x: number,
  y: number,
  text: string,
  attributes: {
    anchor?: 'start' | 'middle' | 'end'
    size?: number
    weight?: 'bold'
    fill?: string
    room?: number
  } = {},
): string {
  const anchor =
    attributes.anchor === undefined || attributes.anchor === 'start' ? '' : ` text-anchor="${attributes.anchor}"`
  const size = attributes.size === undefined ? '' : ` font-size="${attributes.size}"`
  const weight = attributes.weight === undefined ? '' : ` font-weight="${attributes.weight}"`
  const fill = ` fill="${attributes.fill ?? COLOURS.ink}"`
  const { room } = attributes
  const squeezed =
    room !== undefined && textWidth(text, attributes.size ?? 12) > room
      ? ` textLength="${room}" lengthAdjust="spacingAndGlyphs"`
      : ''
  return `<text x="${at(x)}" y="${at(y)}"${anchor}${size}${weight}${fill}${squeezed}>${xml(text)}</text>`
}

/** The width a chart is drawn at unless given one: GET /v1/chart's images, and the explorer's on a wide screen. */
export const CHART_WIDTH = 640
/** The narrowest a chart lays itself out for (a 320 px screen less the page's margins); narrower, it is scaled. */
export const NARROWEST_CHART = 280

/** A width asked for, within what the charts lay themselves out for. */
export function chartWidth(width: number | undefined): number {
  return width === undefined ? CHART_WIDTH : Math.round(Math.min(CHART_WIDTH, Math.max(NARROWEST_CHART, width)))
}

/** Text cut at spaces into lines of about `room` px at `size` px, at most `most` lines (the last one squeezed). */
export function wrap(text: string, room: number, size: number, most: number): string[] {
  const lines: string[] = []
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1]
    if (last !== undefined && (textWidth(`${last} ${word}`, size) <= room || lines.length === most))
      lines[lines.length - 1] = `${last} ${word}`
    else lines.push(word)
  }
  return lines
}

/** What a chart is: its name for ids, its size, what it shows in words, and its drawing. */
export interface ChartParts {
  /** Unique among the charts of one page: the ids of its title and description start with it. */
  readonly id: string
  readonly width: number
  readonly height: number
  /** The chart's name, read first by a screen reader and shown as a tooltip. */
  readonly title: string
  /** Every figure the chart draws, in words. */
  readonly description: string
  readonly body: string
}

/**
 * A chart as a standalone SVG document: an image with a title and a description (its
 * text alternative) and a heading drawn at its top, sized for an <img> and scaling
 * with its viewBox when a page sets its width. A heading too long for a narrow chart
 * takes a second line, and the drawing moves down by it.
 */
export function chartSvg(parts: ChartParts): string {
  const { id, width, title, description, body } = parts
  // Bold 15 px runs about a tenth wider than textWidth's plain estimate.
  const lines = wrap(title, width - 32, 16.5, 2)
  const extra = (lines.length - 1) * TITLE_LINE
  const height = parts.height + extra
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `role="img" aria-labelledby="${id}-title ${id}-desc" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif" font-size="12">` +
    `<title id="${id}-title">${xml(title)}</title><desc id="${id}-desc">${xml(description)}</desc>` +
    `<rect width="${width}" height="${height}" fill="#ffffff"/>` +
    // The full title stays the text alternative however it is squeezed.
    lines
      .map((line, i) => label(16, 24 + i * TITLE_LINE, line, { size: 15, weight: 'bold', room: width - 32 }))
      .join('') +
    (extra === 0 ? body : `<g transform="translate(0 ${extra})">${body}</g>`) +
    '</svg>'
  )
}

/** The height of a heading's second line. */
const TITLE_LINE = 19

/**
 * A make and model as a chart's heading names them: the names the request matched, when there is one of each, and the
 * version words that narrowed the listings (`Volkswagen Golf GTI`).
 */
export function vehicleName(data: {
  readonly make: string
  readonly model: string
  readonly matched: {
    readonly makes: readonly string[]
    readonly models: readonly string[]
    readonly version_words: readonly string[]
  }
}): string {
  const make = data.matched.makes.length === 1 ? data.matched.makes[0]! : data.make
  if (data.matched.models.length !== 1) return `${make} ${data.model}`
  return [make, data.matched.models[0]!, ...data.matched.version_words].join(' ')
}
