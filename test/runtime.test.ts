import t from 'tap'
import {
  account,
  awayFromMinuteEnd,
  build,
  freshDir,
  reference,
  rows,
  serve,
  toCsv,
  type Row,
  type Served,
  filtersOf,
  NOT_NARROWED,
} from './support.js'

// 24 listings of a 2017 Golf with known figures, 12 of a Passat, 9 of a Polo (under the threshold).
const golf = rows(24, (i) => ({
  price: 40_000 + i * 1_000,
  mileage_km: 80_000 + i * 5_000,
  fuel_type: i % 2 === 0 ? 'Diesel' : 'Benzyna',
  gearbox: i % 3 === 0 ? 'Automatyczna' : 'Manualna',
  imported: i % 2 === 0 ? 'true' : 'false',
  voivodeship: i < 14 ? 'mazowieckie' : 'śląskie',
  first_seen: `2026-0${(i % 6) + 4}-10`,
  last_seen: '2026-09-20',
  active: i % 4 === 0 ? 'true' : 'false',
}))
const data: Row[] = [
  ...golf,
  ...rows(12, (i) => ({ model: 'Passat', price: 60_000 + i })),
  ...rows(9, () => ({ model: 'Polo' })),
]
const prices = (list: readonly Row[]) => list.map((r) => Number(r.price))

/** Keyless calls enough for every test here, and the address register_url is made from. */
const OPTIONS = { demoQuota: 1000, publicUrl: 'https://example.test/' }

t.test('the five market endpoints answer with the snapshot figures in the envelope', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  const { get } = await serve(t, { ...OPTIONS, snapshots })
  const q = 'make=vw&model=golf&year=2017'

  const valuation = await get(`/v1/market/valuation?${q}`)
  t.equal(valuation.status, 200)
  t.equal(valuation.headers['content-type'], 'application/json; charset=utf-8')
  // The figures beyond the spec, and the members' order, are checked in market-intelligence.test.ts.
  const { confidence: _c, mileage_effect: _m, adjusted: _a, asking_price: _p, ...spec } = valuation.body.data!
  t.same(spec, {
    make: 'vw',
    model: 'golf',
    year: 2017,
    matched: { makes: ['Volkswagen'], models: ['Golf'], match_type: 'alias', ...NOT_NARROWED },
    currency: 'PLN',
    filters: filtersOf(),
    valuation: reference.quartiles(prices(golf)),
    sample_size: 24,
    credits_used: 8,
  })
  t.notOk('credits_remaining' in valuation.body.data!, 'a keyless answer has no credits_remaining')

  const diesel = golf.filter((r) => r.fuel_type === 'Diesel')
  const byFuel = await get(`/v1/market/valuation?${q}&fuel_type=DIESEL`)
  t.same(byFuel.body.data?.filters, filtersOf({ fuel_type: 'Diesel' }))
  t.same(byFuel.body.data?.valuation, reference.quartiles(prices(diesel)))
  const window = golf.filter((r) => Math.abs(Number(r.mileage_km) - 150_000) <= 45_000)
  const byMileage = await get(`/v1/market/valuation?${q}&mileage=150000`)
  t.same(byMileage.body.data?.filters, filtersOf({ mileage: 150000 }))
  t.same(byMileage.body.data?.valuation, reference.quartiles(prices(window)))
  t.equal(byMileage.body.data?.sample_size, window.length)
  const thinWindow = await get(`/v1/market/valuation?${q}&fuel_type=diesel&mileage=150000`)
  t.equal(thinWindow.status, 404)
  t.equal(thinWindow.body.error?.sample_size, window.filter((r) => r.fuel_type === 'Diesel').length)

  const history = await get(`/v1/market/price-history?${q}&months=3`)
  t.equal(history.body.data?.months_requested, 3)
  t.equal(history.body.data?.credits_used, 10)
  t.same(
    history.body.data?.trend,
    ['2026-07', '2026-08', '2026-09'].map((month) => {
      const inMonth = golf.filter((r) => r.first_seen.startsWith(month))
      return { month, avg_price: reference.round(reference.mean(prices(inMonth))), sample_size: inMonth.length }
    }),
  )

  const liquidity = await get(`/v1/market/liquidity?${q}`)
  const closed = golf.filter((r) => r.active === 'false')
  const spans = closed.map((r) => (Date.parse(r.last_seen) - Date.parse(r.first_seen)) / 86_400_000)
  t.equal(liquidity.body.data?.observed_listing_span, reference.round(reference.percentile(spans, 0.5)))
  t.equal(liquidity.body.data?.estimated_days_on_market, reference.round(reference.percentile(spans, 0.5)) + 13)
  t.equal(liquidity.body.data?.active_listings, 6)
  t.equal(liquidity.body.data?.sample_size, 18)
  t.equal(liquidity.body.data?.credits_used, 6)

  const factors = await get(`/v1/market/valuation-factors?${q}`)
  t.equal(factors.body.data?.credits_used, 12)
  t.equal(factors.body.data?.total_sample_size, 24)
  const entries = factors.body.data?.factors as { dimension: string; price_diff_percent: number }[]
  const imported = golf.filter((r) => r.imported === 'true')
  const domestic = golf.filter((r) => r.imported === 'false')
  t.same(entries[0], {
    dimension: 'import_status',
    baseline: { label: 'Krajowy', avg_price: reference.round(reference.mean(prices(domestic))), sample_size: 12 },
    comparison: { label: 'Sprowadzony', avg_price: reference.round(reference.mean(prices(imported))), sample_size: 12 },
    price_diff_percent: reference.pct(reference.mean(prices(imported)), reference.mean(prices(domestic))),
  })

  const regional = await get(`/v1/market/regional?${q}`)
  t.equal(regional.body.data?.credits_used, 8)
  t.equal(regional.body.data?.national_average, reference.round(reference.mean(prices(golf))))
  t.same(
    (regional.body.data?.regions as { region: string; sample_size: number }[]).map((r) => [r.region, r.sample_size]),
    [
      ['mazowieckie', 14],
      ['śląskie', 10],
    ],
  )
})

t.test('bad requests are 400 INVALID_PARAMETER naming the parameter', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  const { get } = await serve(t, { ...OPTIONS, snapshots })
  const cases: [string, string][] = [
    ['/v1/market/valuation?model=Golf&year=2017', 'make'],
    ['/v1/market/valuation?make=VW&year=2017', 'model'],
    ['/v1/market/valuation?make=VW&model=Golf', 'year'],
    ['/v1/market/valuation?make=VW&model=Golf&year=abc', 'year'],
    ['/v1/market/valuation?make=VW&model=Golf&year=1899', 'year'],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017.0', 'year'],
    ['/v1/market/valuation?make=&model=Golf&year=2017', 'make'],
    ['/v1/market/valuation?make=VW&make=VW&model=Golf&year=2017', 'make'],
    [`/v1/market/valuation?make=${'x'.repeat(101)}&model=Golf&year=2017`, 'make'],
    ['/v1/market/valuation?make=%E0%A4&model=Golf&year=2017', 'make'],
    ['/v1/market/valuation?make=V%ZZ&model=Golf&year=2017', 'make'],
    ['/v1/market/valuation?make=VW%00&model=Golf&year=2017', 'make'],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&fuel_type=steam', 'fuel_type'],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&gearbox=cvt', 'gearbox'],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=-1', 'mileage'],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=0', 'mileage'],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=abc', 'mileage'],
    ['/v1/market/price-history?make=VW&model=Golf&year=2017&months=0', 'months'],
    ['/v1/market/price-history?make=VW&model=Golf&year=2017&months=25', 'months'],
    ['/v1/market/liquidity?make=VW&model=Golf&year=2017&months=6', 'months'],
    ['/v1/market/regional?make=VW&model=Golf&year=2017&colour=red', 'colour'],
  ]
  for (const [path, parameter] of cases) {
    const answer = await get(path)
    t.equal(answer.status, 400, path)
    t.equal(answer.body.status, 'error')
    t.equal(answer.body.error?.code, 'INVALID_PARAMETER', path)
    t.equal(answer.body.error?.parameter, parameter, path)
  }
})

t.test(
  'unknown names and thin data are 404 INSUFFICIENT_DATA; other paths 404 NOT_FOUND; other methods 405',
  async (t) => {
    const { snapshots } = await build(t, toCsv(data))
    const { get, head, post } = await serve(t, { ...OPTIONS, snapshots })
    const unknown = await get('/v1/market/valuation?make=Volkswagn&model=Go&year=2017')
    t.equal(unknown.status, 404)
    t.equal(unknown.body.error?.code, 'INSUFFICIENT_DATA')
    t.same(unknown.body.error?.suggestions, ['Golf', 'Golf Family'], 'close canonical names and families are offered')
    const thin = await get('/v1/market/valuation?make=VW&model=Polo&year=2017')
    t.equal(thin.status, 404)
    t.equal(thin.body.error?.sample_size, 9)
    const nothing = await get('/v2/market/valuation')
    t.equal(nothing.status, 404)
    t.equal(nothing.body.error?.code, 'NOT_FOUND')
    const posted = await post('/v1/market/valuation?make=VW&model=Golf&year=2017')
    t.equal(posted.status, 405)
    t.equal(posted.headers.allow, 'GET, HEAD')
    t.equal(posted.body.error?.code, 'METHOD_NOT_ALLOWED')
    const long = await get(`/v1/market/valuation?make=${'a'.repeat(3000)}`)
    t.equal(long.status, 414)
    t.equal(long.body.error?.code, 'URI_TOO_LONG')
    const headed = await head('/v1/market/regional?make=VW&model=Golf&year=2017')
    const getAnswer = await get('/v1/market/regional?make=VW&model=Golf&year=2017')
    t.equal(headed.status, 200)
    t.equal(headed.text, '', 'HEAD has no body')
    t.equal(headed.headers['content-length'], String(Buffer.byteLength(getAnswer.text)))
    t.same((await get('/livez')).body, { status: 'success', data: { alive: true } })
    const ready = await get('/readyz')
    t.equal(ready.status, 200)
    t.equal(ready.body.data?.ready, true)
  },
)

t.test('a port in use fails the start and leaves nothing open', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  const { runtime } = await serve(t, { ...OPTIONS, snapshots })
  const options = { snapshots, ledger: freshDir(t) }
  await t.rejects(serve(t, options, { port: runtime.address().port }), { code: 'EADDRINUSE' })
  // The failed start released what it had opened; a runtime on the same ledger starts as usual.
  const again = await serve(t, options)
  t.ok(again.runtime.address().port > 0)
  await again.runtime.close()
})

t.test('without a snapshot the runtime is alive but not ready', async (t) => {
  const { get } = await serve(t, { ...OPTIONS, snapshots: freshDir(t) })
  t.equal((await get('/livez')).status, 200)
  const ready = await get('/readyz')
  t.equal(ready.status, 503)
  t.equal(ready.body.error?.code, 'NOT_READY')
  t.equal((await get('/v1/market/valuation?make=VW&model=Golf&year=2017')).status, 503)
})

t.test('demo tier: 5 successful calls per address per UTC day, kept across a restart', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  const ledger = freshDir(t)
  let now = Date.parse('2026-09-30T20:00:00Z')
  const options = { ...OPTIONS, snapshots, ledger, demoQuota: 5, clock: () => now }
  const first = await serve(t, options)
  const call = (served: Served, path = '/v1/market/liquidity?make=VW&model=Golf&year=2017') => served.get(path)
  for (let i = 0; i < 3; i++) t.equal((await call(first)).status, 200)
  t.equal((await call(first, '/v1/market/liquidity?make=VW&model=Polo&year=2017')).status, 404, 'a failed call')
  t.equal((await call(first, '/v1/market/liquidity?make=VW&model=Golf&year=abc')).status, 400, 'uses no quota')
  await first.runtime.close()

  const second = await serve(t, options)
  t.equal((await call(second)).status, 200, 'the 4th success, after a restart')
  t.equal((await call(second)).status, 200, 'the 5th')
  const refused = await call(second)
  t.equal(refused.status, 429)
  t.equal(refused.body.error?.code, 'DEMO_LIMIT_REACHED')
  t.equal(refused.body.error?.register_url, 'https://example.test/register')
  t.equal(refused.headers['retry-after'], String(4 * 3600), 'seconds to the next UTC midnight')
  now = Date.parse('2026-10-01T00:00:01Z')
  t.equal((await call(second)).status, 200, 'a new UTC day, a new quota')
})

t.test('a demo answer tells the calls left today as a second RateLimit policy beside the per-minute one', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  const now = Date.parse('2026-09-30T20:00:00Z')
  const ledger = freshDir(t)
  const { get } = await serve(t, { ...OPTIONS, snapshots, ledger, demoQuota: 2, rateLimit: 10, clock: () => now })
  const golf = '/v1/market/valuation?make=VW&model=Golf&year=2017'
  const day = String(4 * 3600)
  const first = await get(golf)
  t.same(
    [first.status, first.headers['ratelimit-policy'], first.headers.ratelimit],
    [200, '"ip";q=10;w=60, "demo";q=2;w=86400', `"ip";r=9;t=60, "demo";r=1;t=${day}`],
    'one demo call left after the first, the minute and the day in one field each',
  )
  const thin = await get('/v1/market/valuation?make=VW&model=Polo&year=2017')
  t.same([thin.status, thin.headers.ratelimit], [404, '"ip";r=8;t=60'], 'a failure counts no demo call and tells none')
  const second = await get(golf)
  t.equal(second.headers.ratelimit, `"ip";r=7;t=60, "demo";r=0;t=${day}`, 'none left after the second')
  const refused = await get(golf)
  t.same(
    [refused.status, refused.body.error?.code, refused.headers['ratelimit-policy'], refused.headers.ratelimit],
    [429, 'DEMO_LIMIT_REACHED', '"ip";q=10;w=60, "demo";q=2;w=86400', `"ip";r=6;t=60, "demo";r=0;t=${day}`],
    'the refusal says so too',
  )
  const { key } = await account(ledger, 'keyed@example.pl', 100)
  const keyed = await get(golf, { key })
  t.same([keyed.status, keyed.headers.ratelimit], [200, '"ip";r=5;t=60'], 'a keyed answer has no demo policy')
  const unlimited = await serve(t, { ...OPTIONS, snapshots, demoQuota: 3, clock: () => now })
  const alone = await unlimited.get(golf)
  t.same(
    [alone.headers['ratelimit-policy'], alone.headers.ratelimit],
    ['"demo";q=3;w=86400', `"demo";r=2;t=${day}`],
    'without a rate limit, the demo policy alone',
  )
})

t.test('rate limit: requests per minute per address on every route, with RateLimit headers', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  let now = Date.parse('2026-09-30T12:00:10Z')
  const { get } = await serve(t, { ...OPTIONS, snapshots, rateLimit: 3, clock: () => now })
  const first = await get('/livez')
  t.equal(first.headers['ratelimit-policy'], '"ip";q=3;w=60')
  t.equal(first.headers.ratelimit, '"ip";r=2;t=50')
  t.equal((await get('/nowhere')).status, 404, 'a 404 counts too')
  t.equal((await get('/v1/market/valuation?make=VW&model=Golf&year=2017')).status, 200)
  const refused = await get('/livez')
  t.equal(refused.status, 429)
  t.equal(refused.body.error?.code, 'RATE_LIMIT_EXCEEDED')
  t.equal(refused.headers['retry-after'], '50')
  t.equal(refused.headers.ratelimit, '"ip";r=0;t=50')
  now += 50_000
  t.equal((await get('/livez')).status, 200, 'the next minute')
})

t.test('X-Forwarded-For is believed only from a trusted proxy', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  const direct = await serve(t, { ...OPTIONS, snapshots, rateLimit: 1 })
  await awayFromMinuteEnd(5)
  t.equal((await direct.get('/livez', { headers: { 'x-forwarded-for': '203.0.113.1' } })).status, 200)
  t.equal(
    (await direct.get('/livez', { headers: { 'x-forwarded-for': '203.0.113.2' } })).status,
    429,
    'an untrusted header does not change the address',
  )
  const proxied = await serve(t, { ...OPTIONS, snapshots, rateLimit: 1, trustedProxies: ['127.0.0.1'] })
  await awayFromMinuteEnd(5)
  t.equal((await proxied.get('/livez', { headers: { 'x-forwarded-for': '203.0.113.1' } })).status, 200)
  t.equal(
    (await proxied.get('/livez', { headers: { 'x-forwarded-for': '203.0.113.2, 127.0.0.1' } })).status,
    200,
    'another client behind the proxy',
  )
  t.equal((await proxied.get('/livez', { headers: { 'x-forwarded-for': '203.0.113.1' } })).status, 429)
})

t.test('an unexpected failure is a 500 envelope without internals, and the server keeps serving', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  let fail = false
  const { get } = await serve(t, {
    ...OPTIONS,
    snapshots,
    rateLimit: 100,
    clock: () => {
      if (fail) {
        fail = false
        throw new Error('disk on fire at /secret/path')
      }
      return Date.now()
    },
  })
  fail = true
  const broken = await get('/v1/market/valuation?make=VW&model=Golf&year=2017')
  t.equal(broken.status, 500)
  t.equal(broken.body.error?.code, 'INTERNAL_ERROR')
  t.notMatch(broken.text, /secret|fire|at \//, 'nothing of the failure leaks')
  t.equal((await get('/v1/market/valuation?make=VW&model=Golf&year=2017')).status, 200)
})
