import fc from 'fast-check'
import t from 'tap'
import { request } from 'undici'
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
