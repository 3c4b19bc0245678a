import { MAX_DETAIL_TEXT, MAX_MILEAGE, MIN_YEAR, POWER_HP } from '../format/bounds.js'
import { normalize } from '../format/normalize.js'
import { HISTORY_MONTHS } from '../format/schema.js'
import type { BodyType, FuelType, Gearbox } from '../format/vocabulary.js'
import { ApiError, invalidParameter, unknownParameter } from './api-error.js'
import { REQUEST_VALUES, spellings, type Vocabulary } from './value-aliases.js'

/**
 * Guards for the parameters of the market operations: each takes the raw values of a
 * request (a query string, CLI options, the object a program passes) and returns typed
 * values or throws an INVALID_PARAMETER ApiError naming the parameter. The bounds and
 * vocabularies here are the ones the API documents; those the build shares are in
 * format/bounds.ts.
 */

export const MAX_NAME_LENGTH = 100
export const MONTHS = { min: 1, max: HISTORY_MONTHS, default: 6 } as const
/** An asking price to place in the market, in whole PLN. */
export const ASKING_PRICE = { min: 1, max: 10_000_000 } as const

export interface VehicleParams {
  readonly make: string
  readonly model: string
  readonly year: number
}
/** What narrows a question beside its names (contract 4.1): null where not given. */
export interface DetailFilters {
  readonly fuel_type: FuelType | null
  readonly gearbox: Gearbox | null
  readonly body_type: BodyType | null
  /** Free text, matched word by word against the listings' versions and generations. */
  readonly version: string | null
  readonly power_hp: number | null
}
export interface ValuationParams extends VehicleParams, DetailFilters {
  readonly mileage: number | null
  readonly asking_price: number | null
}
/** A model across its production years. */
export interface DepreciationParams extends DetailFilters {
  readonly make: string
  readonly model: string
}
export interface PriceHistoryParams extends VehicleParams {
  readonly months: number
}

/**
 * A market question as a program gives it (the embedding API): the parameters a query
 * string would carry, by the same names, with numbers or their digits for the integers.
 * An optional parameter may be left out, undefined or null.
 */
export interface VehicleFields {
  readonly make: string
  readonly model: string
  readonly year: number | string
}
export interface DetailFields {
  readonly fuel_type?: string | null
  readonly gearbox?: string | null
  readonly body_type?: string | null
  readonly version?: string | null
  readonly power_hp?: number | string | null
}
export interface ValuationFields extends VehicleFields, DetailFields {
  readonly mileage?: number | string | null
  readonly asking_price?: number | string | null
}
export interface DepreciationFields extends DetailFields {
  readonly make: string
  readonly model: string
}
export interface PriceHistoryFields extends VehicleFields {
  readonly months?: number | string | null
}

/**
 * Reads one parameter's raw value; undefined (or null) when the request does not have
 * it. A query string or CLI options give text; a program (the embedding API) may give a
 * number for an integer too. Whatever else it gives is refused by that parameter's guard.
 */
export type ParamSource = (name: string) => unknown

// Control characters never belong in a name and would end up in logs and error bodies.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u
const INTEGER = /^[0-9]+$/

function given(get: ParamSource, parameter: string): unknown {
  const raw = get(parameter)
  return raw === null ? undefined : raw
}

/** "a number", "an array": what a value of the wrong type is, for a message that never repeats it. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  if (value === null || value === undefined) return String(value)
  const type = typeof value
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}

/** A make or model as a request names it: trimmed, of a sane length, without control characters. */
export function name(get: ParamSource, parameter: 'make' | 'model'): string {
  const value = text(get, parameter, MAX_NAME_LENGTH)
  if (value === undefined) throw invalidParameter(parameter, `${parameter} is required`)
  return value
}

/** A free text (a name, a version): trimmed, not empty, of at most `max` characters, without control characters. */
function text(get: ParamSource, parameter: string, max: number): string | undefined {
  const raw = given(get, parameter)
  if (raw === undefined) return undefined
  if (typeof raw !== 'string') throw invalidParameter(parameter, `${parameter} must be a string, not ${kindOf(raw)}`)
  const value = raw.trim()
  if (value === '') throw invalidParameter(parameter, `${parameter} must not be empty`)
  if (value.length > max) throw invalidParameter(parameter, `${parameter} must be at most ${max} characters`)
  if (CONTROL.test(value)) throw invalidParameter(parameter, `${parameter} must not contain control characters`)
  return value
}

/** A version: text whose words (letters and digits) are matched, so it must hold one. */
function versionParam(get: ParamSource): string | null {
  const value = text(get, 'version', MAX_DETAIL_TEXT)
  if (value === undefined) return null
  if (normalize(value) === '') throw invalidParameter('version', 'version must hold a letter or a digit')
  return value
}

function integer(get: ParamSource, parameter: string, min: number, max: number): number | undefined {
  const raw = given(get, parameter)
  if (raw === undefined) return undefined
  const text = typeof raw === 'string' ? raw.trim() : ''
  const value = typeof raw === 'number' ? raw : INTEGER.test(text) && text.length <= 9 ? Number(text) : Number.NaN
  if (Number.isInteger(value) && value >= min && value <= max) return value
  const type = typeof raw === 'string' || typeof raw === 'number' ? '' : `, not ${kindOf(raw)}`
  throw invalidParameter(parameter, `${parameter} must be an integer from ${min} to ${max}${type}`)
}

/** One of a vocabulary's values, given as any of its spellings; null when not given. */
function enumerated<T extends string>(
  get: ParamSource,
  parameter: keyof typeof REQUEST_VALUES,
  vocabulary: Vocabulary<T>,
): T | null {
  const raw = given(get, parameter)
  if (raw === undefined) return null
  const value = typeof raw === 'string' ? vocabulary.resolve(raw) : undefined
  if (value !== undefined) return value
  const type = typeof raw === 'string' ? '' : ` (a string, not ${kindOf(raw)})`
  throw new ApiError('INVALID_PARAMETER', `${parameter} must be one of ${spellings(vocabulary)}${type}`, {
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
  const bodyType = enumerated(get, 'body_type', REQUEST_VALUES.body_type)
  const version = versionParam(get)
  const power = integer(get, 'power_hp', POWER_HP.min, POWER_HP.max) ?? null
  const mileage = integer(get, 'mileage', 1, MAX_MILEAGE) ?? null
  const askingPrice = integer(get, 'asking_price', ASKING_PRICE.min, ASKING_PRICE.max) ?? null
  // Spelled out: spreading the vehicle's fields into a new object cost ten times more.
  return {
    make,
    model,
    year,
    fuel_type: fuelType,
    gearbox,
    body_type: bodyType,
    version,
    power_hp: power,
    mileage,
    asking_price: askingPrice,
  }
}

export function depreciationParams(get: ParamSource): DepreciationParams {
  const make = name(get, 'make')
  const model = name(get, 'model')
  return {
    make,
    model,
    fuel_type: enumerated(get, 'fuel_type', REQUEST_VALUES.fuel_type),
    gearbox: enumerated(get, 'gearbox', REQUEST_VALUES.gearbox),
    body_type: enumerated(get, 'body_type', REQUEST_VALUES.body_type),
    version: versionParam(get),
    power_hp: integer(get, 'power_hp', POWER_HP.min, POWER_HP.max) ?? null,
  }
}

export function priceHistoryParams(get: ParamSource, maxYear: number): PriceHistoryParams {
  const { make, model, year } = vehicleParams(get, maxYear)
  return { make, model, year, months: integer(get, 'months', MONTHS.min, MONTHS.max) ?? MONTHS.default }
}

/**
 * The ParamSource of the object a program passes: a field left out, undefined or null is
 * not given. A field the operation does not take (one not in `known`) is refused as a
 * query string's unknown parameter is, unless it is not given either, so one object of
 * valuation fields with the filters null serves every operation.
 *
 * @example
 * const fields = { make: 'VW', model: 'Golf', year: '2017', gearbox: 'auto' }
 * valuationParams(fieldSource(fields, OPERATION_SPECS.valuation.parameters), snapshot.maxYear)
 * // { make: 'VW', model: 'Golf', year: 2017, fuel_type: null, gearbox: 'Automatyczna', body_type: null,
 * //   version: null, power_hp: null, mileage: null, asking_price: null }
 */
export function fieldSource(fields: unknown, known: readonly string[]): ParamSource {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    const example = "{ make: 'VW', model: 'Golf', year: 2017 }"
    const message = `The parameters must be an object such as ${example}, not ${kindOf(fields)}.`
    throw new ApiError('INVALID_PARAMETER', message)
  }
  const values = new Map(Object.entries(fields))
  for (const [key, value] of values) {
    if (!known.includes(key) && value !== undefined && value !== null) throw unknownParameter(key, known)
  }
  return (name) => values.get(name)
}
