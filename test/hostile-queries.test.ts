import fc from 'fast-check'
import t from 'tap'
import { request } from 'undici'
import { CHART_NAMES } from '../charts/charts.js'
import { OPERATIONS, type Operation } from '../format/schema.js'
import { OPERATION_SPECS } from '../query/operations.js'
import { build, rows, serve, toCsv } from './support.js'

const ROUTES = [
  '/v1/market/valuation',
  '/v1/market/price-history',
  '/v1/market/liquidity',
  '/v1/market/valuation-factors',
  '/v1/market/regional',
  '/v1/account/me',
  '/v1/account/usage',
  '/v1/openapi.json',
  '/livez',
  '/readyz',
  '/v1/market',
  '/',
  '/register',
  '/docs',
  '/llms.txt',
  '/.well-known/ai-plugin.json',
]
const NAMES = ['make', 'model', 'year', 'fuel_type', 'gearbox', 'mileage', 'months', 'limit']

/** A query-string value: real text percent-encoded, broken escapes, raw junk, or very long. */
const value = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }).map(encodeURIComponent),
  fc.constantFrom(
    '',
    '%',
    '%G1',
    '%C3%28',
    '%FF%FE',
    '%E0%A4',
    '%00',
    '%2e%2e%2f',
    '+',
    '-1',
    '0',
    '1e3',
    '2017.5',
    '99999999999999999999',
    'NaN',
    '%F0%9F%9A%97',
  ),
  fc.integer({ min: -10_000, max: 4_000_000 }).map(String),
  fc.nat({ max: 500 }).map((n) => 'x'.repeat(n)),
  fc.stringMatching(/^[A-Za-z0-9._~!$'()*,;:@/?-]{0,30}$/),
)
const pair = fc.tuple(fc.oneof(fc.constantFrom(...NAMES), value), value).map(([name, v]) => `${name}=${v}`)
const target = fc
  .tuple(fc.constantFrom(...ROUTES), fc.array(fc.oneof(pair, value, fc.constant('&')), { maxLength: 8 }), fc.boolean())
  .map(([route, parts, withQuery]) => (withQuery ? `${route}?${parts.join('&')}` : route))

t.test('random and hostile requests always get a well-formed envelope, never a 5xx', async (t) => {
  const { snapshots } = await build(t, toCsv(rows(20, (i) => ({ price: 30_000 + i }))))
  const { base } = await serve(t, { snapshots, demoQuota: 1_000_000 })
  const statuses = new Map<number, number>()
  await fc.assert(
    fc.asyncProperty(target, fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE'), async (path, method) => {
      const response = await request(`${base}${path}`, { method })
      const text = await response.body.text()
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
      if (response.statusCode >= 500) return false
      if (method === 'HEAD' || response.statusCode === 304) return text === ''
      // The web pages and files ignore a query string: the same document whatever follows the path.
      if (
        response.statusCode === 200 &&
        !path.startsWith('/v1/') &&
        !path.startsWith('/livez') &&
        !path.startsWith('/readyz')
      )
        return text.length > 0 && response.headers['content-security-policy'] !== undefined
      const body = JSON.parse(text) as { status: string; data?: unknown; error?: { code?: unknown; message?: unknown } }
      if (response.statusCode === 200 && path.startsWith('/v1/openapi.json')) return 'openapi' in body
      if (response.statusCode === 200) return body.status === 'success' && typeof body.data === 'object'
      return (
        response.statusCode >= 400 &&
        body.status === 'error' &&
        typeof body.error?.code === 'string' &&
        typeof body.error.message === 'string' &&
        !/\n\s*at |node:internal|\bError:/.test(body.error.message)
      )
    }),
    { numRuns: 400, seed: 20261122 },
  )
  t.comment(`statuses seen: ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.ok(statuses.has(400) && statuses.has(404), 'the runs reached validation and routing failures')
})

// Every market route and every parameter, over the parameters' own domains and past them:
// names of dense keys, thin ones (fewer than 10 listings), families, names the table knows
// without listings, catch-alls; years, mileages, prices and months at, inside and beyond
// their bounds; each parameter given or not. Whatever the mix, a caller gets a 2xx or a
// 4xx in the spec's envelope (an image for a chart), never a 500.
const MARKET = [
  ...rows(20, (i) => ({
    price: 30_000 + i * 500,
    mileage_km: 90_000 + i * 4000,
    version: ['2.0 TSI GTI', '1.6 TDI Highline', ''][i % 3]!,
    generation: i % 2 === 0 ? 'VII (2012-2019)' : '',
    body_type: ['Kompakt', 'Kombi', ''][i % 3]!,
    power_hp: [230, 110, ''][i % 3]!,
  })),
  ...rows(4, (i) => ({ model: 'Polo', price: 20_000 + i * 500 })),
  ...rows(12, (i) => ({ make: 'BMW', model: 'Seria 3', year: 2017 + (i % 2), fuel_type: 'Benzyna' })),
  ...rows(6, (i) => ({ make: 'BMW', model: '3GT', price: 70_000 + i, mileage_km: '' })),
  ...rows(5, (i) => ({ make: 'Lamborghini', model: 'Urus', year: 2019, price: 900_000 + i * 10_000 })),
]
/** Values of a parameter's domain (percent-encoded, as in a query string), or any value at all. */
const domain = <T extends string | number>(values: readonly T[]) =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(...values).map((v) => (typeof v === 'string' ? encodeURIComponent(v) : v)),
    },
    { weight: 1, arbitrary: value },
  )
const PARAMETERS: Record<string, fc.Arbitrary<string | number>> = {
  make: domain(['VW', 'Volkswagen', 'BMW', 'bmw', 'Lamborghini', 'Aston Martin', 'VW Golf', 'Inny', 'other']),
  model: domain([
    ...['Golf', 'Polo', '3 Series', 'Seria 3', '3GT', 'Urus', 'Klasa E', 'VW Golf', 'X9', 'Inny'],
    ...['Golf GTI', 'Golf TDI TSI', 'Golf Kombi', '320d', 'Golf VII 2.0', `Golf ${'x '.repeat(40)}`, 'Golf -'],
  ]),
  year: domain<string | number>([2017, 2018, 2019, 2016, 1900, 1899, 2027, 2028, '2017.0', 'abc']),
  fuel_type: domain(['Benzyna', 'diesel', 'Etanol', 'e85', 'LPG', 'steam', 'Hybryda Plug-in']),
  gearbox: domain(['manual', 'Automatyczna', 'a', 'cvt']),
  mileage: fc.oneof(fc.integer({ min: -5, max: 3_100_000 }), domain<number>([1, 100_000, 3_000_000, 3_000_001])),
  asking_price: fc.oneof(fc.integer({ min: -5, max: 11_000_000 }), domain<number>([1, 30_000, 10_000_000])),
  months: fc.oneof(fc.integer({ min: -1, max: 30 }), value),
  body_type: domain(['Kombi', 'estate', 'SUV', 'Auta małe', 'pickup', '']),
  version: domain(['GTI', '2.0 TDI', 'VII', 'x'.repeat(121), '2.0\u0000', ' ', 'a b c d e f g h i j k l m n o p q']),
  power_hp: fc.oneof(fc.integer({ min: -5, max: 2_100 }), domain<number | string>([10, 150, 2000, 2001, 0, '1e9'])),
}
/** Cars asked about together, so that most calls reach a key: dense, thin, a family, unknown, a catch-all. */
const CARS: readonly (readonly [string, string, number])[] = [
  ['VW', 'Golf', 2017],
  ['Volkswagen', 'Polo', 2017],
  ['BMW', '3 Series', 2017],
  ['bmw', 'Seria 3', 2018],
  ['Lamborghini', 'Urus', 2019],
  ['Aston Martin', 'DB11', 2019],
  ['VW Golf', 'Golf', 2017],
  ['Mercedes-Benz', 'Klasa E', 2018],
  ['Volkswagen', 'Inny', 2017],
]
const car = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CARS).map(([make, model, year]) => ({ make, model, year })) },
  { weight: 1, arbitrary: fc.record({ make: PARAMETERS.make!, model: PARAMETERS.model!, year: PARAMETERS.year! }) },
)
const marketQuery = (operation: Operation) =>
  fc
    .tuple(
      car,
      ...OPERATION_SPECS[operation].parameters.map((name) =>
        fc.option(
          PARAMETERS[name]!.map((v) => [name, v]),
          { freq: 2 },
        ),
      ),
    )
    .map(([names, ...given]) => {
      const encoded = Object.entries(names).map(([name, v]) => [
        name,
        typeof v === 'string' ? encodeURIComponent(v) : v,
      ])
      const others = given.filter((p): p is [string, string | number] => p !== null && !(p[0]! in names))
      return [...(encoded as [string, string | number][]), ...others].filter(
        ([name]) => name !== 'year' || OPERATION_SPECS[operation].parameters.includes('year'),
      )
    })
const marketCall = fc.oneof(
  ...OPERATIONS.map((operation) =>
    fc.record({
      path: fc.constantFrom(
        `/v1/market/${operation}`,
        ...((CHART_NAMES as readonly string[]).includes(operation) ? [`/v1/chart/${operation}.svg`] : []),
      ),
      params: marketQuery(operation),
      operation: fc.constant(operation),
    }),
  ),
)

t.test('every market route and parameter, within its domain and past it: never a 500', async (t) => {
  const { snapshots } = await build(t, toCsv(MARKET))
  const { base } = await serve(t, { snapshots, demoQuota: 1_000_000 })
  const statuses = new Map<number, number>()
  const seen = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1)
  await fc.assert(
    fc.asyncProperty(marketCall, async ({ path, params }) => {
      const query = params.map(([name, v]) => `${name}=${v}`).join('&')
      const response = await request(`${base}${path}?${query}`)
      const text = await response.body.text()
      seen(response.statusCode)
      if (response.statusCode >= 500) return false
      if (response.statusCode === 200 && path.endsWith('.svg')) return text.startsWith('<svg')
      const body = JSON.parse(text) as { status: string; error?: { code?: unknown } }
      return response.statusCode === 200 ? body.status === 'success' : typeof body.error?.code === 'string'
    }),
    { numRuns: 600, seed: 20261127 },
  )
  // The same calls in batches: each item its own envelope, never a 500 for the batch or an item.
  await fc.assert(
    fc.asyncProperty(fc.array(marketCall, { minLength: 1, maxLength: 10 }), async (calls) => {
      const requests = calls.map(({ operation, params }) => ({ operation, ...Object.fromEntries(params) }))
      const response = await request(`${base}/v1/market/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ requests }),
      })
      const body = JSON.parse(await response.body.text()) as { data?: { results?: { error?: { code: string } }[] } }
      seen(response.statusCode)
      const items = body.data?.results ?? []
      return response.statusCode < 500 && items.every((item) => item.error?.code !== 'INTERNAL_ERROR')
    }),
    { numRuns: 150, seed: 20261127 },
  )
  t.comment(`statuses seen: ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.ok(statuses.has(200) && statuses.has(400) && statuses.has(404), 'answers, refusals and thin keys were all reached')
})
