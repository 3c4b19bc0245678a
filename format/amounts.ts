/** Numbers as the service's texts write them (pages, messages, charts): 1,170,000. */
export function count(n: number): string {
  return n.toLocaleString('en-US')
}

/** `n` things, the noun in the singular for one: "1 account", "2 accounts" (`plural` when not noun + s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : plural}`
}

/** A price in US dollars, cents only when there are some: $9, $4.50. */
export function dollars(usd: number): string {
  const cents = Number.isInteger(usd) ? 0 : 2
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: cents, maximumFractionDigits: cents })}`
}
