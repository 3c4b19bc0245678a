/** Something a published build wants its operator to act on: in its report and, for a person, on stderr. */
export interface BuildWarning {
  readonly code: 'currency_without_rate'
  readonly message: string
  /** Rows rejected for it. */
  readonly rows: number
  /** Those rows by their currency, largest first. */
  readonly currencies: Readonly<Record<string, number>>
}

/** Distinct currencies a parse worker names among rows it could not convert: the column is text of the export. */
export const MAX_UNRATED_CURRENCIES = 20

/** What --fx accepts, so what a warning may tell the operator to pass. */
const CURRENCY_CODE = /^[A-Z]{3}$/

/**
 * Rows priced in a currency with no rate are rejected one by one, as the contract says,
 * and a build without --fx would publish a market without them all: easy to miss in a
 * nightly log, so the report says which currencies and how to keep them.
 */
export function currencyWarning(rows: number, unrated: Readonly<Record<string, number>>): BuildWarning | undefined {
  if (rows === 0) return undefined
  const largestFirst = Object.entries(unrated).sort(([, a], [, b]) => b - a)
  const n = (x: number) => x.toLocaleString('en-US')
  const named = largestFirst.map(([code, count]) => `${code} (${n(count)})`)
  const fixable = largestFirst.map(([code]) => code).filter((code) => CURRENCY_CODE.test(code))
  const flags = fixable.map((code) => `--fx ${code}=RATE`).join(' ')
  const fix = fixable.length === 0 ? '' : `; rebuild with ${flags} (RATE in PLN, such as --fx EUR=4.30)`
  return {
    code: 'currency_without_rate',
    message: `${n(rows)} rows were rejected as unsupported_currency, priced in ${named.join(', ')} with no rate${fix}`,
    rows,
    currencies: Object.fromEntries(largestFirst),
  }
}
