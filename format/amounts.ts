/** Numbers as the service's texts write them (pages, messages, charts): 1,170,000. */
export function count(n: number): string {
  return n.toLocaleString('en-US')
}

/** A price in US dollars, cents only when there are some: $9, $4.50. */
export function dollars(usd: number): string {
  const cents = Number.isInteger(usd) ? 0 : 2
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: cents, maximumFractionDigits: cents })}`
}
