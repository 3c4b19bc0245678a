import type { Confidence, FactorEntry, Quartiles, RegionEntry } from '../format/schema.js'
import type { BodyType, FuelType, Gearbox } from '../format/vocabulary.js'
import type { MatchType } from './name-resolver.js'

/** The `data` of each market answer, as the HTTP API returns it (less the credit fields). */

/** How the names resolved (contract 4), and what narrowed the answer (4.1). */
export interface Matched {
  readonly makes: readonly string[]
  readonly models: readonly string[]
  readonly match_type: MatchType
  /** The filters applied, from the parameters or the words of the model; null for none. */
  readonly fuel_type: FuelType | null
  readonly gearbox: Gearbox | null
  readonly body_type: BodyType | null
  /** The words that narrowed the listings to those whose version or generation holds them. */
  readonly version_words: readonly string[]
  /** Words of the model the answer did not apply (`match_type` is then `broader`). */
  readonly unresolved: readonly string[]
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
    readonly body_type: BodyType | null
    readonly version: string | null
    readonly power_hp: number | null
    readonly mileage: number | null
  }
  readonly valuation: Quartiles
  readonly sample_size: number
  /** The median's distribution-free interval (contract 5.1). */
  readonly confidence: Confidence
  /** Null with fewer than 10 listings of a known mileage, or all of one mileage (contract 5.2). */
  readonly mileage_effect: { readonly pct_per_10000_km: number; readonly sample_size: number } | null
  /** With a mileage, the median of every listing moved to it (contract 5.3); null without one or without a fit. */
  readonly adjusted: { readonly mileage: number; readonly median: number; readonly sample_size: number } | null
  /** Where an asking price sits (contract 5.4); null when none was given. */
  readonly asking_price: {
    readonly price: number
    readonly percentile: number
    readonly verdict: 'below_market' | 'fair' | 'above_market'
  } | null
}

/** A model's (or family's) medians by production year (contract 5.5). */
export interface DepreciationData {
  readonly make: string
  readonly model: string
  readonly matched: Matched
  readonly currency: 'PLN'
  readonly curve: readonly { readonly year: number; readonly median: number; readonly sample_size: number }[]
  readonly annual_change_pct: number | null
}

/** The catalogue (contract 5.6). */
export interface CatalogMakesData {
  readonly makes: readonly { readonly make: string; readonly listings: number }[]
}
export interface CatalogModelsData {
  readonly make: string
  readonly matched: { readonly makes: readonly string[]; readonly match_type: MatchType }
  readonly models: readonly {
    readonly model: string
    readonly listings: number
    readonly years: readonly number[]
    readonly families: readonly string[]
  }[]
}

/** What the listings of a make, model and year say of their cars: their versions, generations and body types. */
export interface CatalogVersionsData extends MarketData {
  /** The key's listings. */
  readonly listings: number
  /** Each version, most listed first, as the listings most often write it. */
  readonly versions: readonly { readonly version: string; readonly listings: number }[]
  readonly generations: readonly { readonly generation: string; readonly listings: number }[]
  readonly body_types: readonly { readonly body_type: BodyType; readonly listings: number }[]
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
