import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import t, { type Test } from 'tap'
import { LedgerError } from '../../ledger/ledger-error.js'
import { SHARED_WORK_WITHIN_MS } from '../../ledger/pg-connection.js'
import { OUTCOME_WAIT_MS } from '../../ledger/pg-doubt.js'
import { migrate } from '../../ledger/pg-schema.js'
import type { Call } from '../../ledger/types.js'
import { pgProxy } from '../pg-proxy.js'
import {
  balanceAddsUp,
  charge,
  chargesKept,
  entriesOnceSettled,
  migratedDatabase,
  openTestLedger,
  type ChargeResult,
} from '../ledger-engines.js'
import { privatePostgres } from '../services.js'

/**
 * Debits whose batch loses its connection once sent: answered as the batch fared, once
 * the ledger has learned it, so that an `unavailable` debit is one not charged.
 */

const golf: Call = { endpoint: 'valuation', make: 'VW', model: 'Golf', year: 2017 }
const octavia: Call = { endpoint: 'valuation', make: 'Skoda', model: 'Octavia', year: 2018 }

/**
 * A migrated database of the test's own, a proxy to it, and a connection of the test's to it (not through the proxy).
 */
async function database(t: Test) {
  const { url, admin } = await migratedDatabase(t)
  return { url, proxy: await pgProxy(t, url), admin }
}

/** A debit's result, or the error it failed with. */
function settled(debit: Promise<ChargeResult>): Promise<ChargeResult | LedgerError> {
  return debit.catch((error: unknown) => {
    if (error instanceof LedgerError) return error
    throw error
  })
}

/**
 * Waits until a connection of the database waits for an advisory lock (the ledger asking what a batch still running
 * did).
 */
async function askingWaits(admin: pg.Client): Promise<void> {
  const asking = `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`
  while ((await admin.query(asking)).rowCount === 0) await sleep(10)
}

t.test('a batch that committed but whose answer was lost: its debits are answered as the batch did them', async (t) => {
  const { proxy } = await database(t)
  const ledger = await openTestLedger(t, proxy.url)
  const rich = (await ledger.createAccount('rich@example.pl', 40, 'grant', null)).account.id
  const poor = (await ledger.createAccount('poor@example.pl', 10, 'grant', null)).account.id
  const cut = proxy.cutNextBatch('answer')
  // Asked in one turn of the event loop: one batch.
  const debits = [
    charge(ledger, rich, 8, golf),
    charge(ledger, poor, 8, golf),
    charge(ledger, rich, 8, octavia),
    charge(ledger, poor, 8, octavia),
  ].map(settled)
  await cut
  const [richGolf, poorGolf, richOctavia, poorOctavia] = await Promise.all(debits)
  t.match(
    richGolf,
    { ok: true, balance: 32, entry: { type: 'charge', credits: -8, balance_after: 32, model: 'Golf' } },
    'charged, with its entry',
  )
  t.match(
    richOctavia,
    { ok: true, balance: 24, entry: { balance_after: 24, model: 'Octavia' } },
    'the second debit of the account, with the next entry',
  )
  t.match(poorGolf, { ok: true, balance: 2, entry: { balance_after: 2, model: 'Golf' } })
  t.match(
    poorOctavia,
    { code: 'unavailable', message: /found it not charged/ },
    'refused on the server: unavailable, and not charged',
  )
  t.same(
    (await ledger.entries(rich, 2)).reverse(),
    [richGolf, richOctavia].map((result) =>
      result === undefined || result instanceof LedgerError || !result.ok ? undefined : result.entry,
    ),
    'the entries answered are the ledger’s',
  )
  await balanceAddsUp(t, ledger, rich, 24)
  await balanceAddsUp(t, ledger, poor, 2)
  t.equal(ledger.health.failingSince, undefined, 'writes are known to commit')
  t.equal(ledger.commits.charge, 1, 'the batch counted as committed')
})

t.test(
  'a batch that lost its answer gives each request its own entries: one answered under its key meanwhile gets none',
  async (t) => {
    const { proxy } = await database(t)
    const ledger = await openTestLedger(t, proxy.url)
    const { account } = await ledger.createAccount('keyed@example.pl', 40, 'grant', null)
    const key = { key: 'k-answered', fingerprint: 'golf' }
    // Another call (one that took the key over after a lease ran out) answered the key first.
    await ledger.chargeAll(account.id, {
      debits: [{ credits: 8, call: golf }],
      remember: { ...key, token: 'first', parts: '{"answer":1}' },
    })
    const cut = proxy.cutNextBatch('answer')
    // Asked in one turn of the event loop: one batch, whose first request is answered under its key (charging nothing)
    // and whose second, the same call of the same account, is charged.
    const late = ledger.chargeAll(account.id, {
      debits: [{ credits: 8, call: golf }],
      remember: { ...key, token: 'late', parts: '{"answer":2}' },
    })
    const plain = ledger.chargeAll(account.id, { debits: [{ credits: 8, call: golf }] })
    const [lateResult, plainResult] = await Promise.allSettled([late, plain])
    await cut
    t.match(
      lateResult,
      { status: 'rejected', reason: { code: 'unavailable' } },
      'the request answered under its key charged nothing: unavailable, and its retry finds the answer',
    )
    t.match(
      plainResult,
      {
        status: 'fulfilled',
        value: { ok: true, balance: 24, outcomes: [{ charged: true, entry: { balance_after: 24 } }] },
      },
      'the plain request gets the charge that is its own',
    )
    t.match(
      await ledger.startIdempotent(account.id, key),
      { state: 'done', answer: { parts: '{"answer":1}' } },
      'the key keeps the first answer',
    )
    await balanceAddsUp(t, ledger, account.id, 24)
  },
)

t.test('a batch cut before it reached the server: its debits are unavailable, and nothing is charged', async (t) => {
  const { proxy } = await database(t)
  const ledger = await openTestLedger(t, proxy.url)
  const { account } = await ledger.createAccount('never@example.pl', 40, 'grant', null)
  const cut = proxy.cutNextBatch('before')
  const debits = [charge(ledger, account.id, 8, golf), charge(ledger, account.id, 8, octavia)].map(settled)
  await cut
  for (const debit of await Promise.all(debits))
    t.match(debit, { code: 'unavailable', message: /found it not charged/ })
  await balanceAddsUp(t, ledger, account.id, 40)
  const next = await charge(ledger, account.id, 8, golf)
  t.same(next.ok && next.balance, 32, 'the next debit commits')
})

t.test(
  'a batch still running on the server when its connection is cut: the answer waits for the batch to end',
  async (t) => {
    const { url, proxy, admin } = await database(t)
    const ledger = await openTestLedger(t, proxy.url)
    const { account } = await ledger.createAccount('running@example.pl', 40, 'grant', null)
    // The account held by another transaction (of a connection of its own: a transaction
    // sees pg_stat_activity as it first read it): the batch waits for it on the server.
    const holder = new pg.Client({ connectionString: url })
    await holder.connect()
    t.teardown(() => holder.end())
    await holder.query('BEGIN')
    await holder.query('SELECT 1 FROM carmarket_accounts WHERE id = $1 FOR UPDATE', [account.id])
    const cut = proxy.cutNextBatch('sent')
    const debit = settled(charge(ledger, account.id, 8, golf))
    await cut
    await askingWaits(admin)
    // Only now may the batch go on, its connection long gone: it commits.
    await holder.query('ROLLBACK')
    t.match(
      await debit,
      { ok: true, balance: 32, entry: { credits: -8, balance_after: 32 } },
      'answered charged, not unavailable',
    )
    await balanceAddsUp(t, ledger, account.id, 32)
  },
)

t.test(
  'PostgreSQL out of reach: the debits in doubt are answered so within the bound, and an event names their batch once its outcome could not be learned',
  async (t) => {
    const { proxy, admin } = await database(t)
    const ledger = await openTestLedger(t, proxy.url)
    const first = (await ledger.createAccount('first@example.pl', 40, 'grant', null)).account.id
    const second = (await ledger.createAccount('second@example.pl', 40, 'grant', null)).account.id
    const stderr = t.capture(process.stderr, 'write')
    const cut = proxy.cutNextBatch('answer', true)
    const started = Date.now()
    const debits = [charge(ledger, first, 8, golf), charge(ledger, second, 8, golf)].map(settled)
    await cut
    // Once the pool has seen its connections go.
    await sleep(100)
    const meanwhile = Date.now()
    t.match(await settled(charge(ledger, first, 8, octavia)), { code: 'unavailable' }, 'a debit of the outage')
    t.ok(
      Date.now() - meanwhile < 1_000,
      'fails at once: the pool cannot connect, and the batch in doubt holds no place',
    )

    for (const debit of await Promise.all(debits))
      t.match(debit, { code: 'in_doubt' }, 'in doubt: neither charged nor said not to be')
    const waited = Date.now() - started
    t.ok(
      waited >= SHARED_WORK_WITHIN_MS - 100 && waited < SHARED_WORK_WITHIN_MS + 400,
      `answered at the bound, ${waited} ms, while the ledger goes on asking`,
    )
    // What was written so far; each call of args() takes what came since the last.
    const events: Record<string, unknown>[] = []
    const doubtEvent = () => {
      events.push(...stderr.args().map(([line]) => JSON.parse(String(line)) as Record<string, unknown>))
      return events.find((event) => event.level === 'error' && String(event.message).startsWith('debits in doubt'))
    }
    while (doubtEvent() === undefined && Date.now() - started < OUTCOME_WAIT_MS + 3_000) await sleep(100)
    const doubt = doubtEvent()
    t.ok(Date.now() - started >= OUTCOME_WAIT_MS - 500, 'told once the ledger gave up asking')
    t.match(
      doubt,
      { batch: /^[0-9a-f-]{36}$/, debits: 2, find: /carmarket_batch_outcome\('[0-9a-f-]{36}'\)/ },
      'the event names the batch, how many debits, and how to find them',
    )

    proxy.restore()
    const found = await admin.query<{ account_id: string }>(
      'SELECT account_id FROM carmarket_entries WHERE batch = $1 ORDER BY account_id',
      [doubt?.batch],
    )
    t.same(
      found.rows.map((row) => row.account_id),
      [first, second].sort(),
      'the batch had committed: the operator finds its charges by its id',
    )
  },
)

t.test(
  'a debit answered in doubt whose batch turns out to have committed: its charge is given back, unless an Idempotency-Key keeps its answer',
  async (t) => {
    const { proxy } = await database(t)
    const ledger = await openTestLedger(t, proxy.url)
    const { account } = await ledger.createAccount('late@example.pl', 40, 'grant', null)
    const cut = proxy.cutNextBatch('answer', true)
    const plain = settled(charge(ledger, account.id, 8, golf))
    const keyed = ledger
      .chargeAll(account.id, {
        debits: [{ credits: 8, call: octavia }],
        remember: { key: 'k-late', fingerprint: 'octavia', token: 'late', parts: '{"answer":1}' },
      })
      .catch((error: unknown) => error)
    await cut
    t.match(await plain, { code: 'in_doubt' })
    t.match(await keyed, { code: 'in_doubt' })
    // Back before the ledger gives up asking: it learns that both were charged.
    proxy.restore()
    let entries = await ledger.entries(account.id, 10)
    for (let i = 0; i < 100 && !entries.some((e) => e.type === 'grant' && e.reference?.startsWith('refund')); i++) {
      await sleep(50)
      entries = await ledger.entries(account.id, 10)
    }
    const charges = entries.filter((e) => e.type === 'charge')
    t.equal(charges.length, 2, 'both debits were charged')
    const golfCharge = charges.find((e) => e.model === 'Golf')!
    t.match(
      entries.filter((e) => e.type === 'grant' && e.reference?.startsWith('refund')),
      [{ credits: 8, reference: new RegExp(`^refund of ${golfCharge.id}: `) }],
      'the plain one is given back, naming its charge; the one under a key is kept for its retry',
    )
    t.match(
      await ledger.startIdempotent(account.id, { key: 'k-late', fingerprint: 'octavia' }),
      { state: 'done', answer: { parts: '{"answer":1}' } },
      'whose retry gets the answer paid for',
    )
    await balanceAddsUp(t, ledger, account.id, 32)
  },
)

t.test(
  'PostgreSQL killed under load and started again: every debit answered charged is in the ledger, and no other',
  async (t) => {
    const server = await privatePostgres(t)
    await migrate(server.url)
    const ledger = await openTestLedger(t, server.url)
    const accounts = await Promise.all(
      Array.from(
        { length: 4 },
        async (_, i) => (await ledger.createAccount(`load${i}@example.pl`, 1_000_000, 'grant', null)).account.id,
      ),
    )
    const charged = new Set<string>()
    let unavailable = 0
    let waited = 0
    let restarted = Infinity
    let running = true
    const loops = Array.from({ length: 20 }, async (_, loop) => {
      while (running) {
        const sent = Date.now()
        const result = await settled(charge(ledger, accounts[loop % accounts.length]!, 8, golf))
        if (sent < restarted && Date.now() > restarted) waited++
        if (result instanceof LedgerError) {
          t.ok(result.code === 'unavailable' || result.code === 'in_doubt', result.code)
          unavailable++
          await sleep(20)
        } else if (result.ok) charged.add(result.entry.id)
      }
    })
    await sleep(500)
    await server.stop('immediate')
    await sleep(1_000)
    await server.start()
    restarted = Date.now()
    await sleep(500)
    running = false
    await Promise.all(loops)

    t.comment(
      `${charged.size} debits charged, ${unavailable} unavailable, ${waited} sent before PostgreSQL was back and answered once it was`,
    )
    t.ok(unavailable > 0, 'debits failed while PostgreSQL was down')
    // A debit answered in doubt that committed all the same is given back once the ledger learns it.
    const { kept: entries, refunded } = chargesKept(await entriesOnceSettled(ledger, accounts, charged.size))
    t.comment(`${refunded.length} charges given back`)
    t.same(
      entries.map((e) => e.id).sort(),
      [...charged].sort(),
      'the charges in the ledger, less those given back, are exactly the debits answered charged',
    )
    for (const id of accounts)
      await balanceAddsUp(t, ledger, id, 1_000_000 - 8 * entries.filter((e) => e.id.startsWith(`${id}-`)).length)
  },
)
