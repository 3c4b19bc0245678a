import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { Agent, request } from 'undici'
import { migrate } from '../../ledger/pg-schema.js'
import { chargesKept, entriesOnceSettled, openTestLedger } from '../ledger-engines.js'
import { privatePostgres } from '../services.js'
import { account, build, freshDir, rows, spawnServe, toCsv } from '../support.js'

/**
 * Calls on a PostgreSQL ledger are answered within 2 s whatever the database does: frozen (every process of it
 * stopped, as a hung machine or a paused VM: connections open, nothing answered) or shut down and started again. A
 * call the ledger could not confirm in time is a 503 with Retry-After; should it have been charged after all, the
 * charge is given back.
 */

const data = toCsv(rows(12, (i) => ({ price: 30_000 + i })))
const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'
const PRICE = 8
/** The bound every call is answered within. */
const ANSWER_MS = 2_000

interface Reply {
  readonly status: number
  readonly code: string | undefined
  readonly retryAfter: string | undefined
  readonly ms: number
  readonly keyed: boolean
}

t.test('PostgreSQL frozen, then shut down and started again: every call answered within 2 s', async (t) => {
  const { snapshots } = await build(t, data)
  const postgres = await privatePostgres(t)
  await migrate(postgres.url)
  const credits = 1_000_000
  const { id, key } = await account(postgres.url, 'patience@example.pl', credits)
  const { port } = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    postgres.url,
    '--outbox',
    freshDir(t),
    '--rate-limit',
    '0',
  ])

  const replies: Reply[] = []
  let loading = true
  const dispatcher = new Agent({ connections: 16 })
  // Keyed calls (a key look-up and a debit each) and keyless ones (a count of the demo quota, refused past it).
  const load = Promise.all(
    Array.from({ length: 14 }, async (_, client) => {
      const keyed = client < 12
      while (loading) {
        const sent = performance.now()
        const response = await request(`http://127.0.0.1:${port}${VALUATION}`, {
          headers: keyed ? { 'x-api-key': key } : {},
          dispatcher,
          headersTimeout: 30_000,
        })
        const body = (await response.body.json()) as { error?: { code: string } }
        const retryAfter = response.headers['retry-after']
        replies.push({
          status: response.statusCode,
          code: body.error?.code,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          ms: performance.now() - sent,
          keyed,
        })
        // Refused calls come back at once; a pause keeps them from flooding the log.
        if (response.statusCode !== 200) await sleep(20)
      }
    }),
  )
  const recovered = async () => {
    for (let i = 0; i < 200; i++) {
      await sleep(50)
      const last = replies.filter((r) => r.keyed).slice(-20)
      if (last.length === 20 && last.every((r) => r.status === 200)) return true
    }
    return false
  }

  await sleep(1_000)
  const frozenFrom = replies.length
  await postgres.freeze()
  await sleep(3_000)
  const frozenReplies = replies.slice(frozenFrom)
  postgres.thaw()
  t.ok(await recovered(), 'paid calls succeed again once PostgreSQL runs on')

  const stoppedFrom = replies.length
  await postgres.stop('fast')
  await sleep(2_000)
  const stoppedReplies = replies.slice(stoppedFrom)
  await postgres.start()
  t.ok(await recovered(), 'and once it is started again, without a restart of the runtime')
  loading = false
  await load
  await dispatcher.close()

  const slowest = Math.max(...replies.map((r) => r.ms))
  t.comment(
    `${replies.length} calls, slowest ${Math.round(slowest)} ms; ${frozenReplies.length} while frozen, ${stoppedReplies.length} while stopped`,
  )
  t.same(
    replies.filter((r) => r.ms >= ANSWER_MS).map((r) => `${r.status} in ${Math.round(r.ms)} ms`),
    [],
    `every call answered within ${ANSWER_MS} ms`,
  )
  for (const [phase, seen] of [
    ['frozen', frozenReplies],
    ['stopped', stoppedReplies],
  ] as const)
    t.ok(
      seen.some((r) => r.keyed && r.status === 503) && seen.some((r) => !r.keyed && r.status === 503),
      `keyed and keyless calls were refused with 503 while PostgreSQL was ${phase}`,
    )
  t.same(
    replies.filter(
      (r) =>
        !(r.status === 200 || (r.status === 429 && !r.keyed)) &&
        !(r.status === 503 && r.code === 'SERVICE_UNAVAILABLE' && r.retryAfter !== undefined),
    ),
    [],
    'no answer but 200, the demo quota’s 429, or 503 with Retry-After',
  )

  // A debit answered 503 may commit later (its batch was with a frozen server); the ledger gives it back once learned.
  const acknowledged = replies.filter((r) => r.keyed && r.status === 200).length
  const ledger = await openTestLedger(t, postgres.url)
  const entries = await entriesOnceSettled(ledger, [id], acknowledged)
  const state = { entries, balance: (await ledger.account(id))!.balance }
  const { kept, refunded } = chargesKept(state.entries)
  t.comment(`${acknowledged} calls answered charged, ${refunded.length} charges given back`)
  t.equal(kept.length, acknowledged, 'the charges kept are exactly the calls answered 200')
  t.equal(new Set(refunded).size, refunded.length, 'no charge given back twice')
  const charges = new Set(state.entries.filter((e) => e.type === 'charge').map((e) => e.id))
  t.ok(
    refunded.every((id) => charges.has(id)),
    'every refund names a charge of the account',
  )
  t.equal(
    state.entries.reduce((sum, e) => sum + e.credits, 0),
    state.balance,
    'balance = sum of entries',
  )
  t.equal(state.balance, credits - PRICE * acknowledged, 'the account paid for the answers it got, and no more')
})
