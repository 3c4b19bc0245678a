import type { Operation } from '../format/schema.js'
import type { MarketData } from './answers.js'
import {
  depreciationParams,
  priceHistoryParams,
  valuationParams,
  vehicleParams,
  type DepreciationParams,
  type ParamSource,
  type PriceHistoryParams,
  type ValuationParams,
  type VehicleParams,
} from './params.js'
import { OPERATION_CREDITS } from './prices.js'
import type { Snapshot } from './snapshot.js'

/** What each market operation takes (interface spec, "Endpoints") and costs (prices.ts). */
export const OPERATION_SPECS: Readonly<
  Record<Operation, { readonly parameters: readonly string[]; readonly credits: number }>
> = {
  valuation: {
    parameters: [
      'make',
      'model',
      'year',
      'fuel_type',
      'gearbox',
      'body_type',
      'version',
      'power_hp',
      'mileage',
      'asking_price',
    ],
    credits: OPERATION_CREDITS.valuation,
  },
  'price-history': { parameters: ['make', 'model', 'year', 'months'], credits: OPERATION_CREDITS['price-history'] },
  liquidity: { parameters: ['make', 'model', 'year'], credits: OPERATION_CREDITS.liquidity },
  'valuation-factors': { parameters: ['make', 'model', 'year'], credits: OPERATION_CREDITS['valuation-factors'] },
  regional: { parameters: ['make', 'model', 'year'], credits: OPERATION_CREDITS.regional },
  depreciation: {
    parameters: ['make', 'model', 'fuel_type', 'gearbox', 'body_type', 'version', 'power_hp'],
    credits: OPERATION_CREDITS.depreciation,
  },
}

/** A market question with its parameters guarded and typed. */
export type MarketRequest =
  | { readonly operation: 'valuation'; readonly params: ValuationParams }
  | { readonly operation: 'price-history'; readonly params: PriceHistoryParams }
  | { readonly operation: 'liquidity' | 'valuation-factors' | 'regional'; readonly params: VehicleParams }
  | { readonly operation: 'depreciation'; readonly params: DepreciationParams }

/**
 * Guards one operation's parameters, given as raw text by their API names (a query
 * string, CLI options); throws INVALID_PARAMETER naming the first bad one.
 */
export function marketRequest(operation: Operation, get: ParamSource, maxYear: number): MarketRequest {
  switch (operation) {
    case 'valuation':
      return { operation, params: valuationParams(get, maxYear) }
    case 'price-history':
      return { operation, params: priceHistoryParams(get, maxYear) }
    case 'depreciation':
      return { operation, params: depreciationParams(get) }
    default:
      return { operation, params: vehicleParams(get, maxYear) }
  }
}

/** Answers a guarded market question from a snapshot. */
export function answer(snapshot: Snapshot, request: MarketRequest): MarketData {
  return JSON.parse(answerJson(snapshot, request)) as MarketData
}

/** The answer as JSON text, as the HTTP API sends it (without the credit fields). */
export function answerJson(snapshot: Snapshot, request: MarketRequest): string {
  switch (request.operation) {
    case 'valuation':
      return snapshot.valuationJson(request.params)
    case 'price-history':
      return snapshot.priceHistoryJson(request.params)
    case 'liquidity':
      return snapshot.liquidityJson(request.params)
    case 'valuation-factors':
      return snapshot.valuationFactorsJson(request.params)
    case 'regional':
      return snapshot.regionalJson(request.params)
    case 'depreciation':
      return snapshot.depreciationJson(request.params)
  }
}
