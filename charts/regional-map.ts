import type { RegionalData } from '../query/answers.js'
import type { Voivodeship } from '../format/vocabulary.js'
import { count } from '../format/amounts.js'
import { COLOURS, at, chartSvg, chartWidth, label, pln, signedPct, tickLabel, vehicleName, xml } from './svg.js'

/**
 * The 16 voivodeships as tiles of a 4 x 4 grid laid out like Poland: each in the column
 * and row closest to where it lies (west to east, north to south).
 */
export const TILES: Readonly<Record<Voivodeship, readonly [column: number, row: number]>> = {
  zachodniopomorskie: [0, 0],
  pomorskie: [1, 0],
  'warmińsko-mazurskie': [2, 0],
  podlaskie: [3, 0],
  lubuskie: [0, 1],
  wielkopolskie: [1, 1],
  'kujawsko-pomorskie': [2, 1],
  mazowieckie: [3, 1],
  dolnośląskie: [0, 2],
  łódzkie: [1, 2],
  świętokrzyskie: [2, 2],
  lubelskie: [3, 2],
  opolskie: [0, 3],
  śląskie: [1, 3],
  małopolskie: [2, 3],
  podkarpackie: [3, 3],
}

/** The tiles' grid: on a wide chart 148 px a tile; narrower, as wide as a quarter allows. */
const TILE = { height: 96, gap: 6, left: 14, top: 44 }
/** Narrower than this, a tile names its voivodeship short and shows its deviation alone (the table has the rest). */
const FULL_TILE = 120
/**
 * Short names for narrow tiles, as Polish writes them in addresses and tables (woj. maz.),
 * each within ten letters.
 */
const SHORT_NAMES: Readonly<Record<Voivodeship, string>> = {
  zachodniopomorskie: 'zach.-pom.',
  pomorskie: 'pomor.',
  'warmińsko-mazurskie': 'warm.-maz.',
  podlaskie: 'podlas.',
  lubuskie: 'lubus.',
  wielkopolskie: 'wielkop.',
  'kujawsko-pomorskie': 'kuj.-pom.',
  mazowieckie: 'mazow.',
  dolnośląskie: 'dolnośl.',
  łódzkie: 'łódz.',
  świętokrzyskie: 'świętokr.',
  lubelskie: 'lubel.',
  opolskie: 'opol.',
  śląskie: 'śląs.',
  małopolskie: 'małop.',
  podkarpackie: 'podkarp.',
}
/** Cheaper than the national average towards blue, dearer towards orange: apart for every common colour vision. */
const CHEAPER = [33, 102, 172] as const
const DEARER = [179, 88, 6] as const
const EVEN = [247, 247, 247] as const

/** The colour of a deviation from the national average, `limit` per cent being the deepest. */
function shade(pct: number, limit: number): { fill: string; ink: string } {
  const t = Math.min(Math.abs(pct) / limit, 1)
  const end = pct < 0 ? CHEAPER : DEARER
  const rgb = EVEN.map((c, i) => Math.round(c + (end[i]! - c) * t))
  // Light text on the deep shades, dark on the pale ones.
  const luminance = (0.2126 * rgb[0]! + 0.7152 * rgb[1]! + 0.0722 * rgb[2]!) / 255
  return { fill: `rgb(${rgb.join(',')})`, ink: luminance < 0.5 ? '#ffffff' : COLOURS.ink }
}

/**
 * The mean price of each voivodeship against the national average, as a tile map
 * shaded from cheaper (blue) to dearer (orange), each tile with its name, its mean and
 * its deviation in text, and a tooltip; voivodeships without listings left blank.
 */
export function regionalMap(data: RegionalData, width?: number): string {
  const WIDTH = chartWidth(width)
  const tileWidth = Math.min(148, (WIDTH - 2 * TILE.left - 3 * TILE.gap) / 4)
  const full = tileWidth >= FULL_TILE
  const byName = new Map(data.regions.map((r) => [r.region, r]))
  const deepest = Math.max(5, ...data.regions.map((r) => Math.abs(r.vs_national_pct)))
  const limit = Math.ceil(deepest / 5) * 5
  const parts: string[] = []
  for (const [name, [column, row]] of Object.entries(TILES)) {
    const x = TILE.left + column * (tileWidth + TILE.gap)
    const y = TILE.top + row * (TILE.height + TILE.gap)
    const region = byName.get(name)
    const cx = x + tileWidth / 2
    const shown = full ? name : SHORT_NAMES[name as Voivodeship]
    const room = tileWidth - 6
    if (region === undefined) {
      parts.push(
        `<g><title>${xml(name)}: no listings</title><rect x="${at(x)}" y="${y}" width="${at(tileWidth)}" height="${TILE.height}" rx="6" fill="#ffffff" stroke="${COLOURS.grid}" stroke-dasharray="4 3"/>`,
        label(cx, y + 36, shown, { anchor: 'middle', size: full ? 12 : 11, fill: COLOURS.muted, room }),
        label(cx, y + 60, full ? 'no listings' : '–', { anchor: 'middle', size: 11, fill: COLOURS.muted }),
        '</g>',
      )
      continue
    }
    const { fill, ink } = shade(region.vs_national_pct, limit)
    parts.push(
      `<g><title>${xml(name)}: ${pln(region.avg_price)}, ${signedPct(region.vs_national_pct)} against the national average, ${count(region.sample_size)} listings</title>`,
      `<rect x="${at(x)}" y="${y}" width="${at(tileWidth)}" height="${TILE.height}" rx="6" fill="${fill}" stroke="#ffffff"/>`,
      label(cx, y + 28, shown, { anchor: 'middle', size: 11, weight: full ? 'bold' : undefined, fill: ink, room }),
      full
        ? label(cx, y + 52, pln(region.avg_price), { anchor: 'middle', size: 13, fill: ink })
        : label(cx, y + 52, `${tickLabel(region.avg_price)}`, { anchor: 'middle', size: 12, fill: ink, room }),
      label(
        cx,
        y + 74,
        full
          ? `${signedPct(region.vs_national_pct)} · ${count(region.sample_size)} listings`
          : signedPct(region.vs_national_pct),
        { anchor: 'middle', size: 11, fill: ink, room },
      ),
      '</g>',
    )
  }
  const key = legend(limit, data.national_average, WIDTH)
  parts.push(key.svg)
  return chartSvg({
    id: 'regional',
    width: WIDTH,
    height: key.bottom + 12,
    title: `${vehicleName(data)} ${data.year}: mean asking price by voivodeship`,
    description: describe(data),
    body: parts.join(''),
  })
}

/**
 * A bar shaded from -limit to +limit per cent, with the national average it is measured
 * from: its ends' words beside it on a wide chart, under it on a narrow one.
 */
function legend(limit: number, average: number, drawn: number): { readonly svg: string; readonly bottom: number } {
  const y = TILE.top + 4 * (TILE.height + TILE.gap) + 14
  const wide = drawn >= 600
  const left = wide ? TILE.left + 150 : TILE.left
  const width = wide ? 300 : drawn - 2 * TILE.left
  const steps = 20
  const parts: string[] = []
  for (let i = 0; i < steps; i++) {
    const pct = -limit + ((i + 0.5) * 2 * limit) / steps
    parts.push(
      `<rect x="${at(left + (i * width) / steps)}" y="${y}" width="${at(width / steps + 0.5)}" height="12" fill="${shade(pct, limit).fill}"/>`,
    )
  }
  // The national average itself: the line every tile's shade is measured from.
  parts.push(
    `<line class="national" x1="${at(left + width / 2)}" x2="${at(left + width / 2)}" y1="${y - 4}" y2="${y + 16}" stroke="${COLOURS.ink}" stroke-width="2"/>`,
  )
  const national = `against the national average of ${pln(average)}`
  if (wide) {
    parts.push(
      label(left - 8, y + 10, `cheaper ${signedPct(-limit)}`, { anchor: 'end', size: 11 }),
      label(left + width + 8, y + 10, `${signedPct(limit)} dearer`, { size: 11 }),
      label(left + width / 2, y + 30, national, { anchor: 'middle', size: 11 }),
    )
    return { svg: parts.join(''), bottom: y + 34 }
  }
  parts.push(
    label(left, y + 28, `cheaper ${signedPct(-limit)}`, { size: 11 }),
    label(left + width, y + 28, `${signedPct(limit)} dearer`, { anchor: 'end', size: 11 }),
    label(left + width / 2, y + 46, national, { anchor: 'middle', size: 11, room: width }),
  )
  return { svg: parts.join(''), bottom: y + 50 }
}

/** The figures the map draws, in words. */
export function describe(data: RegionalData): string {
  const regions = data.regions
  const heading = `Mean asking price of the ${vehicleName(data)} from ${data.year} by voivodeship, against the national average of ${pln(data.national_average)} from ${count(data.total_sample_size)} listings.`
  if (regions.length === 0) return `${heading} No voivodeship has listings.`
  const cheapest = regions.reduce((a, b) => (b.avg_price < a.avg_price ? b : a))
  const dearest = regions.reduce((a, b) => (b.avg_price > a.avg_price ? b : a))
  const missing = Object.keys(TILES).filter((name) => !regions.some((r) => r.region === name))
  return [
    heading,
    `Cheapest ${cheapest.region} at ${pln(cheapest.avg_price)} (${signedPct(cheapest.vs_national_pct)}), dearest ${dearest.region} at ${pln(dearest.avg_price)} (${signedPct(dearest.vs_national_pct)}).`,
    `By voivodeship: ${regions.map((r) => `${r.region} ${pln(r.avg_price)} (${signedPct(r.vs_national_pct)}, ${count(r.sample_size)} listings)`).join('; ')}.`,
    missing.length === 0 ? '' : `No listings in ${missing.join(', ')}.`,
  ]
    .filter((s) => s !== '')
    .join(' ')
}
