import type { FactorEntry, Quartiles, RegionEntry } from '../format/schema.js'
import type { FuelType, Gearbox } from '../format/vocabulary.js'
import type { MatchType } from './name-resolver.js'

/** The `data` of each market answer, as the HTTP API returns it (less the credit fields). */

export interface Matched {
  readonly makes: readonly string[]
  readonly models: readonly string[]
  readonly match_type: MatchType
}

export interface MarketData {
  /** The make and model as the request gave them; `matched` has the canonical names. */
  readonly make: string
  readonly model: string
  readonly year: number
  readonly matched: Matched
}

export interface ValuationData extends MarketData {
  readonly currency: 'PLN'
  readonly filters: {
    readonly fuel_type: FuelType | null
    readonly gearbox: Gearbox | null
    readonly mileage: number | null
  }
  readonly valuation: Quartiles
  readonly sample_size: number
}

export interface TrendPoint {
  readonly month: string
  readonly avg_price: number
  readonly sample_size: number
}
export interface PriceHistoryData extends MarketData {
  readonly currency: 'PLN'
  readonly months_requested: number
  readonly trend: readonly TrendPoint[]
}

export interface LiquidityData extends MarketData {
  readonly estimated_days_on_market: number
  readonly observed_listing_span: number
  readonly active_listings: number
  readonly sample_size: number
  readonly note: string
}

export interface ValuationFactorsData extends MarketData {
  readonly currency: 'PLN'
  readonly total_sample_size: number
  readonly factors: readonly FactorEntry[]
}

export interface RegionalData extends MarketData {
  readonly currency: 'PLN'
  readonly national_average: number
  readonly total_sample_size: number
  readonly regions: readonly RegionEntry[]
}
