import type { IncomingMessage } from 'node:http'
import type { ApiResponse } from './send.js'

/** What the request log learns of a request as it is handled, and whether its answer can still be delivered. */
export interface Exchange {
  route: string | null
  account: string | null
  /** Asked last before a debit or a demo count: false once the client is gone, so it is charged nothing. */
  readonly wanted: () => boolean
  /** The account page's session token (its cookie), which the account routes take when no X-API-Key comes. */
  session?: string | undefined
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

/** A market call as a route gets it: the request line and the headers the protocol reads. */
export interface MarketInput {
  /** GET or HEAD over HTTP; GET from inside the process. */
  readonly method: string
  /** The route, without the base path. */
  readonly path: string
  readonly query: string
  readonly key: string | string[] | undefined
  /** The client as the limits count it: its address, or for IPv6 its prefix (client-ip.ts clientKey). */
  readonly ip: string
  readonly exchange: Exchange
  readonly ifNoneMatch?: string | undefined
  readonly idempotencyKey?: string | string[] | undefined
}

/** A market call's answer: 200 with its data (credit fields included), or 304 without; and its headers. */
export interface MarketReply {
  readonly status: 200 | 304
  /** JSON text, or the answer drawn (a chart); empty for 304. */
  readonly data: string
  readonly headers: readonly (string | number)[]
}

export type MarketCall = (input: MarketInput) => Promise<MarketReply>
