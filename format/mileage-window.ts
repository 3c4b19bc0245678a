/**
 * The mileages a valuation's ±30% window keeps (0.7m <= mileage <= 1.3m), as whole km
 * inclusive, as the listings' are. Exact: a tenth of a whole number is never rounded
 * across a whole number, so no rounding decides a border case.
 */
export function mileageWindow(mileage: number): { readonly from: number; readonly to: number } {
  return { from: Math.ceil((7 * mileage) / 10), to: Math.floor((13 * mileage) / 10) }
}
