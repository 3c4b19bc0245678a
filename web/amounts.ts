export function count(n: number): string {
  return n.toLocaleString('en-US')
}

export function dollars(usd: number): string {
  const cents = Number.isInteger(usd) ? 0 : 2
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: cents, maximumFractionDigits: cents })}`
}
