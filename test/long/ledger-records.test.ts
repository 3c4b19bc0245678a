import { join } from 'node:path'
import { open } from 'lmdb'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { LEDGER_FILE, LmdbLedger } from '../../ledger/lmdb-ledger.js'
import { smallDisk } from '../disk.js'
import { account, build, carmarket, freshDir, rows, spawnServe, toCsv } from '../support.js'

/**
 * An LMDB ledger's records must be readable by any process whatever commits failed. A
 * record of a new shape (an account's first failure entry of a day, or its first
 * Idempotency-Key) is written against a structure the encoder learns as it writes it; a
 * commit that fails on a full disk must not leave this process writing later records
 * against a structure no other process knows.
 */

const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'

async function call(port: number, path: string, headers: Record<string, string>) {
  const response = await request(`http://127.0.0.1:${port}${path}`, { headers, reset: true })
  await response.body.dump()
  return response.statusCode
}

/**
 * A server on a ledger whose disk is filled, a call of the new shape made while it is
 * full, and another once it is not; then a new process must read the account.
 */
async function bricked(t: Test, shape: (i: number) => { path: string; headers: Record<string, string> }) {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const disk = smallDisk(t, 4 << 20)
  const ledgerDir = join(disk.dir, 'ledger')
  const { id, key } = await account(ledgerDir, 'full@example.pl', 100_000)
  const args = ['--snapshots', snapshots, '--ledger', ledgerDir, '--rate-limit', '0', '--no-request-log']
  const server = await spawnServe(t, args)
  const keyed = { 'x-api-key': key }
  t.equal(await call(server.port, VALUATION, keyed), 200, 'a paid call before the disk fills')
  disk.fill()
  // Paid calls until the ledger's commits fail: LMDB first fills the pages its own commits freed.
  let status = 200
  for (let i = 0; i < 5_000 && status === 200; i++) status = await call(server.port, VALUATION, keyed)
  t.equal(status, 503, 'the full disk refuses paid calls')
  const during = shape(0)
  const refused = await call(server.port, during.path, { ...keyed, ...during.headers })
  t.ok(refused === 503 || refused < 500, `a call of the new shape: ${refused}`)
  disk.free()
  const after = shape(1)
  let again = 503
  for (let i = 0; i < 100 && again === 503; i++) {
    again = await call(server.port, after.path, { ...keyed, ...after.headers })
    if (again === 503) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.ok(again < 500, `the same shape once space returns: ${again}`)
  t.equal(await call(server.port, VALUATION, keyed), 200, 'and a paid call')
  server.child.kill('SIGKILL')
  await new Promise((resolve) => server.child.once('exit', resolve))

  // Another process reads the account and its history, and serves it.
  const shown = await carmarket(['accounts', 'show', '--ledger', ledgerDir, '--account', id])
  t.equal(shown.code, 0, `accounts show: ${shown.stderr}`)
  const usage = await carmarket(['usage', '--ledger', ledgerDir, '--account', id, '--limit', '10000'])
  t.equal(usage.code, 0, `usage: ${usage.stderr}`)
  const granted = await carmarket([
    ...['credits', 'grant', '--ledger', ledgerDir, '--account', id],
    ...['--credits', '10', '--reference', 'after the full disk'],
  ])
  t.equal(granted.code, 0, `credits grant: ${granted.stderr}`)
  const restarted = await spawnServe(t, args)
  t.equal(await call(restarted.port, VALUATION, keyed), 200, 'a restarted server serves the key')
}

t.test('a failure entry whose commit failed on a full disk leaves every record readable', (t) =>
  bricked(t, (i) => ({ path: `/v1/market/valuation?make=VW&model=Golf&year=${1850 + i}`, headers: {} })),
)

t.test('an Idempotency-Key whose commit failed on a full disk leaves every record readable', (t) =>
  bricked(t, (i) => ({ path: VALUATION, headers: { 'idempotency-key': `after-the-full-disk-${i}` } })),
)

t.test(
  'a ledger of the earlier layout, its records written against shared shapes, is read whole after the upgrade',
  async (t) => {
    // A ledger as this code writes it, its records then written into a new file the way layouts 1 and 2 kept them.
    const source = freshDir(t)
    const ledger = LmdbLedger.open(source)
    const { account: opened, key } = await ledger.createAccount('early@example.pl', 100, 'grant', 'before the upgrade')
    await ledger.recordFailure(
      opened.id,
      { endpoint: 'valuation', make: 'VW', model: 'Golf', year: 1850 },
      'INVALID_PARAMETER',
    )
    await ledger.grant(opened.id, 25, 'a top-up')
    const expected = { account: await ledger.account(opened.id), entries: await ledger.entries(opened.id, 100) }
    await ledger.close()

    const earlier = freshDir(t)
    const from = open({ path: join(source, LEDGER_FILE), maxDbs: 16, readOnly: true })
    const to = open({ path: join(earlier, LEDGER_FILE), maxDbs: 16 })
    const shaped = { sharedStructuresKey: Symbol.for('structures') }
    const whole = { encoder: { useRecords: false } }
    for (const [now, then] of [
      ['account_records', 'accounts'],
      ['key_records', 'keys'],
      ['entry_records', 'entries'],
    ]) {
      const records = from.openDB({ name: now!, ...whole })
      const old = to.openDB({ name: then!, ...shaped })
      for (const { key: k, value } of records.getRange()) await old.put(k, value)
    }
    const emails = to.openDB({ name: 'emails' })
    for (const { key: k, value } of from.openDB({ name: 'emails' }).getRange()) await emails.put(k, value)
    await to.openDB({ name: 'meta' }).put('layout', 2)
    await from.close()
    await to.close()

    const upgraded = LmdbLedger.open(earlier)
    t.teardown(() => upgraded.close())
    t.same(await upgraded.authenticate(key), expected.account, 'the key finds its account')
    t.same(await upgraded.account(opened.id), expected.account, 'the account')
    t.same(await upgraded.entries(opened.id, 100), expected.entries, 'its history')
    t.same((await upgraded.accountByEmail('early@example.pl'))?.id, opened.id, 'its mailbox')
    const charged = await upgraded.chargeAll(opened.id, {
      debits: [{ credits: 8, call: { endpoint: 'valuation', make: 'VW', model: 'Golf', year: 2017 } }],
    })
    t.ok(charged.ok && charged.outcomes[0]!.charged, 'and it is charged as before')
  },
)
