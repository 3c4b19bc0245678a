import pg from 'pg'
import t from 'tap'
import { openCounters, openLedger } from '../cli/engines.js'
import { SCHEMA_VERSION, migrate } from '../ledger/pg-schema.js'
import { freshDatabase } from './services.js'
import { charge, openTestLedger } from './ledger-engines.js'

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

t.test('a database without the ledger is refused until migrated', async (t) => {
  const url = await freshDatabase(t)
  await t.rejects(openLedger(url), { code: 'schema' }, 'the ledger')
  await t.rejects(openCounters(url), { code: 'schema' }, 'the counters')
  t.same(await migrate(url), { from: 0, to: SCHEMA_VERSION })
  const ledger = await openLedger(url)
  t.teardown(() => ledger.close())
  const counters = await openCounters(url)
  t.teardown(() => counters.close())
  t.equal((await ledger.createAccount('first@example.pl', 5, 'grant', null)).account.balance, 5)
})

t.test('migrating again changes nothing, and an open ledger goes on through it', async (t) => {
  const url = await freshDatabase(t)
  await migrate(url)
  const ledger = await openTestLedger(t, url)
  const { account } = await ledger.createAccount('kept@example.pl', 40, 'grant', null)
  t.same(await migrate(url), { from: SCHEMA_VERSION, to: SCHEMA_VERSION }, 'already current')
  t.equal(
    (await charge(ledger, account.id, 8, { endpoint: 'valuation', make: null, model: null, year: null })).ok,
    true,
    'the open ledger goes on',
  )
  t.equal((await ledger.account(account.id))?.balance, 32)
})

t.test('two migrations at once take turns: one does the work, the other finds it done', async (t) => {
  const url = await freshDatabase(t)
  const results = await Promise.all([migrate(url), migrate(url), migrate(url)])
  t.same(results.map((r) => r.from).sort(), [0, SCHEMA_VERSION, SCHEMA_VERSION], 'exactly one found the database empty')
  t.ok(results.every((r) => r.to === SCHEMA_VERSION))
  const ledger = await openTestLedger(t, url)
  await ledger.probe()
})

t.test('a ledger of a newer schema is refused, by the engines and by migrate', async (t) => {
  const url = await freshDatabase(t)
  await migrate(url)
  await sql(url, `UPDATE carmarket_schema SET version = ${SCHEMA_VERSION + 1}`)
  await t.rejects(openLedger(url), { code: 'schema' })
  await t.rejects(openCounters(url), { code: 'schema' })
  await t.rejects(migrate(url), { code: 'schema' })
})

t.test('a ledger of an older schema is refused until migrated', async (t) => {
  const url = await freshDatabase(t)
  await migrate(url)
  await sql(url, `UPDATE carmarket_schema SET version = 1`)
  await t.rejects(openLedger(url), {
    code: 'schema',
    message: new RegExp(
      `schema version 1, older than this carmarket's ${SCHEMA_VERSION}: run carmarket ledger migrate`,
    ),
  })
  await t.rejects(openCounters(url), { code: 'schema' })
})

t.test('servers of version 1 go on debiting after version 2’s migration: their batch function is kept', async (t) => {
  const url = await freshDatabase(t)
  await migrate(url)
  const ledger = await openTestLedger(t, url)
  const { account } = await ledger.createAccount('older@example.pl', 40, 'grant', null)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())
  const charged = await client.query(
    `SELECT o_outcome, o_balance FROM carmarket_charge_batch($1, $2, $3, $4, $5, $6, $7)`,
    [[account.id], [8], [true], ['valuation'], [null], [null], [null]],
  )
  t.same(charged.rows, [{ o_outcome: 'ok', o_balance: '32' }])
  const entries = await client.query(`SELECT batch FROM carmarket_entries WHERE account_id = $1 AND type = 'charge'`, [
    account.id,
  ])
  t.same(entries.rows, [{ batch: null }], 'its entries carry no batch')
  t.equal((await ledger.account(account.id))?.balance, 32)
})

t.test('servers of version 2 go on debiting after version 3’s migration: their batch function is kept', async (t) => {
  const url = await freshDatabase(t)
  await migrate(url)
  const ledger = await openTestLedger(t, url)
  const { account } = await ledger.createAccount('v2@example.pl', 40, 'grant', null)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())
  const batch = '5b8f7a34-0c6e-4d2f-9a17-3e4b6c8d9f01'
  const charged = await client.query(
    `SELECT o_outcome, o_balance FROM carmarket_charge_batch_v2($1, $2, $3, $4, $5, $6, $7, $8)`,
    [batch, [account.id], [8], [true], ['valuation'], [null], [null], [null]],
  )
  t.same(charged.rows, [{ o_outcome: 'ok', o_balance: '32' }])
  const entries = await client.query(`SELECT batch FROM carmarket_entries WHERE account_id = $1 AND type = 'charge'`, [
    account.id,
  ])
  t.same(entries.rows, [{ batch }], 'its entries carry their batch, as before')
  t.equal((await ledger.account(account.id))?.balance, 32, 'and this version reads what it wrote')
  t.equal(
    (await charge(ledger, account.id, 8, { endpoint: 'valuation', make: null, model: null, year: null })).ok,
    true,
  )
  t.equal((await ledger.account(account.id))?.balance, 24)
})

t.test('a server that cannot be reached is unavailable, at once', async (t) => {
  const started = Date.now()
  await t.rejects(openLedger('postgres://root@127.0.0.1:1/nothing'), { code: 'unavailable' })
  await t.rejects(migrate('postgres://root@127.0.0.1:1/nothing'), { code: 'unavailable' })
  t.ok(Date.now() - started < 5_000)
})
