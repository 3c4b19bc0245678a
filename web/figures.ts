import { count } from '../format/amounts.js'
import type { Served } from './site.js'

/** What the pages state of the snapshot served, from its manifest. */
export interface Figures {
  /** "1,393,260" */
  readonly listings: string
  readonly makes: string
  readonly models: string
  /** YYYY-MM-DD, for `<time datetime>` and plain text. */
  readonly asOf: string
  /** "30 September 2026" */
  readonly asOfText: string
  /** When the snapshot was built: ISO 8601, and "1 October 2026". */
  readonly built: string
  readonly builtText: string
}

const DATE: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }

export function figures(served: Served | undefined): Figures | undefined {
  if (served === undefined) return undefined
  const { counts, as_of, created_at } = served.manifest
  return {
    listings: count(counts.listings_kept),
    makes: count(counts.makes),
    models: count(counts.models),
    asOf: as_of,
    asOfText: new Date(`${as_of}T00:00:00Z`).toLocaleDateString('en-GB', DATE),
    built: created_at,
    builtText: new Date(created_at).toLocaleDateString('en-GB', DATE),
  }
}
