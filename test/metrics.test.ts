import t from 'tap'
import { request } from 'undici'
import { LATENCY_BUCKETS } from '../runtime/metrics.js'
import { account, awayFromMinuteEnd, build, freshDir, metric, rows, spawnServe, toCsv } from './support.js'

t.test(
  'GET /metrics: requests by route and status, latency, refusals, ledger commits, the snapshot; no keys, addresses or ids',
  async (t) => {
    const { snapshots, report } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const ledgerDir = freshDir(t)
    const { key } = await account(ledgerDir, 'metryki@example.pl', 100)
    const server = await spawnServe(t, [
      '--snapshots',
      snapshots,
      '--ledger',
      ledgerDir,
      '--rate-limit',
      '12',
      '--demo-quota',
      '2',
      '--trusted-proxy',
      '127.0.0.1',
    ])
    const base = `http://127.0.0.1:${server.port}`
    const ids: string[] = []
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const response = await request(`${base}${path}`, { headers })
      ids.push(String(response.headers['x-request-id']))
      await response.body.dump()
      return response.statusCode
    }
    const valuation = '/v1/market/valuation?make=VW&model=Golf&year=2017'
    await awayFromMinuteEnd(10)
    t.equal(await get(valuation, { 'x-api-key': key }), 200)
    t.equal(await get(valuation, { 'x-api-key': key }), 200)
    t.equal(await get('/v1/market/valuation?make=VW&model=Golf&year=1890', { 'x-api-key': key }), 400)
    t.equal(await get(valuation), 200)
    t.equal(await get(valuation), 200)
    t.equal(await get(valuation), 429, 'the demo quota refuses')
    t.equal(await get('/no/such/route/acc_secret'), 404)
    // The site's assets, whose addresses change with each deploy.
    const assets = [...(await (await request(`${base}/register`)).body.text()).matchAll(/"(\/assets\/[^"]+)"/g)]
    for (const [, asset] of assets) await get(asset!)
    // Another client, behind the trusted proxy: its own minute's budget.
    const client = { 'x-forwarded-for': '198.51.100.9' }
    for (let i = 0; i < 12; i++) await get('/livez', client)
    t.equal(await get('/livez', client), 429, 'the rate limit refuses the 13th request of the minute')

    const response = await request(`${base}/metrics`)
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^text\/plain; version=0\.0\.4/)
    const text = await response.body.text()
    t.equal(metric(text, 'carmarket_http_requests_total{route="/v1/market/valuation",status="200"}'), 4)
    t.equal(metric(text, 'carmarket_http_requests_total{route="/v1/market/valuation",status="400"}'), 1)
    t.equal(metric(text, 'carmarket_http_requests_total{route="/v1/market/valuation",status="429"}'), 1)
    t.equal(
      metric(text, 'carmarket_http_requests_total{route="unmatched",status="404"}'),
      1,
      'an unknown path is counted, never named',
    )
    t.equal(metric(text, 'carmarket_http_requests_total{route="/livez",status="429"}'), 1)
    t.equal(metric(text, 'carmarket_errors_total{code="DEMO_LIMIT_REACHED"}'), 1)
    t.equal(metric(text, 'carmarket_errors_total{code="RATE_LIMIT_EXCEEDED"}'), 1)
    t.equal(metric(text, 'carmarket_errors_total{code="INVALID_PARAMETER"}'), 1)
    t.equal(metric(text, 'carmarket_ledger_commits_total{kind="charge"}'), 2)
    t.equal(metric(text, 'carmarket_credits_total{kind="spent"}'), 16, 'credits spent: two valuations')
    t.ok(assets.length >= 2, 'assets were asked for')
    t.equal(
      metric(text, 'carmarket_http_requests_total{route="/assets/*",status="200"}'),
      assets.length,
      'under one label, whatever their hashes',
    )
    t.notMatch(text, /route="\/assets\/[a-z]/, 'no hashed address is a label')
    t.equal(metric(text, 'carmarket_ledger_commits_total{kind="failed_call"}'), 1, 'the refund entry of the 400')

    const count = metric(text, 'carmarket_http_request_duration_seconds_count{route="/v1/market/valuation"}')
    t.equal(count, 6)
    const buckets = LATENCY_BUCKETS.map((le) =>
      metric(text, `carmarket_http_request_duration_seconds_bucket{route="/v1/market/valuation",le="${le}"}`)!,
    )
    t.ok(
      buckets.every((n, i) => i === 0 || n >= buckets[i - 1]!),
      'buckets are cumulative',
    )
    t.equal(metric(text, 'carmarket_http_request_duration_seconds_bucket{route="/v1/market/valuation",le="+Inf"}'), 6)

    t.equal(metric(text, 'carmarket_snapshot_as_of_timestamp_seconds'), Date.parse(`${report.as_of}T00:00:00Z`) / 1000)
    const age = metric(text, 'carmarket_snapshot_age_seconds')!
    t.ok(age >= 0 && age < 600, 'built moments ago')
    t.equal(metric(text, `carmarket_snapshot_processes{build_id="${report.build_id}"}`), 1)
    t.equal(metric(text, 'carmarket_processes'), 1)

    t.notOk(text.includes(key) || text.includes(key.slice(0, 12)), 'no key')
    t.notOk(text.includes('127.0.0.1') || text.includes('198.51.100.9'), 'no address')
    t.notOk(
      ids.some((id) => text.includes(id)),
      'no request id',
    )
    t.notOk(text.includes('acc_'), 'no account id or path')
    const samples = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))
    const wellFormed = /^(carmarket|process|nodejs)_[a-z0-9_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+$/
    t.ok(samples.length > 100, `${samples.length} sample lines`)
    t.same(
      samples.filter((line) => !wellFormed.test(line)),
      [],
      "every sample line well formed, and the service's own or a process's",
    )
  },
)

t.test('GET /metrics: the process and Node.js series every exporter has, summed over the workers', async (t) => {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t), '--workers', '2'])
  const text = await (await request(`http://127.0.0.1:${server.port}/metrics`)).body.text()
  for (const series of [
    'process_cpu_user_seconds_total',
    'process_resident_memory_bytes',
    'process_open_fds',
    'nodejs_heap_size_used_bytes',
    'nodejs_eventloop_lag_seconds',
    'nodejs_active_handles_total',
  ])
    t.ok(metric(text, series) !== undefined, `${series} is there`)
  t.match(text, /^nodejs_version_info\{version="v\d+\.\d+\.\d+"/m, 'the Node.js version')
  const families = text.split('\n').filter((line) => line.startsWith('# TYPE '))
  t.same(families, [...new Set(families)], 'each family once, whatever the number of workers')
  t.equal(metric(text, 'carmarket_processes'), 2)
  // Both memory figures are the workers' resident memory summed, taken within moments of each other.
  const summed = metric(text, 'process_resident_memory_bytes')!
  const own = metric(text, 'carmarket_resident_memory_bytes')!
  t.ok(Math.abs(summed - own) < own * 0.25, `process_resident_memory_bytes ${summed} is both workers' (${own})`)
})
