/** What a credit is worth at list price (interface spec); the plans discount it. */
export const CREDIT_USD = 0.01

/** The credit plans, smallest first. */
export const PLANS = [
  { credits: 5_000, usd: 49 },
  { credits: 15_000, usd: 129 },
  { credits: 40_000, usd: 299 },
  { credits: 100_000, usd: 699 },
] as const

export function count(n: number): string {
  return n.toLocaleString('en-US')
}

export function dollars(usd: number): string {
  const cents = Number.isInteger(usd) ? 0 : 2
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: cents, maximumFractionDigits: cents })}`
}
