/** The columns of the listings export (data contract, section 1). */
export const COLUMNS = [
  'listing_id',
  'make',
  'model',
  'year',
  'price',
  'currency',
  'mileage_km',
  'fuel_type',
  'gearbox',
  'imported',
  'voivodeship',
  'first_seen',
  'last_seen',
  'active',
  'condition',
] as const
export type Column = (typeof COLUMNS)[number]
/** Position of each column in COLUMNS: rows are read by these numbers, not by name. */
export const COL = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as { readonly [C in Column]: number }
export const REQUIRED_COLUMNS: readonly Column[] = [
  'listing_id',
  'make',
  'model',
  'year',
  'price',
  'first_seen',
  'last_seen',
  'active',
]
