import { OPERATIONS } from '../format/schema.js'
import { ApiError } from '../query/api-error.js'
import { OPERATION_SPECS, answerJson, marketRequest } from '../query/operations.js'
import type { Snapshot } from '../query/snapshot.js'
import { withCredits } from './metered-call.js'
import { parseQuery } from './query-string.js'
import { dataBody, errorBody } from './send.js'

/**
 * The required parameters of every market operation, at the values of the examples (a
 * model-year any real market holds), and the first call the key e-mail shows.
 */
export const EXAMPLE_VEHICLE = { make: 'VW', model: 'Golf', year: 2017 } as const
/** The query of the example request of each market operation, which the document and the pages show. */
export const EXAMPLE_QUERY = new URLSearchParams({ ...EXAMPLE_VEHICLE, year: String(EXAMPLE_VEHICLE.year) }).toString()

/** A request shown as an example, and what the served snapshot answers to it. */
export interface ExampleCall {
  /** The query string, without its `?`. */
  readonly query: string
  readonly status: number
  /** The answer in its envelope, as JSON. */
  readonly body: string
}

/** By path. */
export type ExampleCalls = ReadonlyMap<string, ExampleCall>

/**
 * Each market operation's example request answered from `snapshot` as a keyless call is
 * (the parameters checked, the answer looked up, `credits_used` appended), but neither
 * counted nor charged: the examples the document and the pages show are real answers of
 * the data being served. A request the snapshot cannot answer shows its error.
 */
export function exampleCalls(snapshot: Snapshot): ExampleCalls {
  return new Map(
    OPERATIONS.map((operation): [string, ExampleCall] => {
      const spec = OPERATION_SPECS[operation]
      const query = EXAMPLE_QUERY
      try {
        const params = parseQuery(query, new Set(spec.parameters))
        const data = answerJson(
          snapshot,
          marketRequest(operation, (name) => params.get(name), snapshot.maxYear),
        )
        return [`/v1/market/${operation}`, { query, status: 200, body: dataBody(withCredits(data, spec.credits)) }]
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        return [`/v1/market/${operation}`, { query, status: error.status, body: errorBody(error) }]
      }
    }),
  )
}
