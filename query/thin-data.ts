import { count as n, counted } from '../format/amounts.js'
import { mileageWindow } from '../format/mileage-window.js'
import { powerWindow } from '../format/power-window.js'
import { MIN_LISTINGS, type Target } from '../format/schema.js'
import { BODY_TYPES, FUEL_TYPES, GEARBOXES, UNKNOWN } from '../format/vocabulary.js'
import { ApiError } from './api-error.js'
import type { Narrowing } from './narrowing.js'
import type { ValuationParams } from './params.js'

/**
 * The INSUFFICIENT_DATA errors of the market answers: each says how many listings were
 * left and by what (the filters, the mileage window), so a caller sees which of its
 * choices to loosen. Made on the way to an error only, never for an answer.
 */

/** What a message names: the resolved make and the key answering. */
export interface Described {
  readonly makes: readonly string[]
  readonly target: Target
}

/** "Volkswagen Golf 2017": the canonical names a request resolved to. */
export function describe(resolution: Described, year?: number): string {
  const name = `${resolution.makes[0]} ${resolution.target.name}`
  return year === undefined ? name : `${name} ${year}`
}

function km(distance: number): string {
  return `${n(distance)} km`
}

const NEEDED = `at least ${MIN_LISTINGS} are needed`

/** "Only 7 listings of Volkswagen Golf 2017 are in the data; at least 10 are needed." */
export function insufficient(
  resolution: Described,
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
export function thinCurve(resolution: Described, fuelType: string | null, listingsInAllYears: number): ApiError {
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
  const { fuel_type, gearbox, body_type, version, power_hp, mileage } = params
  return { fuel_type, gearbox, body_type, version, power_hp, mileage }
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
  resolution: Described,
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
  resolution: Described,
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

/**
 * A narrowed question (contract 4.1) that leaves too few listings: "Only 4 of the 2,629
 * listings of Volkswagen Golf 2017 have the version words GTI and fuel_type Benzyna;
 * at least 10 are needed." With version words, `suggestions` names the key's most listed
 * versions (rule 4). A valuation's mileage window is told apart: what the other filters
 * kept, and how many of those it keeps.
 */
export function narrowMiss(
  resolution: Described,
  year: number | undefined,
  sampleSize: number,
  total: number | undefined,
  narrowing: Narrowing,
  suggestions: readonly string[],
  window?: { readonly mileage: number; readonly before: number },
): ApiError {
  const what = narrowingText(narrowing)
  const of =
    total === undefined
      ? `of ${describe(resolution, year)}`
      : `of the ${counted(total, 'listing')} of ${describe(resolution, year)}`
  const inAll = year === undefined ? ' in any production year' : ''
  let message: string
  if (window === undefined) {
    const left = sampleSize === 0 ? 'None' : `Only ${n(sampleSize)}`
    message = `${left} ${of} ${sampleSize <= 1 ? 'has' : 'have'} ${what}${inAll}; ${NEEDED}.`
  } else {
    const range = mileageWindow(window.mileage)
    message =
      `Of the listings ${of} with ${what}, ${n(window.before)} ${window.before === 1 ? 'is' : 'are'} left, ` +
      `${n(sampleSize)} of them within ±30 % of ${km(window.mileage)} (${n(range.from)}–${km(range.to)}); ${NEEDED}.`
  }
  const extra: Record<string, unknown> = { sample_size: sampleSize }
  if (suggestions.length > 0) {
    extra.suggestions = suggestions
    message += ` Versions in the data include ${suggestions.map((s) => JSON.stringify(s)).join(', ')}.`
  }
  return new ApiError('INSUFFICIENT_DATA', message, extra)
}

/** "the version words GTI, fuel_type Benzyna and power_hp 150 (135–165 KM)": what a narrowing asks for. */
function narrowingText(narrowing: Narrowing): string {
  const parts: string[] = []
  if (narrowing.versionWords.length > 0)
    parts.push(`the version word${narrowing.versionWords.length === 1 ? '' : 's'} ${narrowing.versionWords.join(' ')}`)
  if (narrowing.fuel !== UNKNOWN) parts.push(`fuel_type ${FUEL_TYPES[narrowing.fuel]}`)
  if (narrowing.gearbox !== UNKNOWN) parts.push(`gearbox ${GEARBOXES[narrowing.gearbox]}`)
  if (narrowing.scanBody !== UNKNOWN) parts.push(`body_type ${BODY_TYPES[narrowing.scanBody]}`)
  if (narrowing.power !== null) {
    const window = powerWindow(narrowing.power)
    parts.push(`power_hp ${narrowing.power} (${window.from}–${window.to} KM)`)
  }
  return parts.length <= 1 ? (parts[0] ?? 'what was asked') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`
}
