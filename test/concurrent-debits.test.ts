import t from 'tap'
import { Agent, request } from 'undici'
import { openLedger } from '../cli/engines.js'
import { ENGINES } from './ledger-engines.js'
import { account, build, rows, spawnServe, toCsv } from './support.js'

for (const engine of ENGINES) {
  t.test(
    `two server processes on the ${engine.name} ledger, 300 concurrent keyed calls, a balance for exactly 37`,
    async (t) => {
      const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
      const ledgerDir = await engine.fresh(t)
      const { id, key } = await account(ledgerDir, 'flota@example.pl', 37 * 8 + 7)
      const args = ['--snapshots', snapshots, '--ledger', ledgerDir, '--rate-limit', '0']
      const servers = [await spawnServe(t, args), await spawnServe(t, args)]
      const dispatcher = new Agent({ connections: 50 })
      t.teardown(() => dispatcher.close())

      const statuses = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const { port } = servers[i % 2]!
          const response = await request(`http://127.0.0.1:${port}/v1/market/valuation?make=VW&model=Golf&year=2017`, {
            headers: { 'x-api-key': key },
            dispatcher,
          })
          const body = (await response.body.json()) as { data?: { credits_remaining: number } }
          return { status: response.statusCode, remaining: body.data?.credits_remaining }
        }),
      )
      const ok = statuses.filter((s) => s.status === 200)
      t.equal(ok.length, 37, 'exactly the calls the balance pays for succeed')
      t.equal(statuses.filter((s) => s.status === 402).length, 263, 'the rest are refused for credits')
      t.same(new Set(ok.map((s) => s.remaining)).size, 37, 'every success reports the balance after its own debit')
      t.same(Math.min(...ok.map((s) => s.remaining!)), 7)

      const ledger = await openLedger(ledgerDir)
      t.teardown(() => ledger.close())
      const final = (await ledger.account(id))!
      t.equal(final.balance, 7, 'the final balance is exact')
      const entries = await ledger.entries(id, 200)
      t.equal(
        entries.reduce((sum, e) => sum + e.credits, 0),
        final.balance,
        'balance = sum of the entries',
      )
      t.equal(entries.filter((e) => e.type === 'charge').length, 37)
      const acknowledged = new Set(ok.map((s) => s.remaining))
      t.ok(
        entries.filter((e) => e.type === 'charge').every((e) => acknowledged.has(e.balance_after)),
        'every charge in the ledger was acknowledged with its balance',
      )
    },
  )
}
