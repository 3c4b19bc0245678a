import type { Snapshot } from '../query/snapshot.js'
import { name, vehicleParams } from '../query/params.js'
import type { DataCall } from './exchange.js'
import { parseQuery } from './query-string.js'
import type { ServedSnapshot } from './served-snapshot.js'

/** A catalogue route: the query parameters it takes, and its data from a snapshot as JSON text. */
export interface CatalogRoute {
  readonly parameters: ReadonlySet<string>
  readonly answer: (snapshot: Snapshot, params: ReadonlyMap<string, string>) => string
}

/** The catalogue (data contract 5.6), by path: what the routes answer and the example calls show. */
export const CATALOG_ROUTES: ReadonlyMap<string, CatalogRoute> = new Map([
  ['/v1/catalog/makes', { parameters: new Set<string>(), answer: (snapshot) => snapshot.catalogMakesJson() }],
  [
    '/v1/catalog/models',
    {
      parameters: new Set(['make']),
      answer: (snapshot, params) => snapshot.catalogModelsJson(name((p) => params.get(p), 'make')),
    },
  ],
  [
    '/v1/catalog/versions',
    {
      parameters: new Set(['make', 'model', 'year']),
      answer: (snapshot, params) => snapshot.catalogVersionsJson(vehicleParams((p) => params.get(p), snapshot.maxYear)),
    },
  ],
])

/**
 * The catalogue's routes: free and keyless, so no key is looked at and no demo call is
 * counted; the rate limit every route has is all that meters them.
 */
export function catalogCalls(served: ServedSnapshot): ReadonlyMap<string, DataCall> {
  const call =
    (route: CatalogRoute): DataCall =>
    async (query) => {
      const params = parseQuery(query, route.parameters)
      const generation = served.acquire()
      try {
        return route.answer(generation.snapshot, params)
      } finally {
        served.release(generation)
      }
    }
  return new Map([...CATALOG_ROUTES].map(([path, route]) => [path, call(route)]))
}
