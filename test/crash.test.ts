import t from 'tap'
import { Agent, request } from 'undici'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { account, build, freshDir, rows, spawnServe, toCsv } from './support.js'

t.test('a server killed with SIGKILL under load loses no acknowledged debit and half-writes nothing', async (t) => {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const ledgerDir = freshDir(t)
  const { id, key } = await account(ledgerDir, 'crash@example.pl', 1_000_000)
  const acknowledged = new Set<number>()

  for (const killAfterMs of [150, 400, 700, 1000]) {
    const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', ledgerDir, '--rate-limit', '0'])
    const dispatcher = new Agent({ connections: 32 })
    let stop = false
    // 32 clients calling in a loop until the server dies under them.
    const clients = Array.from({ length: 32 }, async () => {
      while (!stop) {
        try {
          const response = await request(`http://127.0.0.1:${server.port}/v1/market/liquidity?make=VW&model=Golf&year=2017`, { headers: { 'x-api-key': key }, dispatcher })
          const body = (await response.body.json()) as { data?: { credits_remaining: number } }
          if (response.statusCode === 200) acknowledged.add(body.data!.credits_remaining)
        } catch {
          return
        }
      }
    })
    await new Promise((resolve) => setTimeout(resolve, killAfterMs))
    const exited = new Promise((resolve) => server.child.once('exit', resolve))
    server.child.kill('SIGKILL')
    stop = true
    await exited
    await Promise.all(clients)
    void dispatcher.destroy()

    const ledger = LmdbLedger.open(ledgerDir)
    const state = (await ledger.account(id))!
    const history = await ledger.entries(id, 200)
    const charges = new Set(
      [...(await ledger.entries(id, 1_000_000))].filter((e) => e.type === 'charge').map((e) => e.balance_after),
    )
    const all = await ledger.entries(id, 1_000_000)
    t.ok(state.balance >= 0, `killed after ${killAfterMs} ms: the balance is not negative (${state.balance})`)
    t.equal(all.reduce((sum, e) => sum + e.credits, 0), state.balance, `killed after ${killAfterMs} ms: balance = sum of entries`)
    t.equal(state.entries, all.length, 'the entry count matches the entries')
    t.ok(history.length > 0)
    const missing = [...acknowledged].filter((balance) => !charges.has(balance))
    t.same(missing, [], `killed after ${killAfterMs} ms: every acknowledged credits_remaining (${acknowledged.size} so far) is in the ledger`)
    await ledger.close()
  }
  t.ok(acknowledged.size > 50, `the load was real: ${acknowledged.size} acknowledged calls`)
})
