import { FUEL_TYPES, VOIVODESHIPS, type FuelType } from '../format/vocabulary.js'
import type { MakeSpec, ModelSpec } from './catalogue.js'
import type { Random } from './random.js'
import { ValueCurve } from './value-curve.js'

/**
 * How a sample listing's figures are drawn: prices on the model's value curve
 * (value-curve.ts) with a spread whose interquartile range is 10-25% of the median, new
 * cars at dealer prices, mileage growing about 17,500 km a year, as the reference figures
 * of the Polish market show (../shared/design/market-reference.md).
 */

/** Price of each fuel relative to petrol for the same car. */
const FUEL_FACTOR: Record<FuelType, number> = {
  Benzyna: 1,
  Diesel: 1.05,
  Hybryda: 1.12,
  'Hybryda Plug-in': 1.2,
  Elektryczny: 1.15,
  'Benzyna+LPG': 0.88,
  'Benzyna+CNG': 0.9,
  Wodór: 1,
  Etanol: 0.95,
}
const AUTOMATIC_FACTOR = 1.1
/** About the mean months since first sighting over a sample's listings. */
const TYPICAL_MONTHS_AGO = 7
const IMPORTED_FACTOR = 0.93

/** Share of listings per voivodeship (about the population's) and its price level. */
export const REGIONS: readonly { readonly share: number; readonly factor: number }[] = VOIVODESHIPS.map((name) => {
  const table: Record<string, [number, number]> = {
    dolnośląskie: [8, 1.02],
    'kujawsko-pomorskie': [5, 0.98],
    lubelskie: [5, 0.96],
    lubuskie: [2.5, 0.97],
    łódzkie: [6, 0.99],
    małopolskie: [9, 1.03],
    mazowieckie: [16, 1.06],
    opolskie: [2.5, 0.97],
    podkarpackie: [5, 0.96],
    podlaskie: [3, 0.96],
    pomorskie: [6, 1.02],
    śląskie: [12, 1],
    świętokrzyskie: [3, 0.95],
    'warmińsko-mazurskie': [3, 0.96],
    wielkopolskie: [10, 1.01],
    zachodniopomorskie: [4, 0.99],
  }
  const [share, factor] = table[name]!
  return { share, factor }
})
const REGION_SHARES = REGIONS.map((r) => r.share)

/** What one model's listings are drawn from, prepared once per model. */
export class ModelDraw {
  readonly fuelWeights: number[]
  private readonly curve: ValueCurve
  /** Divides out the mix of fuels and gearboxes (and of imports, for used cars), so a model-year's median lands on the curve. */
  private readonly versionLevel: number
  private readonly mixLevel: number

  constructor(
    readonly make: MakeSpec,
    readonly model: ModelSpec,
  ) {
    this.fuelWeights = FUEL_TYPES.map((f) => model.fuels[f] ?? 0)
    this.curve = new ValueCurve(make, model)
    const total = this.fuelWeights.reduce((s, w) => s + w, 0)
    const fuelLevel = FUEL_TYPES.reduce((s, f, i) => s + (this.fuelWeights[i]! / total) * FUEL_FACTOR[f], 0)
    const gearLevel = 1 + model.automatic * (AUTOMATIC_FACTOR - 1)
    const importLevel = 1 + importedShare(make.premium, 8, false) * (IMPORTED_FACTOR - 1)
    this.versionLevel = fuelLevel * gearLevel
    this.mixLevel = this.versionLevel * importLevel
  }

  fuel(random: Random): FuelType {
    return FUEL_TYPES[random.weighted(this.fuelWeights)]!
  }

  /**
   * Kilometres of a used car: about 17,500 a year with a wide spread, a few thousand for
   * one of the current year, never under the 1,000 km below which the build would take a
   * car that does not give its condition for new (contract 1.2).
   */
  mileage(random: Random, age: number): number {
    const expected = Math.max(3000, age * 17_500)
    return Math.max(1000, Math.round(random.logNormal(expected, 0.3) / 100) * 100)
  }

  /** A new car's odometer: delivery kilometres, 0 to 100. */
  newMileage(random: Random): number {
    return random.chance(0.4) ? 0 : random.pick(DELIVERY_KM)
  }

  imported(random: Random, age: number, isNew: boolean): boolean {
    return random.chance(importedShare(this.make.premium, age, isNew))
  }

  region(random: Random): number {
    return random.weighted(REGION_SHARES)
  }

  /**
   * An asking price: the model's curve for its age, the listing's attributes, the
   * months since it was first seen (prices drift down about 1% a month) and a
   * log-normal spread, rounded the way sellers round.
   */
  price(
    random: Random,
    listing: {
      age: number
      fuel: FuelType
      automatic: boolean
      imported: boolean
      region: number
      mileage: number
      monthsAgo: number
    },
  ): number {
    const expectedMileage = Math.max(3000, listing.age * 17_500)
    const p =
      (this.model.newPrice / this.mixLevel) *
      this.curve.at(listing.age) *
      FUEL_FACTOR[listing.fuel] *
      (listing.automatic ? AUTOMATIC_FACTOR : 1) *
      (listing.imported ? IMPORTED_FACTOR : 1) *
      REGIONS[listing.region]!.factor *
      mileageFactor(listing.mileage - expectedMileage, listing.age, this.make.premium) *
      // Centred on the typical age of a listing in the pool, so the pooled median stays on the curve.
      Math.exp(0.01 * (listing.monthsAgo - TYPICAL_MONTHS_AGO)) *
      random.logNormal(1, 0.16)
    return askingPrice(random, Math.max(1500, p))
  }

  /**
   * A new car's price: the dealer's list price of its version, whatever its age, with the
   * narrower spread of trims and discounts (dealers do not haggle in their listings).
   */
  dealerPrice(random: Random, listing: { fuel: FuelType; automatic: boolean; region: number }): number {
    const p =
      ((this.model.newPrice * this.curve.dealer) / this.versionLevel) *
      FUEL_FACTOR[listing.fuel] *
      (listing.automatic ? AUTOMATIC_FACTOR : 1) *
      REGIONS[listing.region]!.factor *
      random.logNormal(1, 0.08)
    return askingPrice(random, p)
  }
}

const DELIVERY_KM = [1, 2, 5, 5, 10, 10, 15, 20, 25, 50, 50, 80, 100]

/**
 * What a car's kilometres beyond (or short of) its age's typical ones do to its price: a
 * steady share per 10,000 km, as the service's mileage effect reads it (contract 5.2). On
 * real Otomoto exports the 50 most listed keys aged 3-12 lose a median 1.75 % per 10,000
 * km (10th-90th percentile of keys 2.35-0.77), mass-market cars about 2 % (Opel, 2025),
 * premium long-distance cars about 0.7 % (Audi, 2024), and older cars less as their price
 * is more their condition's (../shared/design/market-reference.md). Here: 2.7 % for a
 * mass-market car of up to 4 years, 0.8 % for a premium one, less by 7 % of it for each
 * year past 4, down to 45 % of it; test/sample-realism.test.ts holds the result to the
 * real figures.
 */
function mileageFactor(beyond: number, age: number, premium: boolean): number {
  const pctPer10000Km = (premium ? 0.8 : 2.7) * (age <= 4 ? 1 : Math.max(0.45, 1 - 0.07 * (age - 4)))
  return Math.exp((-pctPer10000Km / 100 / 10_000) * beyond)
}

/** Imported cars are about half of the used ones, more of older and of premium cars; few new ones are. */
function importedShare(premium: boolean, age: number, isNew: boolean): number {
  if (isNew) return 0.03
  if (age <= 2) return 0.2
  return premium ? 0.62 : 0.5
}

/** Sellers ask round figures: 45,900 or 46,000 rather than 45,873. */
export function askingPrice(random: Random, p: number): number {
  if (p < 20_000) return Math.round(p / 100) * 100
  return random.chance(0.5) ? Math.round(p / 1000) * 1000 - 100 : Math.round(p / 500) * 500
}

/**
 * Relative number of listings of a model by age: mass-market cars peak at about nine years
 * and few are listed past 25 (about 5%), so their oldest years have a handful of listings
 * each; premium ones are flatter.
 */
export function ageWeight(age: number, premium: boolean): number {
  const a = age + 1
  return premium ? a ** 0.6 * Math.exp(-a / 14) : a ** 3 * Math.exp(-a / 3.3)
}
