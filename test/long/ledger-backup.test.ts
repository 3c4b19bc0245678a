import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { LmdbLedger } from '../../ledger/lmdb-ledger.js'
import { build, carmarket, freshDir, rows, spawnServe, toCsv } from '../support.js'

/** `carmarket ledger backup` of an LMDB ledger under load: a copy of one committed moment. */

t.test('carmarket ledger backup: a consistent copy taken while two workers debit', async (t) => {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const ledger = freshDir(t)
  const created = await carmarket([
    'accounts',
    'create',
    '--ledger',
    ledger,
    '--email',
    'kopia@example.pl',
    '--credits',
    '80000',
    '--json',
  ])
  const { account_id: id, key } = JSON.parse(created.stdout) as { account_id: string; key: string }
  const { port } = await spawnServe(t, [
    '--workers',
    '2',
    '--snapshots',
    snapshots,
    '--ledger',
    ledger,
    '--rate-limit',
    '0',
  ])
  let loading = true
  let answered = 0
  const load = Promise.all(
    Array.from({ length: 8 }, async () => {
      while (loading) {
        const response = await request(`http://127.0.0.1:${port}/v1/market/valuation?make=VW&model=Golf&year=2017`, {
          headers: { 'x-api-key': key },
        })
        await response.body.dump()
        if (response.statusCode === 200) answered++
      }
    }),
  )
  while (answered < 200) await new Promise((resolve) => setTimeout(resolve, 20))
  const copy = join(freshDir(t), 'backup')
  const backup = await carmarket(['ledger', 'backup', '--ledger', ledger, '--to', copy, '--json'])
  const during = answered
  loading = false
  await load
  t.equal(backup.code, 0, backup.stderr)
  t.same(JSON.parse(backup.stdout), { backup: copy })
  t.equal(
    (await carmarket(['ledger', 'backup', '--ledger', ledger, '--to', copy])).code,
    1,
    'never over an existing backup',
  )

  // The copy is a ledger of one committed moment: its balance is the sum of its entries.
  const restored = LmdbLedger.open(copy)
  t.teardown(() => restored.close())
  const account = (await restored.account(id))!
  const entries = await restored.entries(id, 200_000)
  t.equal(entries.length, account.entries, 'every entry the account counts is there')
  t.equal(
    entries.reduce((sum, e) => sum + e.credits, 0),
    account.balance,
  )
  t.ok(account.used >= 8 * 200 && account.used <= 8 * during + 8 * 8, 'the debits up to the moment of the copy')
  t.equal((await restored.authenticate(key))?.id, id, 'keys work from the copy')
})
