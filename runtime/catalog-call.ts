import type { Snapshot } from '../query/snapshot.js'
import { name } from '../query/params.js'
import type { DataCall } from './exchange.js'
import { parseQuery } from './query-string.js'
import type { ServedSnapshot } from './served-snapshot.js'

/**
 * The catalogue's routes (data contract 5.6): free and keyless, so no key is looked at and
 * no demo call is counted; the rate limit every route has is all that meters them.
 */
export function catalogCalls(served: ServedSnapshot): ReadonlyMap<string, DataCall> {
  const call =
    (known: ReadonlySet<string>, answer: (snapshot: Snapshot, params: Map<string, string>) => string): DataCall =>
    async (query) => {
      const params = parseQuery(query, known)
      const generation = served.acquire()
      try {
        return answer(generation.snapshot, params)
      } finally {
        served.release(generation)
      }
    }
  return new Map([
    ['/v1/catalog/makes', call(new Set(), (snapshot) => snapshot.catalogMakesJson())],
    [
      '/v1/catalog/models',
      call(new Set(['make']), (snapshot, params) => snapshot.catalogModelsJson(name((p) => params.get(p), 'make'))),
    ],
  ])
}
