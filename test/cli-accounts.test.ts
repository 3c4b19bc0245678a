import t from 'tap'
import { request } from 'undici'
import { ENGINES } from './ledger-engines.js'
import { build, carmarket, freshDir, rows, spawnServe, toCsv } from './support.js'

for (const engine of ENGINES) {
  t.test(`the operator CLI manages accounts while serve runs on the same ${engine.name} ledger`, async (t) => {
    const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const ledger = await engine.fresh(t)
    const { port } = await spawnServe(t, ['--snapshots', snapshots, '--ledger', ledger, '--rate-limit', '0'])
    const call = async (key: string) => {
      const response = await request(`http://127.0.0.1:${port}/v1/market/valuation?make=VW&model=Golf&year=2017`, {
        headers: { 'x-api-key': key },
      })
      return {
        status: response.statusCode,
        body: (await response.body.json()) as { data?: { credits_remaining: number }; error?: { code: string } },
      }
    }

    const created = await carmarket([
      'accounts',
      'create',
      '--ledger',
      ledger,
      '--email',
      'Floty@Example.pl',
      '--credits',
      '20',
      '--json',
    ])
    t.equal(created.code, 0, created.stderr)
    const { account_id: id, key } = JSON.parse(created.stdout) as { account_id: string; key: string }
    t.match(key, /^cm_/)
    t.equal((await call(key)).body.data?.credits_remaining, 12, 'the running server knows the new account at once')

    const again = await carmarket(['accounts', 'create', '--ledger', ledger, '--email', 'floty@example.pl'])
    t.equal(again.code, 1)
    t.match(again.stderr, /exists already/)

    const granted = await carmarket([
      'credits',
      'grant',
      '--ledger',
      ledger,
      '--account',
      id,
      '--credits',
      '100',
      '--reference',
      'FV/2026/11/7',
      '--json',
    ])
    t.same(JSON.parse(granted.stdout).balance_after, 112)

    t.equal((await carmarket(['accounts', 'disable', '--ledger', ledger, '--email', 'floty@example.pl'])).code, 0)
    t.same((await call(key)).body.error?.code, 'ACCOUNT_DISABLED', 'refused from the next request on')
    t.equal((await carmarket(['accounts', 'enable', '--ledger', ledger, '--account', id])).code, 0)

    const reissued = JSON.parse(
      (await carmarket(['keys', 'issue', '--ledger', ledger, '--account', id, '--json'])).stdout,
    ) as { key: string }
    t.same((await call(key)).body.error?.code, 'UNAUTHORIZED', 'the old key stops working')
    t.equal((await call(reissued.key)).body.data?.credits_remaining, 104)

    const shown = JSON.parse(
      (await carmarket(['accounts', 'show', '--ledger', ledger, '--account', id, '--json'])).stdout,
    )
    t.same([shown.balance, shown.granted, shown.used, shown.status], [104, 120, 16, 'active'])
    const usage = JSON.parse(
      (await carmarket(['usage', '--ledger', ledger, '--email', 'floty@example.pl', '--json'])).stdout,
    )
    t.same(
      usage.transactions.map((e: { type: string; credits: number }) => [e.type, e.credits]),
      [
        ['charge', -8],
        ['grant', 100],
        ['charge', -8],
        ['grant', 20],
      ],
    )
    t.equal(
      (await carmarket(['accounts', 'show', '--ledger', ledger])).code,
      2,
      'an account must be named (a usage error)',
    )
  })
}

t.test('credits grant: --help marks --reference required, and a grant without one fails in one line', async (t) => {
  const help = await carmarket(['credits', 'grant', '--help'])
  t.equal(help.code, 0)
  // Help wraps descriptions to the width of the output: read it as one line.
  const options = help.stdout.replace(/\s+/g, ' ')
  t.match(options, /--reference <text> [^-]*\(required\)/)
  t.match(options, /--credits <n> [^-]*\(required\)/)
  t.notMatch(options, /--email <email> [^-]*\(required\)/, 'an optional option is not marked')

  const ledger = freshDir(t)
  const created = await carmarket(['accounts', 'create', '--ledger', ledger, '--email', 'bez@example.pl', '--json'])
  const { account_id: id } = JSON.parse(created.stdout) as { account_id: string }
  const missing = await carmarket(['credits', 'grant', '--ledger', ledger, '--account', id, '--credits', '5'])
  t.equal(missing.code, 2, 'a call without a required option is a usage error')
  t.equal(missing.stdout, '')
  t.match(missing.stderr, /^carmarket: .*--reference.*\n$/, 'one line naming the option')
  const shown = await carmarket(['accounts', 'show', '--ledger', ledger, '--account', id, '--json'])
  t.equal((JSON.parse(shown.stdout) as { balance: number }).balance, 0, 'nothing was granted')
})
