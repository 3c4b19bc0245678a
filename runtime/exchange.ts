import type { IncomingMessage } from 'node:http'
import type { ApiResponse } from './send.js'

/** What the request log learns of a request as it is handled, and whether its answer can still be delivered. */
export interface Exchange {
  route: string | null
  account: string | null
  /** Asked last before a debit or a demo count: false once the client is gone, so it is charged nothing. */
  readonly wanted: () => boolean
}

/** A GET route's work apart from HTTP: its data as JSON text, from the query string and the X-API-Key. */
export type DataCall = (
  query: string,
  key: string | string[] | undefined,
  ip: string,
  exchange: Exchange,
) => Promise<string>

/** A route's handler, after the rate limit and the method check. */
export type Handler = (
  req: IncomingMessage,
  res: ApiResponse,
  query: string,
  ip: string,
  exchange: Exchange,
) => Promise<void> | void

/** A page or file of the site: answered to GET and HEAD, the same for every caller. */
export type PageHandler = (req: IncomingMessage, res: ApiResponse) => void
