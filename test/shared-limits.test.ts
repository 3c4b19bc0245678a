import { networkInterfaces } from 'node:os'
import t from 'tap'
import { request } from 'undici'
import { ENGINES } from './ledger-engines.js'
import { awayFromMinuteEnd, build, rows, serve, spawnServe, toCsv } from './support.js'

const data = toCsv(rows(12, (i) => ({ price: 30_000 + i })))
const status = async (port: number, path: string, headers: Record<string, string> = {}) => {
  const response = await request(`http://127.0.0.1:${port}${path}`, { headers })
  await response.body.dump()
  return response.statusCode
}

for (const engine of ENGINES) {
  t.test(`two server processes on one ${engine.name} ledger share the demo quota and the rate limit`, async (t) => {
    const { snapshots } = await build(t, data)
    const ledger = await engine.fresh(t)
    const quota = ['--snapshots', snapshots, '--ledger', ledger, '--rate-limit', '0', '--demo-quota', '5']
    const a = await spawnServe(t, quota)
    const b = await spawnServe(t, quota)
    const market = '/v1/market/valuation?make=VW&model=Golf&year=2017'
    const seen = [
      await status(a.port, market),
      await status(b.port, market),
      await status(a.port, market),
      await status(b.port, market),
      await status(a.port, market),
    ]
    t.same(seen, [200, 200, 200, 200, 200], 'five calls spread over two processes')
    t.equal(await status(b.port, market), 429, 'the sixth is refused by either')
    t.equal(await status(a.port, market), 429)

    const rate = ['--snapshots', snapshots, '--ledger', await engine.fresh(t), '--rate-limit', '3']
    const c = await spawnServe(t, rate)
    const d = await spawnServe(t, rate)
    await awayFromMinuteEnd(5)
    t.same(
      [await status(c.port, '/livez'), await status(d.port, '/livez'), await status(c.port, '/livez')],
      [200, 200, 200],
    )
    t.equal(await status(d.port, '/livez'), 429, 'the fourth request of the minute, in either process')
  })
}

const ipv6Loopback = Object.values(networkInterfaces()).some((list) =>
  list?.some((i) => i.family === 'IPv6' && i.internal),
)

t.test(
  'an IPv4 client of a dual-stack socket counts as its IPv4 address',
  { skip: ipv6Loopback ? false : 'no IPv6 loopback here' },
  async (t) => {
    const { snapshots } = await build(t, data)
    const { get } = await serve(t, { snapshots, rateLimit: 1, trustedProxies: ['127.0.0.1'] }, { host: '::' })
    const livez = async (from: string) => (await get('/livez', { headers: { 'x-forwarded-for': from } })).status
    await awayFromMinuteEnd(5)
    // The socket sees ::ffff:127.0.0.1; only as 127.0.0.1 is it the trusted proxy whose X-Forwarded-For counts.
    t.equal(await livez('198.51.100.7'), 200)
    t.equal(await livez('198.51.100.8'), 200, 'another client behind the proxy')
    t.equal(await livez('198.51.100.7'), 429, 'the first client again: over its limit')
  },
)
