import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { LmdbLedger } from '../../ledger/lmdb-ledger.js'
import { smallDisk } from '../disk.js'
import { account, build, demoCalls, freshDir, rows, spawnServe, toCsv } from '../support.js'

const data = toCsv(rows(12, (i) => ({ price: 30_000 + i })))
const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'
const CREDITS = 1_000_000

interface Outcome {
  readonly status: number
  readonly code: string | undefined
  readonly retryAfter: string | undefined
}

/**
 * Options of every request here. Each goes on a connection of its own: a kept-alive connection left idle while this
 * process waited for the CPU (a loaded machine) may be closed by the server just as the next request goes out on it,
 * and the client then reads "other side closed". That is keep-alive's own race, not the server's refusal this file
 * looks for. A server that hangs still fails the test, after longer than a starved process waits.
 */
const EACH_ON_ITS_OWN = { reset: true, headersTimeout: 30_000, bodyTimeout: 30_000 } as const

/** `count` requests, `concurrency` at a time, each with the headers `headers(i)` gives. */
async function hammer(
  port: number,
  path: string,
  count: number,
  headers: (i: number) => Record<string, string>,
): Promise<Outcome[]> {
  const dispatcher = new Agent({ connections: 16 })
  const outcomes: Outcome[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const i = next++
        const response = await request(`http://127.0.0.1:${port}${path}`, {
          ...EACH_ON_ITS_OWN,
          headers: headers(i),
          dispatcher,
        })
        const body = (await response.body.json()) as { error?: { code: string } }
        outcomes.push({
          status: response.statusCode,
          code: body.error?.code,
          retryAfter: response.headers['retry-after'] as string | undefined,
        })
      }
    }),
  )
  await dispatcher.close()
  return outcomes
}

async function get(port: number, path: string, headers: Record<string, string> = {}) {
  const response = await request(`http://127.0.0.1:${port}${path}`, { ...EACH_ON_ITS_OWN, headers })
  return {
    status: response.statusCode,
    body: (await response.body.json()) as { data?: Record<string, unknown>; error?: Record<string, unknown> },
  }
}

/**
 * Client addresses behind the trusted proxy: a new one per request makes every counter a new key, which needs new
 * pages.
 */
const client = (i: number) => ({ 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` })

async function fullDisk(t: Test, workers: number) {
  const { snapshots } = await build(t, data)
  const disk = smallDisk(t, 8 << 20)
  const ledgerDir = join(disk.dir, 'ledger')
  const { id, key } = await account(ledgerDir, `full-${workers}@example.pl`, CREDITS)
  const args = [
    '--workers',
    String(workers),
    '--snapshots',
    snapshots,
    '--ledger',
    ledgerDir,
    '--outbox',
    freshDir(t),
    '--rate-limit',
    '1000000',
    '--demo-quota',
    '1000000',
    '--trusted-proxy',
    '127.0.0.1',
  ]
  let server = await spawnServe(t, args)
  t.equal((await get(server.port, VALUATION, { 'x-api-key': key })).status, 200, 'a paid call before the disk fills')
  // Some room is left, so that paid and keyless calls meet the end of it while they run.
  disk.fill(128 * 1024)
  // Before any call meets the full disk: writes still commit, but into the last of the space.
  const nearlyFull = await get(server.port, '/readyz')
  t.same(
    [nearlyFull.status, nearlyFull.body.error?.ledger],
    [503, 'failing'],
    '/readyz says the ledger is failing before a call has failed',
  )

  const [keyed, keyless] = await Promise.all([
    hammer(server.port, VALUATION, 3_000, () => ({ 'x-api-key': key })),
    hammer(server.port, VALUATION, 1_000, (i) => client(100_000 + i)),
  ])
  const keyedServed = keyed.filter((o) => o.status === 200).length
  const keylessServed = keyless.filter((o) => o.status === 200).length
  const refused = [...keyed, ...keyless].filter((o) => o.status === 503)
  t.ok(
    [...keyed, ...keyless].every((o) => o.status === 200 || o.status === 503),
    `a market call is answered 200 or 503, never anything else (paid: ${keyedServed} answered, keyless: ${keylessServed})`,
  )
  t.ok(refused.length > 0, `the full disk refused calls (${refused.length} of ${keyed.length + keyless.length})`)
  t.ok(
    refused.every((o) => o.code === 'SERVICE_UNAVAILABLE' && Number(o.retryAfter) > 0),
    'each refusal is SERVICE_UNAVAILABLE with Retry-After',
  )
  t.equal(server.child.exitCode, null, 'the server is still running')

  // The request counter fails open: a new client address per request needs new pages, which the disk no longer has.
  const livez = await hammer(server.port, '/livez', 1_000, client)
  t.ok(
    livez.every((o) => o.status === 200),
    '/livez answers while the counters cannot be written',
  )

  const ready = await get(server.port, '/readyz')
  t.same(
    [ready.status, ready.body.error?.code, ready.body.error?.ledger],
    [503, 'SERVICE_UNAVAILABLE', 'failing'],
    '/readyz says the ledger is failing',
  )

  // A server (re)started while the disk is full starts and answers.
  if (workers === 1) {
    const gone = new Promise((resolve) => server.child.once('exit', resolve))
    server.child.kill('SIGKILL')
    await gone
    server = await spawnServe(t, args)
    t.equal((await get(server.port, '/livez')).status, 200, 'a server started on a full disk answers')
  }

  disk.free()
  let recovered = 0
  for (let i = 0; i < 100 && recovered !== 200; i++) {
    recovered = (await get(server.port, VALUATION, { 'x-api-key': key })).status
    if (recovered !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(recovered, 200, 'paid calls succeed again once space returns, without a restart')
  let readyAgain = 0
  for (let i = 0; i < 100 && readyAgain !== 200; i++) {
    readyAgain = (await get(server.port, '/readyz')).status
    if (readyAgain !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(readyAgain, 200, '/readyz is ready again')

  const started = Date.now()
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve))
  server.child.kill('SIGTERM')
  t.equal(await exited, 0, 'SIGTERM stops it cleanly')
  t.ok(Date.now() - started < 15_000, `and in bounded time (${Date.now() - started} ms)`)

  const ledger = LmdbLedger.open(ledgerDir)
  t.teardown(() => ledger.close())
  const state = (await ledger.account(id))!
  const entries = await ledger.entries(id, 1_000_000)
  const charges = entries.filter((e) => e.type === 'charge').length
  t.equal(charges, keyedServed + 2, 'every 200 has its debit and no refused call was charged')
  t.equal(state.balance, CREDITS - 8 * charges, 'the balance is exact')
  t.equal(
    entries.reduce((sum, e) => sum + e.credits, 0),
    state.balance,
    'balance = sum of entries',
  )

  t.equal(
    demoCalls(t, ledgerDir),
    keylessServed,
    `each of the ${keylessServed} keyless answers was counted against its address's demo quota`,
  )
}

t.test(
  'a full ledger disk, one process: refusals are answers, nothing is charged without its answer, it recovers by itself',
  (t) => fullDisk(t, 1),
)
t.test('a full ledger disk, two workers: no worker hangs the other, it recovers by itself', (t) => fullDisk(t, 2))

t.test('the rate limit holds while the counters cannot be written: the process counts on its own', async (t) => {
  const { snapshots } = await build(t, data)
  const disk = smallDisk(t, 8 << 20)
  const ledgerDir = join(disk.dir, 'ledger')
  const server = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    ledgerDir,
    '--outbox',
    freshDir(t),
    '--rate-limit',
    '5',
    '--trusted-proxy',
    '127.0.0.1',
  ])
  disk.fill()
  // Each new address needs room the disk no longer has, once LMDB's own freed pages are used up.
  const flood = await hammer(server.port, '/livez', 2_000, client)
  t.ok(
    flood.every((o) => o.status === 200),
    'one request from each of 2,000 addresses is admitted',
  )
  const ready = await get(server.port, '/readyz')
  t.match(ready, { status: 503, body: { error: { counters: 'failing' } } }, 'the counters are failing')
  const statuses: number[] = []
  for (let i = 0; i < 8; i++) statuses.push((await get(server.port, '/livez', client(1_000_000))).status)
  t.same(statuses, [200, 200, 200, 200, 200, 429, 429, 429], 'one address is still held to its 5 requests a minute')
})
