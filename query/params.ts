import type { FuelType, Gearbox } from '../format/vocabulary.js'
import { ApiError, invalidParameter } from './api-error.js'
import { REQUEST_VALUES, spellings, type Vocabulary } from './value-aliases.js'

/**
 * Guards for the parameters of the market operations: each takes the raw text of a
 * request (a query string, CLI options) and returns typed values or throws an
 * INVALID_PARAMETER ApiError naming the parameter. The bounds and vocabularies here are
 * the ones the API documents.
 */

export const MIN_YEAR = 1900
export const MAX_NAME_LENGTH = 100
export const MONTHS = { min: 1, max: 24, default: 6 } as const
export const MAX_MILEAGE = 3_000_000

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

/** One of a vocabulary's values, given as any of its spellings; null when not given. */
function enumerated<T extends string>(
  get: ParamSource,
  parameter: keyof typeof REQUEST_VALUES,
  vocabulary: Vocabulary<T>,
): T | null {
  const raw = get(parameter)
  if (raw === undefined) return null
  const value = vocabulary.resolve(raw)
  if (value !== undefined) return value
  throw new ApiError('INVALID_PARAMETER', `${parameter} must be one of ${spellings(vocabulary)}`, {
    parameter,
    accepted: vocabulary.aliases,
  })
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
  const fuelType = enumerated(get, 'fuel_type', REQUEST_VALUES.fuel_type)
  const gearbox = enumerated(get, 'gearbox', REQUEST_VALUES.gearbox)
  const mileage = integer(get, 'mileage', 1, MAX_MILEAGE) ?? null
  // Spelled out: spreading the vehicle's fields into a new object cost ten times more.
  return { make, model, year, fuel_type: fuelType, gearbox, mileage }
}

export function priceHistoryParams(get: ParamSource, maxYear: number): PriceHistoryParams {
  const { make, model, year } = vehicleParams(get, maxYear)
  return { make, model, year, months: integer(get, 'months', MONTHS.min, MONTHS.max) ?? MONTHS.default }
}
