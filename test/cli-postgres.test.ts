import t from 'tap'
import { SCHEMA_VERSION } from '../ledger/pg-schema.js'
import { freshDatabase } from './services.js'
import { carmarket, freshDir } from './support.js'

t.test(
  'carmarket ledger migrate: a PostgreSQL ledger is created, then found current; operator commands wait for it',
  async (t) => {
    const url = await freshDatabase(t)
    const before = await carmarket(['accounts', 'create', '--ledger', url, '--email', 'early@example.pl'])
    t.equal(before.code, 1, 'refused before the schema exists')
    t.match(before.stderr, /carmarket ledger migrate/, 'and told what to run')
    t.notMatch(before.stderr, /unexpected error/)

    const first = await carmarket(['ledger', 'migrate', '--ledger', url, '--json'])
    t.equal(first.code, 0, first.stderr)
    t.same(JSON.parse(first.stdout), { engine: 'postgresql', from: 0, to: SCHEMA_VERSION })
    const again = await carmarket(['ledger', 'migrate', '--ledger', url])
    t.equal(again.code, 0, again.stderr)
    t.match(again.stdout, new RegExp(`version ${SCHEMA_VERSION} already`))

    const created = await carmarket([
      'accounts',
      'create',
      '--ledger',
      url,
      '--email',
      'early@example.pl',
      '--credits',
      '30',
      '--json',
    ])
    t.equal(created.code, 0, created.stderr)
    const shown = JSON.parse(
      (await carmarket(['accounts', 'show', '--ledger', url, '--email', 'early@example.pl', '--json'])).stdout,
    )
    t.same([shown.balance, shown.status, shown.key_delivered], [30, 'active', true])
  },
)

t.test('carmarket ledger migrate on a folder: LMDB needs none', async (t) => {
  const run = await carmarket(['ledger', 'migrate', '--ledger', freshDir(t), '--json'])
  t.equal(run.code, 0, run.stderr)
  t.same(JSON.parse(run.stdout), { engine: 'lmdb' })
})

t.test('carmarket ledger backup of a PostgreSQL ledger says to use pg_dump', async (t) => {
  const url = await freshDatabase(t)
  t.equal((await carmarket(['ledger', 'migrate', '--ledger', url])).code, 0)
  const backup = await carmarket(['ledger', 'backup', '--ledger', url, '--to', freshDir(t)])
  t.equal(backup.code, 1)
  t.match(backup.stderr, /pg_dump/)
  t.notMatch(backup.stderr, /unexpected error/)
})

t.test('a PostgreSQL ledger that cannot be reached: a clear refusal, no stack', async (t) => {
  const run = await carmarket([
    'accounts',
    'show',
    '--ledger',
    'postgres://root:secret@127.0.0.1:1/ledger',
    '--account',
    'acc_x',
  ])
  t.equal(run.code, 1)
  t.match(run.stderr, /unavailable/)
  t.notMatch(run.stderr, /unexpected error|secret/, 'nor the password of the URL')
})

t.test('a PostgreSQL URL that cannot be parsed: a usage error that does not repeat it', async (t) => {
  const run = await carmarket(['ledger', 'migrate', '--ledger', 'postgres://root:secret@[::1/ledger'])
  t.equal(run.code, 2)
  t.match(run.stderr, /cannot be parsed/, 'says what is wrong')
  t.notMatch(run.stderr, /unexpected error|secret/)
})
