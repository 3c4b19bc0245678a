/** How the LMDB ledger opens its databases. */

/** A database of records each written whole, its keys in its own value (RECORD_DATABASES). */
export function whole(name: string) {
  return { name, encoder: { useRecords: false } }
}

/** What `make` makes, made on the first call and kept; `opened` says whether it has been. */
export function opened<T>(make: () => T): { readonly get: () => T; readonly opened: () => boolean } {
  let made: { readonly value: T } | undefined
  return {
    get: () => (made ??= { value: make() }).value,
    opened: () => made !== undefined,
  }
}
