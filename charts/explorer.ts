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
import {
  depreciationTakeaway,
  factorsTakeaway,
  historyTakeaway,
  liquidityTakeaway,
  mileageTakeaway,
  regionalTakeaway,
  valuationTakeaway,
} from './takeaways.js'
import { valuationChart, describe as valuationWords } from './valuation-chart.js'

/**
 * What the page knows beyond an answer: the production year asked about (which the
 * depreciation curve does not take), and the width the chart is drawn for.
 */
export interface Asked {
  readonly year: number | undefined
  readonly width: number | undefined
}

/**
 * A chart of the page: the image (none when the answer holds nothing to draw), its one-line
 * takeaway, and its figures in words.
 */
export interface Drawn {
  readonly svg: string | undefined
  readonly takeaway: string
  readonly words: string
}

function drawn<T>(
  chart: (data: T, asked: Asked) => string | undefined,
  takeaway: (data: T, asked: Asked) => string,
  words: (data: T) => string,
): (data: unknown, asked: Asked) => Drawn {
  return (data, asked) => ({
    svg: chart(data as T, asked),
    takeaway: takeaway(data as T, asked),
    words: words(data as T),
  })
}

/**
 * The charts of the explorer page (/explore), which the browser draws from the answers it
 * buys, by name: those GET /v1/chart answers, and the page's own (the mileage effect, from
 * the valuation's answer; days on market; the attribute factors).
 */
export const EXPLORER_CHARTS: Readonly<Record<string, (data: unknown, asked: Asked) => Drawn>> = {
  valuation: drawn<ValuationData>((d, a) => valuationChart(d, a.width), valuationTakeaway, valuationWords),
  mileage: drawn<ValuationData>((d, a) => mileageChart(d, a.width), mileageTakeaway, mileageWords),
  'price-history': drawn<PriceHistoryData>((d, a) => historyChart(d, a.width), historyTakeaway, historyWords),
  depreciation: drawn<DepreciationData>(
    (d, a) => depreciationChart(d, a.year, a.width),
    (d, a) => depreciationTakeaway(d, a.year),
    depreciationWords,
  ),
  regional: drawn<RegionalData>((d, a) => regionalMap(d, a.width), regionalTakeaway, regionalWords),
  liquidity: drawn<LiquidityData>((d, a) => liquidityChart(d, a.width), liquidityTakeaway, liquidityWords),
  'valuation-factors': drawn<ValuationFactorsData>((d, a) => factorsChart(d, a.width), factorsTakeaway, factorsWords),
}
