import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { migrate } from '../../ledger/pg-schema.js'
import { freshDatabase, freshRedisPrefix, privatePostgres, REDIS } from '../services.js'
import { chargesKept, entriesOnceSettled, openTestLedger } from '../ledger-engines.js'
import { account, awayFromMinuteEnd, build, freshDir, rows, spawnServe, toCsv } from '../support.js'

const data = toCsv(rows(12, (i) => ({ price: 30_000 + i })))
const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'
const PRICE = 8

interface Reply {
  readonly status: number
  readonly code: string | undefined
  readonly remaining: number | undefined
}

/** `count` requests, `concurrency` at a time, the i-th to `ports[i % ports.length]` with the headers `headers(i)`. */
async function spread(
  ports: readonly number[],
  path: string,
  count: number,
  headers: (i: number) => Record<string, string>,
  concurrency = 30,
): Promise<Reply[]> {
  const dispatcher = new Agent({ connections: concurrency })
  const replies: Reply[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++
        const response = await request(`http://127.0.0.1:${ports[i % ports.length]}${path}`, {
          headers: headers(i),
          dispatcher,
        })
        const body = (await response.body.json()) as { data?: { credits_remaining?: number }; error?: { code: string } }
        replies.push({ status: response.statusCode, code: body.error?.code, remaining: body.data?.credits_remaining })
      }
    }),
  )
  await dispatcher.close()
  return replies
}

const tally = (replies: readonly Reply[]) => {
  const counts: Record<string, number> = {}
  for (const r of replies)
    counts[`${r.status}${r.code === undefined ? '' : ` ${r.code}`}`] =
      (counts[`${r.status}${r.code === undefined ? '' : ` ${r.code}`}`] ?? 0) + 1
  return counts
}

async function ledgerState(t: Test, url: string, id: string) {
  const ledger = await openTestLedger(t, url)
  const entries = await ledger.entries(id, 1_000_000)
  return { balance: (await ledger.account(id))!.balance, entries }
}

t.test(
  'three runtimes on one PostgreSQL ledger and one Redis: balances, the demo quota and the rate limit are exact across them',
  async (t) => {
    const { snapshots } = await build(t, data)
    const ledger = await freshDatabase(t)
    await migrate(ledger)
    const counters = new URL(REDIS)
    counters.searchParams.set('prefix', freshRedisPrefix(t))
    const { id, key } = await account(ledger, 'fleet@example.pl', 37 * PRICE)
    const args = [
      '--snapshots',
      snapshots,
      '--ledger',
      ledger,
      '--counters',
      counters.toString(),
      '--outbox',
      freshDir(t),
      '--trusted-proxy',
      '127.0.0.1',
    ]
    const ports = (await Promise.all([spawnServe(t, args), spawnServe(t, args), spawnServe(t, args)])).map(
      (server) => server.port,
    )
    // Each check from client addresses of its own, so the rate limit of one is not the others'.
    const from = (address: string) => () => ({ 'x-forwarded-for': address })

    await awayFromMinuteEnd(20)
    const paid = await spread(ports, VALUATION, 300, (i) => ({
      'x-api-key': key,
      'x-forwarded-for': `198.51.100.${i % 200}`,
    }))
    t.same(
      tally(paid),
      { '200': 37, '402 INSUFFICIENT_CREDITS': 263 },
      '300 paid calls spread over three runtimes: exactly the 37 paid for succeed',
    )
    const { balance, entries } = await ledgerState(t, ledger, id)
    t.equal(balance, 0, 'the balance is spent exactly')
    t.equal(
      entries.reduce((sum, e) => sum + e.credits, 0),
      balance,
      'balance = sum of entries',
    )
    t.same(
      paid.flatMap((r) => (r.remaining === undefined ? [] : [r.remaining])).sort((a, b) => a - b),
      Array.from({ length: 37 }, (_, i) => i * PRICE),
      'each success reports its own balance',
    )

    const keyless = await spread(ports, VALUATION, 200, from('203.0.113.7'))
    t.equal(
      keyless.filter((r) => r.status === 200).length,
      5,
      '200 keyless calls from one address spread over three runtimes: exactly 5 succeed',
    )
    t.ok(
      keyless.every(
        (r) =>
          r.status === 200 ||
          (r.status === 429 && (r.code === 'DEMO_LIMIT_REACHED' || r.code === 'RATE_LIMIT_EXCEEDED')),
      ),
      'the others are refused by the demo quota or the rate limit',
    )

    await awayFromMinuteEnd(20)
    const flood = await spread(ports, '/livez', 130, from('192.0.2.55'))
    t.same(
      tally(flood),
      { '200': 120, '429 RATE_LIMIT_EXCEEDED': 10 },
      '130 requests in a minute from one address: exactly 120 admitted',
    )
  },
)

t.test(
  'PostgreSQL killed under load and started again: calls while it is down get 503 uncharged, the runtimes recover by themselves, no acknowledged debit is lost',
  async (t) => {
    const { snapshots } = await build(t, data)
    const postgres = await privatePostgres(t)
    await migrate(postgres.url)
    const credits = 1_000_000
    const { id, key } = await account(postgres.url, 'outage@example.pl', credits)
    const args = ['--snapshots', snapshots, '--ledger', postgres.url, '--outbox', freshDir(t), '--rate-limit', '0']
    const ports = (await Promise.all([spawnServe(t, args), spawnServe(t, args)])).map((server) => server.port)

    const replies: Reply[] = []
    let loading = true
    const dispatcher = new Agent({ connections: 16 })
    const load = Promise.all(
      Array.from({ length: 16 }, async (_, client) => {
        for (let i = 0; loading; i++) {
          const response = await request(`http://127.0.0.1:${ports[(client + i) % 2]}${VALUATION}`, {
            headers: { 'x-api-key': key },
            dispatcher,
            headersTimeout: 30_000,
          })
          const body = (await response.body.json()) as {
            data?: { credits_remaining?: number }
            error?: { code: string }
          }
          replies.push({ status: response.statusCode, code: body.error?.code, remaining: body.data?.credits_remaining })
        }
      }),
    )
    await sleep(1_000)
    const before = replies.length
    await postgres.stop('immediate')
    await sleep(2_000)
    const whileDown = replies.slice(before + 100)
    await postgres.start()
    // Back by themselves: the pools reconnect.
    let recovered = false
    for (let i = 0; i < 100 && !recovered; i++) {
      await sleep(100)
      recovered = replies.slice(-20).length === 20 && replies.slice(-20).every((r) => r.status === 200)
    }
    await sleep(500)
    loading = false
    await load
    await dispatcher.close()

    t.ok(recovered, 'paid calls succeed again without a restart')
    t.ok(
      whileDown.length > 0 && whileDown.every((r) => r.status === 503 && r.code === 'SERVICE_UNAVAILABLE'),
      `while it was down, calls were refused with 503 (${whileDown.length})`,
    )
    t.ok(
      replies.every((r) => r.status === 200 || (r.status === 503 && r.code === 'SERVICE_UNAVAILABLE')),
      'no answer but 200 or 503',
    )
    const acknowledged = replies.flatMap((r) => (r.remaining === undefined ? [] : [r.remaining]))
    // A call answered 503 in doubt whose debit committed all the same has its charge given back once that is learned.
    const ledger = await openTestLedger(t, postgres.url)
    const entries = await entriesOnceSettled(ledger, [id], acknowledged.length)
    const balance = (await ledger.account(id))!.balance
    // Balances, not a set of them: a charge given back raises the balance, so a later charge can leave one seen before.
    const kept = chargesKept(entries)
      .kept.map((e) => e.balance_after)
      .sort((a, b) => a - b)
    t.equal(
      kept.length,
      acknowledged.length,
      'no call kept a charge that was not answered 200: every 503 was uncharged or given back',
    )
    t.same(
      kept,
      [...acknowledged].sort((a, b) => a - b),
      `and the charges kept are the ${acknowledged.length} acknowledged debits, balance for balance`,
    )
    t.equal(
      entries.reduce((sum, e) => sum + e.credits, 0),
      balance,
      'balance = sum of entries',
    )
    t.equal(balance, credits - PRICE * acknowledged.length)
  },
)
