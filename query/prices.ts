import type { Operation } from '../format/schema.js'

/** What each market operation costs in credits (interface spec, "Limits"); a failed call costs none. */
export const OPERATION_CREDITS: Readonly<Record<Operation, number>> = {
  valuation: 8,
  'price-history': 10,
  liquidity: 6,
  'valuation-factors': 12,
  regional: 8,
  depreciation: 10,
}

/** Keyless market calls per client address per UTC day, unless the operator sets another quota. */
export const DEMO_QUOTA = 5

/** The credits an account opened by registration starts with. */
export const SIGNUP_CREDITS = 50

/** What a credit is worth at list price (interface spec); the plans discount it. */
export const CREDIT_USD = 0.01

/** The credit plans, smallest first. */
export const PLANS = [
  { credits: 5_000, usd: 49 },
  { credits: 15_000, usd: 129 },
  { credits: 40_000, usd: 299 },
  { credits: 100_000, usd: 699 },
] as const

/** The currency the plans are sold in, as a payment provider names it (ISO 4217, lower case). */
export const PLAN_CURRENCY = 'usd'

/** What a plan costs in the smallest unit of PLAN_CURRENCY (cents), as a payment is charged. */
export function planAmount(plan: { readonly usd: number }): number {
  return Math.round(plan.usd * 100)
}
