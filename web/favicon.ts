import { MARK } from './logo.js'
import { resource } from './resource.js'

/** The sizes drawn: a browser tab's, at single and double density. */
const SIZES = [16, 32] as const
/** Samples per pixel along each axis: the edges are smoothed from SAMPLES² points. */
const SAMPLES = 4

type Rgb = readonly [number, number, number]

function rgb(hex: string): Rgb {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as unknown as Rgb
}

/** Distance from (x, y) to the segment from a to b. */
function toSegment(x: number, y: number, [ax, ay]: readonly number[], [bx, by]: readonly number[]): number {
  const dx = bx! - ax!
  const dy = by! - ay!
  const t = Math.max(0, Math.min(1, ((x - ax!) * dx + (y - ay!) * dy) / (dx * dx + dy * dy)))
  return Math.hypot(x - (ax! + t * dx), y - (ay! + t * dy))
}

/** The colour of the mark at a point of its square, or undefined outside it. */
function colourAt(x: number, y: number): Rgb | undefined {
  const r = MARK.radius
  const cx = Math.max(r, Math.min(MARK.size - r, x))
  const cy = Math.max(r, Math.min(MARK.size - r, y))
  if (Math.hypot(x - cx, y - cy) > r) return undefined
  const onLine = MARK.line.slice(1).some((b, i) => toSegment(x, y, MARK.line[i]!, b) <= MARK.stroke / 2)
  return onLine || Math.hypot(x - MARK.dot.x, y - MARK.dot.y) <= MARK.dot.r ? rgb(MARK.ink) : rgb(MARK.ground)
}

/**
 * One icon image as an ICO file holds it: a 32-bit BMP header of double height, its
 * pixels bottom row first in BGRA, then the 1-bit mask (all clear: the alpha decides).
 */
function bitmap(size: number): Buffer {
  const header = Buffer.alloc(40)
  header.writeUInt32LE(40, 0)
  header.writeInt32LE(size, 4)
  header.writeInt32LE(size * 2, 8)
  header.writeUInt16LE(1, 12)
  header.writeUInt16LE(32, 14)
  const pixels = Buffer.alloc(size * size * 4)
  const unit = MARK.size / size
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      const sum = [0, 0, 0]
      let covered = 0
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const colour = colourAt((px + (sx + 0.5) / SAMPLES) * unit, (py + (sy + 0.5) / SAMPLES) * unit)
          if (colour === undefined) continue
          covered++
          colour.forEach((c, i) => (sum[i]! += c))
        }
      }
      const at = ((size - 1 - py) * size + px) * 4
      if (covered === 0) continue
      const [red, green, blue] = sum.map((s) => Math.round(s / covered))
      pixels.writeUInt8(blue!, at)
      pixels.writeUInt8(green!, at + 1)
      pixels.writeUInt8(red!, at + 2)
      pixels.writeUInt8(Math.round((255 * covered) / SAMPLES ** 2), at + 3)
    }
  }
  const mask = Buffer.alloc(Math.ceil(size / 32) * 4 * size)
  return Buffer.concat([header, pixels, mask])
}

/** An ICO file of the images: its directory, then each image. */
function ico(images: readonly { size: number; data: Buffer }[]): Buffer {
  const directory = Buffer.alloc(6 + 16 * images.length)
  directory.writeUInt16LE(1, 2)
  directory.writeUInt16LE(images.length, 4)
  let offset = directory.length
  images.forEach(({ size, data }, i) => {
    const entry = 6 + 16 * i
    directory.writeUInt8(size, entry)
    directory.writeUInt8(size, entry + 1)
    directory.writeUInt16LE(1, entry + 4)
    directory.writeUInt16LE(32, entry + 6)
    directory.writeUInt32LE(data.length, entry + 8)
    directory.writeUInt32LE(offset, entry + 12)
    offset += data.length
  })
  return Buffer.concat([directory, ...images.map((i) => i.data)])
}

/**
 * `/favicon.ico`: the mark drawn in code as an ICO, for the browsers that ask for this
 * address whatever a page says (and for what is not a page: a JSON answer, llms.txt)
 * and for those that do not take an SVG icon.
 */
export const FAVICON = resource(
  '/favicon.ico',
  ico(SIZES.map((size) => ({ size, data: bitmap(size) }))),
  'image/x-icon',
)
