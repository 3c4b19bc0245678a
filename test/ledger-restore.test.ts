import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { openLedger } from '../cli/engines.js'
import { charge } from './ledger-engines.js'
import { account, build, carmarket, freshDir, rows, spawnServe, toCsv } from './support.js'

/** `carmarket ledger restore`: a backup put back only once the operator knows what it lacks. */

const CALL = { endpoint: 'valuation', make: 'VW', model: 'Golf', year: 2017 }

/** A ledger, its backup, and what happened after the backup: an account opened, a key issued, a grant, two charges. */
async function ledgerAfterBackup(t: Test) {
  const dir = freshDir(t)
  const kept = await account(dir, 'kept@example.pl', 100)
  const rotated = await account(dir, 'rotated@example.pl', 50)
  const backup = join(freshDir(t), 'backup')
  t.equal((await carmarket(['ledger', 'backup', '--ledger', dir, '--to', backup])).code, 0, 'backed up')
  const later = await account(dir, 'later@example.pl', 30)
  const ledger = await openLedger(dir)
  const newKey = await ledger.issueKey(rotated.id)
  await ledger.grant(kept.id, 500, 'FV/2026/11/9')
  await charge(ledger, kept.id, 8, CALL)
  await charge(ledger, kept.id, 8, CALL)
  await ledger.close()
  return { dir, backup, kept, rotated, later, newKey }
}

const balanceOf = async (dir: string, id: string) => {
  const ledger = await openLedger(dir)
  try {
    return (await ledger.account(id))?.balance
  } finally {
    await ledger.close()
  }
}

t.test('without --force: what the backup lacks, and nothing changed', async (t) => {
  const { dir, backup, kept, later } = await ledgerAfterBackup(t)
  const before = readdirSync(dir).sort()
  const run = await carmarket(['ledger', 'restore', '--ledger', dir, '--from', backup])
  t.equal(run.code, 1, 'not restored: exit status 1')
  t.match(run.stdout, /1 account opened since, whose keys would be refused: later@example\.pl/)
  t.match(run.stdout, /1 key issued since, refused after the restore .*: rotated@example\.pl/)
  t.match(run.stdout, /2 grants since, 530 credits that would be gone/, 'the grant and the new account')
  t.match(run.stdout, /2 charges since, 16 credits that could be spent again/)
  t.match(run.stdout, /--force/)
  t.same(readdirSync(dir).sort(), before, 'no file added or left behind')
  t.equal(await balanceOf(dir, kept.id), 584, 'the current ledger as it was')
  t.equal(await balanceOf(dir, later.id), 30)

  const json = await carmarket(['ledger', 'restore', '--ledger', dir, '--from', backup, '--json'])
  const report = JSON.parse(json.stdout)
  t.same(
    [report.restored, report.lacks.accounts, report.lacks.keys, report.lacks.grants, report.lacks.charges],
    [false, ['later@example.pl'], ['rotated@example.pl'], { count: 2, credits: 530 }, { count: 2, credits: 16 }],
    'the same as JSON',
  )
})

t.test('with --force: the backup is the ledger, the one it replaced kept beside it', async (t) => {
  const { dir, backup, kept, rotated, later, newKey } = await ledgerAfterBackup(t)
  const run = await carmarket(['ledger', 'restore', '--ledger', dir, '--from', join(backup, 'ledger.mdb'), '--force'])
  t.equal(run.code, 0, run.stderr)
  const replaced = readdirSync(dir).filter((name) => name.startsWith('ledger.mdb.replaced-'))
  t.equal(replaced.length, 1, 'the ledger replaced is kept')
  t.match(run.stdout, replaced[0]!, 'and named')
  t.equal(await balanceOf(dir, kept.id), 100, "the backup's balance")
  t.equal(await balanceOf(dir, later.id), undefined, 'the account opened since is gone')
  const ledger = await openLedger(dir)
  t.equal((await ledger.authenticate(rotated.key))?.id, rotated.id, 'the key before the new one works again')
  t.equal(await ledger.authenticate(newKey), undefined, 'the new one does not')
  await ledger.close()
  t.notOk(
    readdirSync(dir).some((name) => name.startsWith('.restoring-')),
    'no copy left behind',
  )
})

t.test('a backup that lacks nothing, and a folder with no ledger yet, need no --force', async (t) => {
  const dir = freshDir(t)
  await account(dir, 'same@example.pl', 10)
  const backup = join(freshDir(t), 'backup')
  await carmarket(['ledger', 'backup', '--ledger', dir, '--to', backup])
  const same = await carmarket(['ledger', 'restore', '--ledger', dir, '--from', backup])
  t.equal(same.code, 0, same.stderr)
  t.match(same.stdout, /lacks nothing/)
  const empty = join(freshDir(t), 'new-ledger')
  const first = await carmarket(['ledger', 'restore', '--ledger', empty, '--from', backup])
  t.equal(first.code, 0, first.stderr)
  t.ok(existsSync(join(empty, 'ledger.mdb')))
  t.equal(readdirSync(empty).filter((name) => name.startsWith('ledger.mdb.replaced-')).length, 0)
})

t.test('refused while a server has the ledger open, and for what is not a backup', async (t) => {
  const { dir, backup, kept } = await ledgerAfterBackup(t)
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const { child } = await spawnServe(t, ['--snapshots', snapshots, '--ledger', dir])
  const run = await carmarket(['ledger', 'restore', '--ledger', dir, '--from', backup, '--force'])
  t.not(run.code, 0)
  t.match(run.stderr, new RegExp(`open in process .*${child.pid}`), 'names the server')
  t.equal(await balanceOf(dir, kept.id), 584, 'the ledger untouched')
  t.notOk(readdirSync(dir).some((name) => name.startsWith('.restoring-') || name.includes('replaced')))

  const nothing = await carmarket(['ledger', 'restore', '--ledger', dir, '--from', join(backup, 'missing')])
  t.equal(nothing.code, 1)
  t.match(nothing.stderr, /no ledger backup there/)
  const pg = await carmarket(['ledger', 'restore', '--ledger', 'postgres://root@127.0.0.1/test', '--from', backup])
  t.equal(pg.code, 2)
  t.match(pg.stderr, /pg_restore/)
})
