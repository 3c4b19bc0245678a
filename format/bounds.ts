/**
 * The bounds of the data contract (section 1.1): the build rejects a row outside them and
 * the API refuses a request outside them, so both read them here.
 */

export const MIN_YEAR = 1900
/** In PLN, after conversion. */
export const MIN_PRICE = 100
export const MAX_PRICE = 10_000_000
/** Kilometres. */
export const MAX_MILEAGE = 3_000_000
/**
 * A listing that does not say whether it is new is new below this odometer reading, in
 * km (contract 1.2): dealers list new cars at 0-100 km, and no used car is driven less.
 */
export const NEW_CAR_BELOW_KM = 1000

/** The latest production year accepted in a market as of `asOfYear`: next year's models are sold before it begins. */
export function latestYear(asOfYear: number): number {
  return asOfYear + 1
}
