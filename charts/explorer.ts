import type {
  DepreciationData,
  LiquidityData,
  PriceHistoryData,
  RegionalData,
  ValuationData,
  ValuationFactorsData,
} from '../query/answers.js'
import { depreciationChart, describe as depreciationWords } from './depreciation-chart.js'
import { factorsChart, describe as factorsWords } from './factors-chart.js'
import { historyChart, describe as historyWords } from './history-chart.js'
import { liquidityChart, describe as liquidityWords } from './liquidity-chart.js'
import { mileageChart, describe as mileageWords } from './mileage-chart.js'
import { regionalMap, describe as regionalWords } from './regional-map.js'
import { valuationChart, describe as valuationWords } from './valuation-chart.js'

/** A chart of the page: the image (none when the answer holds nothing to draw) and its figures in words. */
export interface Drawn {
  readonly svg: string | undefined
  readonly words: string
}

function drawn<T>(chart: (data: T) => string | undefined, words: (data: T) => string): (data: unknown) => Drawn {
  return (data) => ({ svg: chart(data as T), words: words(data as T) })
}

/**
 * The charts of the explorer page (/explore), which the browser draws from the answers it
 * buys, by name: those GET /v1/chart answers, and the page's own (the mileage effect, from
 * the valuation's answer; days on market; the attribute factors).
 */
export const EXPLORER_CHARTS: Readonly<Record<string, (data: unknown) => Drawn>> = {
  valuation: drawn<ValuationData>(valuationChart, valuationWords),
  mileage: drawn<ValuationData>(mileageChart, mileageWords),
  'price-history': drawn<PriceHistoryData>(historyChart, historyWords),
  depreciation: drawn<DepreciationData>(depreciationChart, depreciationWords),
  regional: drawn<RegionalData>(regionalMap, regionalWords),
  liquidity: drawn<LiquidityData>(liquidityChart, liquidityWords),
  'valuation-factors': drawn<ValuationFactorsData>(factorsChart, factorsWords),
}
