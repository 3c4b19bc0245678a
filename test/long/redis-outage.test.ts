import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { COMMAND_TIMEOUT_MS, PENDING_COMMANDS, RedisCounters } from '../../ledger/redis-counters.js'
import { COUNTER_WINDOW_MS } from '../../ledger/types.js'
import { RATE_COUNT_WAIT_MS } from '../../runtime/limits.js'
import { OwnRedis } from '../redis-server.js'
import { freePort } from '../services.js'
import { awayFromMinuteEnd, build, rows, serve, toCsv } from '../support.js'

/** What a refusal may take past COMMAND_TIMEOUT_MS on a busy test machine. */
const SLACK_MS = 500
/** How long Redis may take to be counted in again once it is back (the client's backoff is at most about 2 s). */
const RECOVERY_MS = 10_000

const minute = () => Math.floor(Date.now() / COUNTER_WINDOW_MS.rate)

function open(t: Test, port: number): RedisCounters {
  const counters = RedisCounters.open(`redis://127.0.0.1:${port}?prefix=outage:`)
  t.teardown(() => counters.close())
  return counters
}

/** Asserts that `call` rejects as LedgerError `unavailable` within the bound; resolves to how long it took. */
async function refused(t: Test, call: () => Promise<unknown>, what: string): Promise<number> {
  const start = performance.now()
  await t.rejects(call(), { name: 'LedgerError', code: 'unavailable' }, what)
  const took = performance.now() - start
  t.ok(took <= COMMAND_TIMEOUT_MS + SLACK_MS, `${what}: refused in ${Math.round(took)} ms`)
  return took
}

/** Counts for `who` until a count is made; resolves to it. */
async function countsAgain(t: Test, counters: RedisCounters, who: string): Promise<number> {
  const deadline = Date.now() + RECOVERY_MS
  for (;;) {
    try {
      const counted = await counters.countUpTo('rate', minute(), who, 100)
      if (typeof counted !== 'number') throw new Error(`counted ${counted}`)
      return counted
    } catch (error) {
      if (Date.now() > deadline) throw error
      await sleep(100)
    }
  }
}

t.test(
  'Redis killed and started again: calls are refused quickly, the health says so, and counting resumes by itself',
  async (t) => {
    // The counts of one minute are compared before and after the outage.
    await awayFromMinuteEnd(20)
    const redis = await OwnRedis.start(t, await freePort())
    const counters = open(t, redis.port)
    t.equal(await counters.countUpTo('rate', minute(), 'a', 100), 1)
    t.equal(counters.health.failingSince, undefined)

    await redis.kill()
    await refused(t, () => counters.countUpTo('rate', minute(), 'a', 100), 'a count')
    await refused(t, () => counters.count('rate', minute(), 'a'), 'a read')
    await refused(t, () => counters.probe(), 'a probe')
    t.type(counters.health.failingSince, 'number', 'the health says writes are failing')
    t.match(counters.health.reason, /^Redis: /)
    t.notOk(counters.health.isBroken(), 'nothing for a restart of the process to mend')

    await redis.restart()
    // The server lost its counts with its memory: counting starts afresh.
    t.equal(await countsAgain(t, counters, 'a'), 1, 'counting resumes without a restart')
    t.equal(counters.health.failingSince, undefined, 'the health says writes commit again')
    await counters.probe()
  },
)

t.test('Redis hung: calls are refused within the bound, commands do not pile up, and counting resumes', async (t) => {
  // The counts of one minute are compared before and after the hang.
  await awayFromMinuteEnd(20)
  const redis = await OwnRedis.start(t, await freePort())
  const counters = open(t, redis.port)
  t.equal(await counters.countUpTo('rate', minute(), 'a', 10_000), 1)

  await redis.hang()
  await refused(t, () => counters.countUpTo('rate', minute(), 'a', 10_000), 'a count')
  await refused(t, () => counters.probe(), 'a probe')
  t.type(counters.health.failingSince, 'number')
  t.match(counters.health.reason, /did not answer/)

  // Two are still awaiting answers; past PENDING_COMMANDS in all, calls are refused before they are sent.
  const start = performance.now()
  const tooMany = 50
  const took = await Promise.all(
    Array.from({ length: PENDING_COMMANDS + tooMany }, () =>
      counters.countUpTo('rate', minute(), 'b', 10_000).then(
        () => Infinity,
        (error: unknown) =>
          (error as { code?: string }).code === 'unavailable' ? performance.now() - start : Infinity,
      ),
    ),
  )
  t.ok(
    took.every((ms) => ms <= COMMAND_TIMEOUT_MS + SLACK_MS),
    `all ${took.length} refused within the bound`,
  )
  t.ok(took.filter((ms) => ms < COMMAND_TIMEOUT_MS / 2).length >= tooMany, 'those past the bound at once')

  redis.resume()
  const count = await countsAgain(t, counters, 'a')
  t.ok(count >= 2, 'counting resumes on the same connection')
  t.equal(counters.health.failingSince, undefined)
})

t.test('nothing listening at start: the counters open, refuse quickly, and count once a server appears', async (t) => {
  const port = await freePort()
  const counters = open(t, port)
  await refused(t, () => counters.countUpTo('rate', minute(), 'a', 100), 'a count')
  t.match(counters.health.reason, /ECONNREFUSED/, 'the health tells why')

  await OwnRedis.start(t, port)
  t.equal(await countsAgain(t, counters, 'a'), 1)
  t.equal(counters.health.failingSince, undefined)
})

t.test(
  'a service whose Redis is down starts and answers; the counters that must not be given away refuse until Redis comes',
  async (t) => {
    const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const port = await freePort()
    const counters = `redis://127.0.0.1:${port}?prefix=outage:`
    const { get, post } = await serve(t, { snapshots, counters, rateLimit: 3, trustedProxies: ['127.0.0.1'] })
    let clients = 0
    /** The status of a request from client address `from` (a new one by default, which no rate limit has counted). */
    const status = async (path: string, from = `10.0.0.${++clients}`, body?: string) => {
      const headers = { 'x-forwarded-for': from }
      return (body === undefined ? await get(path, { headers }) : await post(path, body, { headers })).status
    }
    const market = '/v1/market/valuation?make=VW&model=Golf&year=2017'
    const register = () => status('/v1/auth/register', '10.1.0.2', JSON.stringify({ email: 'anna.nowak@example.pl' }))

    const livez = [
      await status('/livez', '10.1.0.1'),
      await status('/livez', '10.1.0.1'),
      await status('/livez', '10.1.0.1'),
      await status('/livez', '10.1.0.1'),
    ]
    t.same(livez, [200, 200, 200, 429], 'the rate limit is counted in the process')
    t.equal(await status(market), 503, 'a keyless call is refused: it cannot be counted')
    t.equal(await register(), 503, 'a registration is refused: its throttles cannot be counted')
    t.equal(await status('/readyz'), 503)

    await OwnRedis.start(t, port)
    const deadline = Date.now() + RECOVERY_MS
    while ((await status('/readyz')) !== 200) {
      if (Date.now() > deadline) throw new Error('not ready after Redis came')
      await sleep(100)
    }
    t.equal(await status(market), 200, 'keyless calls are answered once Redis has come')
    t.equal(await register(), 200, 'and registrations')

    // Redis hung: no request waits for it past the rate limit's bound.
    const hung = await OwnRedis.start(t, await freePort())
    const waiting = await serve(t, { snapshots, counters: `${hung.url}?prefix=hung:`, rateLimit: 3 })
    await hung.hang()
    const took: number[] = []
    const answered: number[] = []
    for (let i = 0; i < 4; i++) {
      const started = Date.now()
      const { status } = await waiting.get('/livez')
      took.push(Date.now() - started)
      answered.push(status)
    }
    t.same(answered, [200, 200, 200, 429], '/livez answers, the rate limit counted in the process')
    t.ok(
      took.every((ms) => ms < RATE_COUNT_WAIT_MS + SLACK_MS),
      `none waited for the hung Redis past the bound (${took.join(', ')} ms)`,
    )
    hung.resume()
  },
)
