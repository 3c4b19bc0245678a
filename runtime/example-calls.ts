import { OPERATIONS } from '../format/schema.js'
import { ApiError } from '../query/api-error.js'
import { OPERATION_SPECS, answerJson, marketRequest } from '../query/operations.js'
import type { Snapshot } from '../query/snapshot.js'
import { answerBatch, batchItems, keylessData } from './batch-call.js'
import { CATALOG_ROUTES } from './catalog-call.js'
import { withCredits } from './metering.js'
import { parseQuery } from './query-string.js'
import { dataBody, errorBody } from './send.js'

/**
 * The required parameters of every market operation, at the values of the examples (a
 * model-year any real market holds), and the first call the key e-mail shows.
 */
export const EXAMPLE_VEHICLE = { make: 'VW', model: 'Golf', year: 2017 } as const

/** The example batch: three operations of the example vehicle, with parameters of their own. */
export const EXAMPLE_BATCH = {
  requests: [
    { operation: 'valuation', ...EXAMPLE_VEHICLE, mileage: 120000 },
    { operation: 'price-history', ...EXAMPLE_VEHICLE, months: 3 },
    { operation: 'depreciation', make: EXAMPLE_VEHICLE.make, model: EXAMPLE_VEHICLE.model, fuel_type: 'diesel' },
  ],
} as const

/** The query of an example request: those of the example vehicle's values the route takes. */
function exampleQuery(parameters: ReadonlySet<string>): string {
  const values = Object.entries(EXAMPLE_VEHICLE).filter(([name]) => parameters.has(name))
  return new URLSearchParams(values.map(([name, value]): [string, string] => [name, String(value)])).toString()
}

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
 * The example request of each market operation and catalogue route, answered from
 * `snapshot` as a keyless call is (the parameters checked, the answer looked up,
 * `credits_used` appended to a market answer), but neither counted nor charged: the
 * examples the document and the pages show are real answers of the data being served.
 * A request the snapshot cannot answer shows its error.
 */
export function exampleCalls(snapshot: Snapshot): ExampleCalls {
  const market = OPERATIONS.map((operation) => {
    const spec = OPERATION_SPECS[operation]
    const parameters = new Set(spec.parameters)
    return exampleCall(`/v1/market/${operation}`, exampleQuery(parameters), (query) => {
      const params = parseQuery(query, parameters)
      const request = marketRequest(operation, (name) => params.get(name), snapshot.maxYear)
      return withCredits(answerJson(snapshot, request), spec.credits)
    })
  })
  const catalog = [...CATALOG_ROUTES].map(([path, route]) =>
    exampleCall(path, exampleQuery(route.parameters), (query) =>
      route.answer(snapshot, parseQuery(query, route.parameters)),
    ),
  )
  const batch = exampleCall('/v1/market/batch', '', () =>
    keylessData(answerBatch(snapshot, batchItems(structuredClone(EXAMPLE_BATCH))), Infinity, () => {
      throw new Error('the example batch is never past a quota')
    }),
  )
  return new Map([...market, batch, ...catalog])
}

function exampleCall(path: string, query: string, data: (query: string) => string): [string, ExampleCall] {
  try {
    return [path, { query, status: 200, body: dataBody(data(query)) }]
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return [path, { query, status: error.status, body: errorBody(error) }]
  }
}
