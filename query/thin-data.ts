import { count as n, counted } from '../format/amounts.js'
import { mileageWindow } from '../format/mileage-window.js'
import { MIN_LISTINGS } from '../format/schema.js'
import { ApiError } from './api-error.js'
import type { Resolution } from './name-resolver.js'
import type { ValuationParams } from './params.js'

/**
 * The INSUFFICIENT_DATA errors of the market answers: each says how many listings were
 * left and by what (the filters, the mileage window), so a caller sees which of its
 * choices to loosen. Made on the way to an error only, never for an answer.
 */

/** "Volkswagen Golf 2017": the canonical names a request resolved to. */
export function describe(resolution: Resolution, year?: number): string {
  const name = `${resolution.makes[0]} ${resolution.target.name}`
  return year === undefined ? name : `${name} ${year}`
}

function km(distance: number): string {
  return `${n(distance)} km`
}

const NEEDED = `at least ${MIN_LISTINGS} are needed`

/** "Only 7 listings of Volkswagen Golf 2017 are in the data; at least 10 are needed." */
export function insufficient(
  resolution: Resolution,
  year: number,
  sampleSize: number,
  condition = 'are in the data',
): ApiError {
  const message = `Only ${counted(sampleSize, 'listing')} of ${describe(resolution, year)} ${condition}; ${NEEDED}.`
  return new ApiError('INSUFFICIENT_DATA', message, { sample_size: sampleSize })
}

/**
 * A depreciation without a single production year of MIN_LISTINGS listings: "No production year of Volkswagen Golf
 * with fuel_type Diesel has at least 10 listings (14 listings in all years)."
 */
export function thinCurve(resolution: Resolution, fuelType: string | null, listingsInAllYears: number): ApiError {
  const fuel = fuelType === null ? '' : ` with fuel_type ${fuelType}`
  const message =
    `No production year of ${describe(resolution)}${fuel} has at least ${MIN_LISTINGS} listings ` +
    `(${counted(listingsInAllYears, 'listing')} in all years).`
  return new ApiError('INSUFFICIENT_DATA', message, { sample_size: listingsInAllYears })
}

/** What each filter of a valuation leaves: all of the key's listings, those of the fuel, those of the gearbox. */
export interface FilterCounts {
  readonly all: number
  readonly fuel: number
  readonly gearbox: number
}

/** The filters of a valuation as its answer echoes them, for the error's `filters`. */
function filters(params: ValuationParams): Record<string, unknown> {
  return { fuel_type: params.fuel_type, gearbox: params.gearbox, mileage: params.mileage }
}

/** "fuel_type Diesel and gearbox Automatyczna": the filters other than the mileage, as given. */
function filterText(params: ValuationParams): string {
  const given = [
    params.fuel_type === null ? '' : `fuel_type ${params.fuel_type}`,
    params.gearbox === null ? '' : `gearbox ${params.gearbox}`,
  ]
  return given.filter((g) => g !== '').join(' and ')
}

/**
 * A valuation whose fuel_type and gearbox filters leave too few listings:
 * "Only 3 of the 24 listings of Volkswagen Golf 2017 have fuel_type Diesel and gearbox
 * Automatyczna (12 have fuel_type Diesel, 8 gearbox Automatyczna); at least 10 are needed."
 */
export function filterMiss(
  resolution: Resolution,
  params: ValuationParams,
  sampleSize: number,
  counts: FilterCounts,
): ApiError {
  const each =
    params.fuel_type !== null && params.gearbox !== null
      ? ` (${n(counts.fuel)} have fuel_type ${params.fuel_type}, ${n(counts.gearbox)} gearbox ${params.gearbox})`
      : ''
  const left = sampleSize === 0 ? 'None' : `Only ${n(sampleSize)}`
  const have = `${sampleSize <= 1 ? 'has' : 'have'} ${filterText(params)}${each}`
  const message = `${left} of the ${counted(counts.all, 'listing')} of ${describe(resolution, params.year)} ${have}; ${NEEDED}.`
  return new ApiError('INSUFFICIENT_DATA', message, { sample_size: sampleSize, filters: filters(params) })
}

/** The listings with a known mileage that the other filters keep, and their lowest and highest mileage. */
export interface KnownMileages {
  readonly count: number
  readonly min: number
  readonly max: number
}

/**
 * A valuation whose mileage window leaves too few listings: "No listings of Volkswagen
 * Golf 2017 are within ±30 % of 900,000 km (630,000–1,170,000 km); at least 10 are needed.
 * Of its listings, 24 have a known mileage, from 80,000 km to 195,000 km."
 */
export function mileageMiss(
  resolution: Resolution,
  params: ValuationParams,
  mileage: number,
  sampleSize: number,
  known: KnownMileages,
): ApiError {
  const window = mileageWindow(mileage)
  const other = filterText(params)
  const narrowed = other === '' ? '' : ` with ${other}`
  const left = sampleSize === 0 ? 'No listings' : `Only ${counted(sampleSize, 'listing')}`
  const range = `${n(window.from)}–${km(window.to)}`
  const within = `${sampleSize === 1 ? 'is' : 'are'} within ±30 % of ${km(mileage)} (${range})`
  const spread =
    known.count === 0
      ? `None of its listings${narrowed} has a known mileage.`
      : `Of its listings${narrowed}, ${n(known.count)} ${known.count === 1 ? 'has' : 'have'} a known mileage, ` +
        `from ${km(known.min)} to ${km(known.max)}.`
  return new ApiError(
    'INSUFFICIENT_DATA',
    `${left} of ${describe(resolution, params.year)}${narrowed} ${within}; ${NEEDED}. ${spread}`,
    { sample_size: sampleSize, filters: filters(params), mileage_window: window },
  )
}
