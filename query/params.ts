import { MAX_MILEAGE, MIN_YEAR } from '../format/bounds.js'
import { HISTORY_MONTHS } from '../format/schema.js'
import { FUEL_TYPES, GEARBOXES, fuelCode, gearboxCode, type FuelType, type Gearbox } from '../format/vocabulary.js'
import { invalidParameter } from './api-error.js'

/**
 * Guards for the parameters of the market operations: each takes the raw text of a
 * request (a query string, CLI options) and returns typed values or throws an
 * INVALID_PARAMETER ApiError naming the parameter. The bounds here are the ones the
 * API documents; those the build shares are in format/bounds.ts.
 */

export const MAX_NAME_LENGTH = 100
export const MONTHS = { min: 1, max: HISTORY_MONTHS, default: 6 } as const

export interface VehicleParams {
  readonly make: string
  readonly model: string
  readonly year: number
}
export interface ValuationParams extends VehicleParams {
  readonly fuel_type: FuelType | null
  readonly gearbox: Gearbox | null
  readonly mileage: number | null
}
export interface PriceHistoryParams extends VehicleParams {
  readonly months: number
}

/** Reads one parameter's raw text; undefined when the request does not have it. */
export type ParamSource = (name: string) => string | undefined

// Control characters never belong in a name and would end up in logs and error bodies.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u
const INTEGER = /^[0-9]+$/

function name(get: ParamSource, parameter: 'make' | 'model'): string {
  const raw = get(parameter)
  if (raw === undefined) throw invalidParameter(parameter, `${parameter} is required`)
  const value = raw.trim()
  if (value === '') throw invalidParameter(parameter, `${parameter} must not be empty`)
  if (value.length > MAX_NAME_LENGTH) throw invalidParameter(parameter, `${parameter} must be at most ${MAX_NAME_LENGTH} characters`)
  if (CONTROL.test(value)) throw invalidParameter(parameter, `${parameter} must not contain control characters`)
  return value
}

function integer(get: ParamSource, parameter: string, min: number, max: number): number | undefined {
  const raw = get(parameter)
  if (raw === undefined) return undefined
  const value = raw.trim()
  if (!INTEGER.test(value) || value.length > 9 || Number(value) < min || Number(value) > max) {
    throw invalidParameter(parameter, `${parameter} must be an integer from ${min} to ${max}`)
  }
  return Number(value)
}

/** make, model and year; `maxYear` is the latest production year the snapshot can hold. */
export function vehicleParams(get: ParamSource, maxYear: number): VehicleParams {
  const make = name(get, 'make')
  const model = name(get, 'model')
  const year = integer(get, 'year', MIN_YEAR, maxYear)
  if (year === undefined) throw invalidParameter('year', 'year is required')
  return { make, model, year }
}

export function valuationParams(get: ParamSource, maxYear: number): ValuationParams {
  const { make, model, year } = vehicleParams(get, maxYear)
  const fuel = get('fuel_type')
  let fuelType: FuelType | null = null
  if (fuel !== undefined) {
    const code = fuelCode(fuel)
    if (code === undefined) {
      throw invalidParameter('fuel_type', `fuel_type must be one of ${FUEL_TYPES.join(', ')} (or petrol, diesel, hybrid, phev, electric, lpg, cng, hydrogen)`)
    }
    fuelType = FUEL_TYPES[code]!
  }
  const gear = get('gearbox')
  let gearbox: Gearbox | null = null
  if (gear !== undefined) {
    const code = gearboxCode(gear)
    if (code === undefined) throw invalidParameter('gearbox', `gearbox must be one of ${GEARBOXES.join(', ')} (or manual, automatic)`)
    gearbox = GEARBOXES[code]!
  }
  const mileage = integer(get, 'mileage', 1, MAX_MILEAGE) ?? null
  // Spelled out: spreading the vehicle's fields into a new object cost ten times more.
  return { make, model, year, fuel_type: fuelType, gearbox, mileage }
}

export function priceHistoryParams(get: ParamSource, maxYear: number): PriceHistoryParams {
  const { make, model, year } = vehicleParams(get, maxYear)
  return { make, model, year, months: integer(get, 'months', MONTHS.min, MONTHS.max) ?? MONTHS.default }
}
