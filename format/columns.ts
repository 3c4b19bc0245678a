import type { MileageFit } from './schema.js'

/**
 * The `columns` record of a key: the answers that depend on a number or a detail of the
 * request (a mileage window, an asking price, a target mileage, a version, a body type, a
 * power) are computed from it. It holds the key's listings, ascending by price, as packed
 * columns, the mileage fit (mileage-fit.ts) of each fuel/gearbox filter that has one, and
 * the key's versions and generations, each text once (a listing holds its index). A scan
 * in price order keeps prices already sorted, so no sort happens per request.
 *
 * Layout (little-endian): u32 count n, u32 fit count f, u32 detail bytes d, u32 what detail
 * the key's listings give (DETAIL_FLAGS), then f fits of FIT_BYTES each (f64 slope, f64 low
 * price, f64 high price, i32 low mileage, i32 high mileage, u32 selector, u32 size), then
 * f64 price[n], i32 mileage_km[n] (-1 when unknown), where any listing gives a version or
 * a generation u32 version[n] and u32 generation[n] (indexes of the detail texts,
 * NO_DETAIL when none), where any gives a power u16 power_hp[n] (0 when unknown), u8
 * fuel[n], u8 gearbox[n], where any gives a body type u8 body[n], and d bytes of UTF-8:
 * the detail texts, one a line, each as written and normalized (contract 4) with a tab
 * between. A key (or a whole export) without detail costs no bytes for it. Every number
 * sits at a multiple of its size, so a copy into an 8-byte aligned buffer lets typed
 * arrays view it directly.
 */
export interface ListingColumns {
  readonly count: number
  readonly price: Float64Array
  readonly mileage: Int32Array
  /** Undefined when no listing of the key gives a version or a generation. */
  readonly version: Uint32Array | undefined
  readonly generation: Uint32Array | undefined
  /** Undefined when no listing of the key gives its power. */
  readonly power: Uint16Array | undefined
  readonly fuel: Uint8Array
  readonly gearbox: Uint8Array
  /** Undefined when no listing of the key gives its body type. */
  readonly body: Uint8Array | undefined
  /** The detail texts' bytes: DetailText lines. */
  readonly details: Uint8Array
  readonly fitCount: number
  /** FIT_NUMBERS f64 per fit: slope, low price, high price. */
  readonly fitNumbers: Float64Array
  /** FIT_INTEGERS i32/u32 per fit, after its numbers: low mileage, high mileage, selector, size. */
  readonly fitIntegers: Int32Array
}

/** Which detail columns a key's record holds. */
export interface DetailPresent {
  readonly versions: boolean
  readonly power: boolean
  readonly body: boolean
}

/** A version or generation of a key's listings: as the export wrote it, and normalized for matching words. */
export interface DetailText {
  readonly text: string
  readonly normalized: string
}

/** The version or generation index of a listing that gives none. */
export const NO_DETAIL = 0xffffffff

/** A fit of one fuel/gearbox filter, by its valuation selector (rendered.ts filterSelector). */
export interface SelectedFit {
  readonly selector: number
  readonly fit: MileageFit
}

const HEADER = 16
const FIT_NUMBERS = 3
const FIT_INTEGERS = 4
const FIT_BYTES = FIT_NUMBERS * 8 + FIT_INTEGERS * 4
const VERSIONS = 1
const POWER = 2
const BODY = 4

/** Bytes a listing takes: price, mileage, fuel and gearbox always, the detail columns its key has. */
function listingBytes(present: DetailPresent): number {
  return 8 + 4 + (present.versions ? 8 : 0) + (present.power ? 2 : 0) + 2 + (present.body ? 1 : 0)
}

export function columnsByteLength(count: number, fits: number, detailBytes: number, present: DetailPresent): number {
  return HEADER + fits * FIT_BYTES + count * listingBytes(present) + detailBytes
}

/** Views of the columns and fits over `bytes`, which must start at an 8-byte aligned offset. */
export function viewColumns(bytes: Uint8Array): ListingColumns {
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER)
  const count = header.getUint32(0, true)
  const fitCount = header.getUint32(4, true)
  const detailBytes = header.getUint32(8, true)
  const flags = header.getUint32(12, true)
  const present = { versions: (flags & VERSIONS) !== 0, power: (flags & POWER) !== 0, body: (flags & BODY) !== 0 }
  if (bytes.byteLength < columnsByteLength(count, fitCount, detailBytes, present))
    throw new RangeError('columns record is truncated')
  const fits = bytes.byteOffset + HEADER
  let at = fits + fitCount * FIT_BYTES
  const take = <T>(make: (offset: number) => T, size: number): T => {
    const view = make(at)
    at += count * size
    return view
  }
  const price = take((o) => new Float64Array(bytes.buffer, o, count), 8)
  const mileage = take((o) => new Int32Array(bytes.buffer, o, count), 4)
  const version = present.versions ? take((o) => new Uint32Array(bytes.buffer, o, count), 4) : undefined
  const generation = present.versions ? take((o) => new Uint32Array(bytes.buffer, o, count), 4) : undefined
  const power = present.power ? take((o) => new Uint16Array(bytes.buffer, o, count), 2) : undefined
  const fuel = take((o) => new Uint8Array(bytes.buffer, o, count), 1)
  const gearbox = take((o) => new Uint8Array(bytes.buffer, o, count), 1)
  const body = present.body ? take((o) => new Uint8Array(bytes.buffer, o, count), 1) : undefined
  return {
    count,
    price,
    mileage,
    version,
    generation,
    power,
    fuel,
    gearbox,
    body,
    details: new Uint8Array(bytes.buffer, at, detailBytes),
    fitCount,
    fitNumbers: new Float64Array(bytes.buffer, fits, (fitCount * FIT_BYTES) / 8),
    fitIntegers: new Int32Array(bytes.buffer, fits, (fitCount * FIT_BYTES) / 4),
  }
}

/**
 * A fresh, aligned buffer for `count` listings with `fits`, the detail columns `present`
 * and the detail texts written in, and the column views to fill it through.
 */
export function allocateColumns(
  count: number,
  fits: readonly SelectedFit[],
  details: readonly DetailText[],
  present: DetailPresent,
): { bytes: Uint8Array; columns: ListingColumns } {
  const text = Buffer.from(details.map((d) => `${d.text}\t${d.normalized}`).join('\n'))
  const bytes = new Uint8Array(columnsByteLength(count, fits.length, text.byteLength, present))
  const header = new DataView(bytes.buffer)
  header.setUint32(0, count, true)
  header.setUint32(4, fits.length, true)
  header.setUint32(8, text.byteLength, true)
  header.setUint32(
    12,
    (present.versions ? VERSIONS : 0) | (present.power ? POWER : 0) | (present.body ? BODY : 0),
    true,
  )
  const columns = viewColumns(bytes)
  columns.details.set(text)
  fits.forEach(({ selector, fit }, i) => {
    const numbers = (i * FIT_BYTES) / 8
    columns.fitNumbers[numbers] = fit.slope
    columns.fitNumbers[numbers + 1] = fit.lowPrice
    columns.fitNumbers[numbers + 2] = fit.highPrice
    const integers = (i * FIT_BYTES) / 4 + FIT_NUMBERS * 2
    columns.fitIntegers[integers] = fit.lowMileage
    columns.fitIntegers[integers + 1] = fit.highMileage
    columns.fitIntegers[integers + 2] = selector
    columns.fitIntegers[integers + 3] = fit.size
  })
  return { bytes, columns }
}

/** The detail texts of a key's columns, by the index its listings hold. */
export function detailTexts(columns: ListingColumns): DetailText[] {
  if (columns.details.byteLength === 0) return []
  return Buffer.from(columns.details.buffer, columns.details.byteOffset, columns.details.byteLength)
    .toString('utf8')
    .split('\n')
    .map((line) => {
      const tab = line.indexOf('\t')
      return { text: line.slice(0, tab), normalized: line.slice(tab + 1) }
    })
}

/** The fit of the filter with this selector, or null when that filter has none. */
export function fitOf(columns: ListingColumns, selector: number): MileageFit | null {
  for (let i = 0; i < columns.fitCount; i++) {
    const integers = (i * FIT_BYTES) / 4 + FIT_NUMBERS * 2
    if (columns.fitIntegers[integers + 2] !== selector) continue
    const numbers = (i * FIT_BYTES) / 8
    return {
      slope: columns.fitNumbers[numbers]!,
      lowPrice: columns.fitNumbers[numbers + 1]!,
      highPrice: columns.fitNumbers[numbers + 2]!,
      lowMileage: columns.fitIntegers[integers]!,
      highMileage: columns.fitIntegers[integers + 1]!,
      size: columns.fitIntegers[integers + 3]!,
    }
  }
  return null
}
