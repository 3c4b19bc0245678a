import { compact } from './normalize.js'

/**
 * The closed vocabularies of the data contract (section 3). Each value is stored in the
 * snapshot as its index in these tables, so their order is part of the snapshot format:
 * append only, and bump SCHEMA_VERSION if an entry ever moves.
 */
export const FUEL_TYPES = [
  'Benzyna',
  'Diesel',
  'Hybryda',
  'Hybryda Plug-in',
  'Elektryczny',
  'Benzyna+LPG',
  'Benzyna+CNG',
  'Wodór',
  'Etanol',
] as const
export type FuelType = (typeof FUEL_TYPES)[number]

/** English aliases per canonical fuel (contract 3.2), also the spellings the API accepts. */
export const FUEL_ALIASES: Readonly<Record<FuelType, readonly string[]>> = {
  Benzyna: ['petrol', 'gasoline'],
  Diesel: ['diesel'],
  Hybryda: ['hybrid'],
  'Hybryda Plug-in': ['phev', 'plug-in hybrid'],
  Elektryczny: ['electric', 'ev'],
  'Benzyna+LPG': ['lpg'],
  'Benzyna+CNG': ['cng'],
  Wodór: ['hydrogen'],
  Etanol: ['ethanol', 'e85'],
}

/** How a page or a chart names each fuel in English (the data's own terms are Polish). */
export const FUEL_IN_ENGLISH: Readonly<Record<FuelType, string>> = {
  Benzyna: 'petrol',
  Diesel: 'diesel',
  Hybryda: 'hybrid',
  'Hybryda Plug-in': 'plug-in hybrid',
  Elektryczny: 'electric',
  'Benzyna+LPG': 'petrol + LPG',
  'Benzyna+CNG': 'petrol + CNG',
  Wodór: 'hydrogen',
  Etanol: 'ethanol',
}

export const GEARBOXES = ['Manualna', 'Automatyczna'] as const
export type Gearbox = (typeof GEARBOXES)[number]
export const GEARBOX_ALIASES: Readonly<Record<Gearbox, readonly string[]>> = {
  Manualna: ['manual'],
  Automatyczna: ['automatic'],
}
export const GEARBOX_IN_ENGLISH: Readonly<Record<Gearbox, string>> = {
  Manualna: 'manual',
  Automatyczna: 'automatic',
}

/** The body types of contract 3.4, as Otomoto writes them; stored as their index, like the fuels. */
export const BODY_TYPES = [
  'Auta małe',
  'Auta miejskie',
  'Coupe',
  'Kabriolet',
  'Kombi',
  'Kompakt',
  'Minivan',
  'Sedan',
  'SUV',
] as const
export type BodyType = (typeof BODY_TYPES)[number]
/** English aliases per canonical body type (contract 3.4), also the spellings the API accepts. */
export const BODY_ALIASES: Readonly<Record<BodyType, readonly string[]>> = {
  'Auta małe': ['small car', 'mini'],
  'Auta miejskie': ['city car'],
  Coupe: ['coupe', 'coupé'],
  Kabriolet: ['convertible', 'cabrio', 'cabriolet', 'roadster'],
  Kombi: ['estate', 'wagon', 'station wagon', 'touring', 'avant', 'variant'],
  Kompakt: ['compact', 'hatchback'],
  Minivan: ['minivan', 'mpv', 'van'],
  Sedan: ['sedan', 'saloon', 'limousine'],
  SUV: ['suv', 'crossover', 'off-road', 'terenowy'],
}
export const BODY_IN_ENGLISH: Readonly<Record<BodyType, string>> = {
  'Auta małe': 'small car',
  'Auta miejskie': 'city car',
  Coupe: 'coupe',
  Kabriolet: 'convertible',
  Kombi: 'estate',
  Kompakt: 'compact',
  Minivan: 'minivan',
  Sedan: 'sedan',
  SUV: 'SUV',
}

/** The import statuses as the valuation factors name them (contract 5): bought in Poland, or brought in from abroad. */
export const IMPORT_STATUSES = ['Krajowy', 'Sprowadzony'] as const
export const IMPORT_STATUS_IN_ENGLISH: Readonly<Record<(typeof IMPORT_STATUSES)[number], string>> = {
  Krajowy: 'bought in Poland',
  Sprowadzony: 'imported',
}

const ENGLISH: ReadonlyMap<string, string> = new Map(
  Object.entries({ ...FUEL_IN_ENGLISH, ...GEARBOX_IN_ENGLISH, ...BODY_IN_ENGLISH, ...IMPORT_STATUS_IN_ENGLISH }),
)

/** A term of the data (a fuel, a gearbox, a body type, an import status) in English; a term it does not know, as it is. */
export function inEnglish(term: string): string {
  return ENGLISH.get(term) ?? term
}

/** A listing's condition (contract 1.2): new cars are set apart from the used-car market. */
export const CONDITIONS = ['used', 'new'] as const
export const USED = 0
export const NEW = 1
const CONDITION_ALIASES: Readonly<Record<(typeof CONDITIONS)[number], readonly string[]>> = {
  used: ['Używany', 'Używane'],
  new: ['Nowy', 'Nowe'],
}

/** The 16 voivodeships as responses name them (contract 3.3). */
export const VOIVODESHIPS = [
  'dolnośląskie',
  'kujawsko-pomorskie',
  'lubelskie',
  'lubuskie',
  'łódzkie',
  'małopolskie',
  'mazowieckie',
  'opolskie',
  'podkarpackie',
  'podlaskie',
  'pomorskie',
  'śląskie',
  'świętokrzyskie',
  'warmińsko-mazurskie',
  'wielkopolskie',
  'zachodniopomorskie',
] as const
export type Voivodeship = (typeof VOIVODESHIPS)[number]

/** Code stored for a field the listing left empty. */
export const UNKNOWN = 255

function lookupTable<T extends string>(
  canonical: readonly T[],
  aliases: Readonly<Record<T, readonly string[]>>,
): ReadonlyMap<string, number> {
  const table = new Map<string, number>()
  canonical.forEach((name, code) => {
    table.set(compact(name), code)
    for (const alias of aliases[name]) table.set(compact(alias), code)
  })
  return table
}

const fuelCodes = lookupTable(FUEL_TYPES, FUEL_ALIASES)
const gearboxCodes = lookupTable(GEARBOXES, GEARBOX_ALIASES)
const conditionCodes = lookupTable(CONDITIONS, CONDITION_ALIASES)
const bodyCodes = lookupTable(BODY_TYPES, BODY_ALIASES)
const voivodeshipCodes = new Map<string, number>(VOIVODESHIPS.map((name, code) => [compact(name), code]))

/**
 * Code of a fuel type written in Polish or English, case-, diacritic- and
 * spacing-insensitive (`wodor`, `BENZYNA + LPG`, `plug-in hybrid`); undefined when the
 * value is not one of them.
 */
export function fuelCode(value: string): number | undefined {
  return fuelCodes.get(compact(value))
}

/** Code of `Manualna`/`Automatyczna` or `manual`/`automatic`, matched like fuelCode. */
export function gearboxCode(value: string): number | undefined {
  return gearboxCodes.get(compact(value))
}

/** Code of a body type of contract 3.4 in Polish or English, matched like fuelCode. */
export function bodyTypeCode(value: string): number | undefined {
  return bodyCodes.get(compact(value))
}

/** USED or NEW for `used`/`new` or the Polish `Używany`/`Używane`/`Nowy`/`Nowe`, matched like fuelCode. */
export function conditionCode(value: string): number | undefined {
  return conditionCodes.get(compact(value))
}

/**
 * Code of a voivodeship written in any case, with or without diacritics, and with or
 * without the word "województwo" (or its abbreviation "woj.") before or after it.
 */
export function voivodeshipCode(value: string): number | undefined {
  const words = compact(value).replace(/^(wojewodztwo|woj)|wojewodztwo$/, '')
  return voivodeshipCodes.get(words)
}
