import type { DepreciationData, PriceHistoryData, RegionalData, ValuationData } from '../query/answers.js'
import { depreciationChart } from './depreciation-chart.js'
import { historyChart } from './history-chart.js'
import { regionalMap } from './regional-map.js'
import { valuationChart } from './valuation-chart.js'

/** The market operations drawn as charts, each from its own answer (GET /v1/chart/{name}.svg). */
export const CHARTS = {
  valuation: (data: unknown) => valuationChart(data as ValuationData),
  'price-history': (data: unknown) => historyChart(data as PriceHistoryData),
  depreciation: (data: unknown) => depreciationChart(data as DepreciationData),
  regional: (data: unknown) => regionalMap(data as RegionalData),
} as const

export type ChartName = keyof typeof CHARTS
export const CHART_NAMES = Object.keys(CHARTS) as ChartName[]
