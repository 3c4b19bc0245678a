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

/** Engine power in metric horsepower (KM) an export may give (contract 1); a value outside is set aside. */
export const POWER_HP = { min: 10, max: 2000 } as const
/** Engine displacement in cm3 an export may give (contract 1); 0 means unknown (an electric car), outside is set aside. */
export const ENGINE_CAPACITY_CM3 = { min: 50, max: 10_000 } as const
/** The longest version or generation kept, in characters: free text past it is cut (contract 1.1). */
export const MAX_DETAIL_TEXT = 120
/** `power_hp` p keeps the listings within ±POWER_WINDOW p of it (contract 4.1), as `mileage` keeps ±30 %. */
export const POWER_WINDOW = 0.1
