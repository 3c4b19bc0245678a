/** The columns of the listings export (data contract, section 1), the detail columns last. */
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
  'version',
  'generation',
  'body_type',
  'power_hp',
  'engine_capacity_cm3',
] as const
/** The columns that tell the car in more detail than its model (contract 1 and 4.1), all optional. */
export const DETAIL_COLUMNS = ['version', 'generation', 'body_type', 'power_hp', 'engine_capacity_cm3'] as const
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
