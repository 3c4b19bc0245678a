import type { MileageFit } from './schema.js'

/**
 * The `columns` record of a key: the answers that depend on a number of the request (a
 * mileage window, an asking price, a target mileage) are computed from it. It holds the
 * key's listings, ascending by price, as four packed columns, and the mileage fit
 * (mileage-fit.ts) of each fuel/gearbox filter that has one. A scan in price order keeps
 * prices already sorted, so no sort happens per request.
 *
 * Layout (little-endian): u32 count n, u32 fit count f, then f fits of FIT_BYTES each
 * (f64 slope, f64 low price, f64 high price, i32 low mileage, i32 high mileage, u32
 * selector, u32 size), then f64 price[n], i32 mileage_km[n] (-1 when unknown), u8 fuel[n],
 * u8 gearbox[n]. Every f64 sits at a multiple of 8, so a copy into an 8-byte aligned
 * buffer lets typed arrays view it directly.
 */
export interface ListingColumns {
  readonly count: number
  readonly price: Float64Array
  readonly mileage: Int32Array
  readonly fuel: Uint8Array
  readonly gearbox: Uint8Array
  readonly fitCount: number
  /** FIT_NUMBERS f64 per fit: slope, low price, high price. */
  readonly fitNumbers: Float64Array
  /** FIT_INTEGERS i32/u32 per fit, after its numbers: low mileage, high mileage, selector, size. */
  readonly fitIntegers: Int32Array
}

/** A fit of one fuel/gearbox filter, by its valuation selector (rendered.ts filterSelector). */
export interface SelectedFit {
  readonly selector: number
  readonly fit: MileageFit
}

const HEADER = 8
const FIT_NUMBERS = 3
const FIT_INTEGERS = 4
const FIT_BYTES = FIT_NUMBERS * 8 + FIT_INTEGERS * 4

export function columnsByteLength(count: number, fits: number): number {
  return HEADER + fits * FIT_BYTES + count * (8 + 4 + 1 + 1)
}

/** Views of the columns and fits over `bytes`, which must start at an 8-byte aligned offset. */
export function viewColumns(bytes: Uint8Array): ListingColumns {
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER)
  const count = header.getUint32(0, true)
  const fitCount = header.getUint32(4, true)
  if (bytes.byteLength < columnsByteLength(count, fitCount)) throw new RangeError('columns record is truncated')
  const fits = bytes.byteOffset + HEADER
  const at = fits + fitCount * FIT_BYTES
  return {
    count,
    price: new Float64Array(bytes.buffer, at, count),
    mileage: new Int32Array(bytes.buffer, at + count * 8, count),
    fuel: new Uint8Array(bytes.buffer, at + count * 12, count),
    gearbox: new Uint8Array(bytes.buffer, at + count * 13, count),
    fitCount,
    fitNumbers: new Float64Array(bytes.buffer, fits, (fitCount * FIT_BYTES) / 8),
    fitIntegers: new Int32Array(bytes.buffer, fits, (fitCount * FIT_BYTES) / 4),
  }
}

/** A fresh, aligned buffer for `count` listings with `fits` written in, and the column views to fill it through. */
export function allocateColumns(
  count: number,
  fits: readonly SelectedFit[],
): { bytes: Uint8Array; columns: ListingColumns } {
  const bytes = new Uint8Array(columnsByteLength(count, fits.length))
  const header = new DataView(bytes.buffer)
  header.setUint32(0, count, true)
  header.setUint32(4, fits.length, true)
  const columns = viewColumns(bytes)
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
