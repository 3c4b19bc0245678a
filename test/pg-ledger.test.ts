import pg from 'pg'
import t from 'tap'
import { openPool } from '../ledger/pg-connection.js'
import type { Call } from '../ledger/types.js'
import { balanceAddsUp, charge, migratedDatabase, openTestLedger, type ChargeResult } from './ledger-engines.js'

/**
 * What the PostgreSQL engine does beyond what every engine does (test/ledger.test.ts): its failures, its recovery, its
 * batching.
 */

const call: Call = { endpoint: 'valuation', make: 'Skoda', model: 'Octavia', year: 2018 }

/** Holds the account's row locked from another connection while `during` runs; a debit of it waits meanwhile. */
async function holdingAccount<T>(admin: pg.Client, id: string, during: () => Promise<T>): Promise<T> {
  await admin.query('BEGIN')
  await admin.query('SELECT 1 FROM carmarket_accounts WHERE id = $1 FOR UPDATE', [id])
  try {
    return await during()
  } finally {
    await admin.query('ROLLBACK')
  }
}

/** The server process of the engine's connection that waits for a lock, once one does. */
async function waitingBackend(admin: pg.Client): Promise<number> {
  for (;;) {
    const waiting = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    )
    if (waiting.rows[0] !== undefined) return waiting.rows[0].pid
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

t.test('a debit whose connection is cut is unavailable and not charged; the pool reconnects by itself', async (t) => {
  const { url, admin } = await migratedDatabase(t)
  const ledger = await openTestLedger(t, url)
  const { account } = await ledger.createAccount('cut@example.pl', 40, 'grant', null)
  const cut = await holdingAccount(admin, account.id, async () => {
    const debit = charge(ledger, account.id, 8, call).catch((error: unknown) => error)
    await admin.query('SELECT pg_terminate_backend($1)', [await waitingBackend(admin)])
    return debit
  })
  t.match(
    cut,
    { code: 'unavailable', message: /found it not charged/ },
    'the server ended the connection before the debit committed, which the ledger asked',
  )
  t.ok(ledger.health.failedAt !== undefined, 'the lost connection was told of')
  t.equal(ledger.health.failingSince, undefined, 'and the asking, on a new connection, committed: writes commit')
  t.equal(ledger.health.isBroken(), false, 'never broken for good')
  const next = await charge(ledger, account.id, 8, call)
  t.same(next.ok && next.balance, 32, 'the next debit commits, on a new connection')
  t.equal(ledger.health.failingSince, undefined, 'and writes are known to commit again')
  await balanceAddsUp(t, ledger, account.id, 32)
})

t.test('a debit held past the statement timeout is unavailable, and nothing of it is written', async (t) => {
  const { url, admin } = await migratedDatabase(t, '?statement_timeout=300')
  const ledger = await openTestLedger(t, url)
  const { account } = await ledger.createAccount('slow@example.pl', 40, 'grant', null)
  const started = Date.now()
  const held = await holdingAccount(admin, account.id, () =>
    charge(ledger, account.id, 8, call).catch((error: unknown) => error),
  )
  t.match(held, { code: 'unavailable' })
  t.ok(Date.now() - started < 3_000, 'refused within the timeout, not hung')
  await balanceAddsUp(t, ledger, account.id, 40)
})

t.test(
  'connections lost while idle (a server restart) are told of and replaced: each costs at most the call that meets it',
  async (t) => {
    const { url, admin } = await migratedDatabase(t)
    const ledger = await openTestLedger(t, url)
    const { account, key } = await ledger.createAccount('restart@example.pl', 40, 'grant', null)
    await Promise.all(Array.from({ length: 8 }, () => ledger.authenticate(key)))
    const others = `FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`
    const pooled = (await admin.query<{ n: number }>(`SELECT count(*)::integer AS n ${others}`)).rows[0]!.n
    await admin.query(`SELECT pg_terminate_backend(pid) ${others}`)
    while ((await admin.query(`SELECT 1 ${others}`)).rowCount !== 0)
      await new Promise((resolve) => setTimeout(resolve, 10))
    let failed = 0
    for (;;) {
      const found = await ledger.authenticate(key).catch((error: unknown) => {
        t.match(error, { code: 'unavailable' })
        failed++
      })
      if (found !== undefined) break
    }
    t.ok(
      failed <= pooled,
      `${failed} calls met one of the ${pooled} lost connections; then reads go on, on new connections`,
    )
    t.ok(ledger.health.failingSince !== undefined, 'the lost connections were told of')
    await ledger.probe()
    t.equal(ledger.health.failingSince, undefined, 'a probe that commits says writes commit again')
    await balanceAddsUp(t, ledger, account.id, 40)
  },
)

t.test(
  'the ledger’s connections commit synchronously whatever the database’s default or the URL say; the counters’ do not',
  async (t) => {
    const { url, admin } = await migratedDatabase(t)
    await admin.query(`ALTER DATABASE ${admin.database} SET synchronous_commit = off`)
    const given = `${url}?options=${encodeURIComponent('-c synchronous_commit=off -c lock_timeout=1234')}`
    const setting = async (synchronousCommit: 'on' | 'off') => {
      const pool = openPool(given, { max: 1, synchronousCommit, onIdleError: () => {} })
      try {
        const shown = await pool.query<{ commit: string; lock: string }>(
          `SELECT current_setting('synchronous_commit') AS commit, current_setting('lock_timeout') AS lock`,
        )
        return shown.rows[0]
      } finally {
        await pool.end()
      }
    }
    t.same(await setting('on'), { commit: 'on', lock: '1234ms' }, 'the ledger’s: on, and the URL’s other options kept')
    t.same(await setting('off'), { commit: 'off', lock: '1234ms' }, 'the counters’: off')
  },
)

t.test(
  'a connection cut while it is checked out between two queries throws nothing: its next query fails, and the pool goes on',
  async (t) => {
    const { url, admin } = await migratedDatabase(t)
    const idleErrors: string[] = []
    const pool = openPool(url, { max: 2, synchronousCommit: 'on', onIdleError: (e) => idleErrors.push(e.message) })
    t.teardown(() => pool.end())
    // Held as the engines hold one: taken, a query, then a moment with no query in flight.
    const client = await pool.connect()
    const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!
    await admin.query('SELECT pg_terminate_backend($1)', [pid])
    // The server's "terminating connection" reaches the client while nothing listens but the pool's own handler;
    // unheard, node-postgres throws it out of the socket's event, and the process ends.
    await new Promise((resolve) => setTimeout(resolve, 300))
    await t.rejects(client.query('SELECT 1'), 'the next query on the cut connection fails')
    client.release(true)
    t.same((await pool.query<{ one: number }>('SELECT 1 AS one')).rows, [{ one: 1 }], 'a new connection answers')
    t.same(idleErrors, [], 'a connection in use is no idle one')
  },
)

t.test('a ledger is backed up with pg_dump, not by carmarket', async (t) => {
  const { url } = await migratedDatabase(t)
  const ledger = await openTestLedger(t, url)
  await t.rejects(ledger.backup('/tmp/never'), { code: 'not_supported' })
})

t.test('concurrent debits share commits: 50 charging loops', async (t) => {
  const { url } = await migratedDatabase(t)
  const ledger = await openTestLedger(t, url)
  const accounts = await Promise.all(
    Array.from(
      { length: 5 },
      async (_, i) => (await ledger.createAccount(`loop${i}@example.pl`, 1_000_000, 'grant', null)).account.id,
    ),
  )
  const before = ledger.commits.charge
  let debits = 0
  const until = Date.now() + 1_500
  const started = Date.now()
  await Promise.all(
    Array.from({ length: 50 }, async (_, loop) => {
      while (Date.now() < until) {
        const result: ChargeResult = await charge(ledger, accounts[loop % accounts.length]!, 8, call)
        if (result.ok) debits++
      }
    }),
  )
  const seconds = (Date.now() - started) / 1000
  const commits = ledger.commits.charge - before
  t.comment(
    `${debits} debits in ${commits} commits: ${(debits / commits).toFixed(1)} debits per commit, ${Math.round(debits / seconds)} debits/s`,
  )
  t.ok(debits / commits >= 4, 'many debits per commit, never one commit per debit')
  for (const id of accounts) {
    const account = (await ledger.account(id))!
    const entries = await ledger.entries(id, 1_000_000)
    t.equal(
      entries.reduce((sum, e) => sum + e.credits, 0),
      account.balance,
      'balance = sum of entries',
    )
  }
})

t.test(
  'a sweep takes the accounts first, as calls do: a call that holds an account and lets go of its expired key never deadlocks with it',
  async (t) => {
    const { url, admin } = await migratedDatabase(t)
    const ledger = await openTestLedger(t, url)
    const { account } = await ledger.createAccount('sweep@example.pl', 40, 'grant', null)
    await ledger.chargeAll(account.id, {
      debits: [{ credits: 8, call }],
      remember: { key: 'k-expired', fingerprint: 'octavia', token: 'first', parts: '{}' },
    })
    // A day old by the server's clock, by which keys expire.
    await admin.query(`UPDATE carmarket_idempotency SET created = created - interval '1 day 1 second'`)
    // A call holding the account (as a call taking up the expired key again does), while the sweep starts.
    await admin.query('BEGIN')
    await admin.query('SELECT 1 FROM carmarket_accounts WHERE id = $1 FOR NO KEY UPDATE', [account.id])
    const sweeping = ledger.sweep(Date.now())
    await waitingBackend(admin)
    // The call drops the old use of the key. A sweep that had deleted it first and then waited for the account would
    // make the two wait for each other, and one of them fail.
    await admin.query(`SELECT carmarket_idempotency_drop($1, 'k-expired')`, [account.id])
    await admin.query('COMMIT')
    await sweeping
    const left = await admin.query<{ kept: number; counted: number }>(
      `SELECT (SELECT count(*)::integer FROM carmarket_idempotency) AS kept, idempotency_count AS counted
         FROM carmarket_accounts WHERE id = $1`,
      [account.id],
    )
    t.same(left.rows, [{ kept: 0, counted: 0 }], 'the key is gone and the account counts it once')
    await balanceAddsUp(t, ledger, account.id, 32)
  },
)
