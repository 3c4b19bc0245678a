import { roundHalfAway } from './figures.js'
import type { CurvePoint } from './schema.js'

/** Fewer points than this give no annual change (contract 5.5). */
const MIN_POINTS = 3

/** 100 (exp(s) - 1), one decimal, s the least-squares slope of ln(median) on year; null below MIN_POINTS points. */
export function annualChangePct(points: readonly CurvePoint[]): number | null {
  const n = points.length
  if (n < MIN_POINTS) return null
  let sumX = 0
  let sumY = 0
  for (const p of points) {
    sumX += p.year
    sumY += Math.log(p.median)
  }
  const meanX = sumX / n
  const meanY = sumY / n
  let sxy = 0
  let sxx = 0
  for (const p of points) {
    sxy += (p.year - meanX) * (Math.log(p.median) - meanY)
    sxx += (p.year - meanX) ** 2
  }
  return roundHalfAway(100 * (Math.exp(sxy / sxx) - 1), 1)
}
