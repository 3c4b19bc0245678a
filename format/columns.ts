/**
 * The `columns` record of a key: its listings with a known mileage, ascending by price,
 * as four packed columns. A mileage-filtered valuation scans them in price order, so the
 * prices it keeps are already sorted and no sort happens per request.
 *
 * Layout (little-endian): u32 count n, then f64 price[n], i32 mileage_km[n],
 * u8 fuel[n], u8 gearbox[n]. Prices come first so that a copy into an 8-byte aligned
 * buffer lets a Float64Array view them directly.
 */
export interface ListingColumns {
  readonly count: number
  readonly price: Float64Array
  readonly mileage: Int32Array
  readonly fuel: Uint8Array
  readonly gearbox: Uint8Array
}

const HEADER = 8 // u32 count + 4 bytes of padding keeps the f64 column aligned

export function columnsByteLength(count: number): number {
  return HEADER + count * (8 + 4 + 1 + 1)
}

/** Views of the four columns over `bytes`, which must start at an 8-byte aligned offset. */
export function viewColumns(bytes: Uint8Array): ListingColumns {
  const count = new DataView(bytes.buffer, bytes.byteOffset, HEADER).getUint32(0, true)
  if (bytes.byteLength < columnsByteLength(count)) throw new RangeError('columns record is truncated')
  const at = bytes.byteOffset + HEADER
  return {
    count,
    price: new Float64Array(bytes.buffer, at, count),
    mileage: new Int32Array(bytes.buffer, at + count * 8, count),
    fuel: new Uint8Array(bytes.buffer, at + count * 12, count),
    gearbox: new Uint8Array(bytes.buffer, at + count * 13, count),
  }
}

/** A fresh, aligned buffer for `count` listings and the column views to fill it through. */
export function allocateColumns(count: number): { bytes: Uint8Array; columns: ListingColumns } {
  const bytes = new Uint8Array(columnsByteLength(count))
  new DataView(bytes.buffer).setUint32(0, count, true)
  return { bytes, columns: viewColumns(bytes) }
}
