import pg from 'pg'
import t from 'tap'
import { Agent, request } from 'undici'
import { openLedger } from '../../cli/engines.js'
import { ENGINES } from '../ledger-engines.js'
import { account, build, rows, spawnServe, toCsv } from '../support.js'

for (const engine of ENGINES) {
  t.test(
    `a server on the ${engine.name} ledger killed with SIGKILL under load loses no acknowledged debit and half-writes nothing`,
    async (t) => {
      const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
      const ledgerDir = await engine.fresh(t)
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
              const response = await request(
                `http://127.0.0.1:${server.port}/v1/market/liquidity?make=VW&model=Golf&year=2017`,
                { headers: { 'x-api-key': key }, dispatcher },
              )
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

        const ledger = await openLedger(ledgerDir)
        const state = (await ledger.account(id))!
        const history = await ledger.entries(id, 200)
        const charges = new Set(
          [...(await ledger.entries(id, 1_000_000))].filter((e) => e.type === 'charge').map((e) => e.balance_after),
        )
        const all = await ledger.entries(id, 1_000_000)
        t.ok(state.balance >= 0, `killed after ${killAfterMs} ms: the balance is not negative (${state.balance})`)
        t.equal(
          all.reduce((sum, e) => sum + e.credits, 0),
          state.balance,
          `killed after ${killAfterMs} ms: balance = sum of entries`,
        )
        t.equal(state.entries, all.length, 'the entry count matches the entries')
        t.ok(history.length > 0)
        const missing = [...acknowledged].filter((balance) => !charges.has(balance))
        t.same(
          missing,
          [],
          `killed after ${killAfterMs} ms: every acknowledged credits_remaining (${acknowledged.size} so far) is in the ledger`,
        )
        await ledger.close()
      }
      t.ok(acknowledged.size > 50, `the load was real: ${acknowledged.size} acknowledged calls`)
    },
  )
}

t.test(
  'PostgreSQL connections cut again and again under load: a call is charged if and only if it was answered 200, and the server recovers by itself',
  async (t) => {
    const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const url = await ENGINES.find((e) => e.name === 'postgresql')!.fresh(t)
    const { id, key } = await account(url, 'cuts@example.pl', 1_000_000)
    const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', url, '--rate-limit', '0'])
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    t.teardown(() => admin.end())
    const dispatcher = new Agent({ connections: 32 })
    t.teardown(() => dispatcher.close())
    const acknowledged = new Set<number>()
    const statuses = new Map<number, number>()
    const call = async () => {
      const response = await request(
        `http://127.0.0.1:${server.port}/v1/market/liquidity?make=VW&model=Golf&year=2017`,
        { headers: { 'x-api-key': key }, dispatcher },
      )
      const body = (await response.body.json()) as { data?: { credits_remaining: number } }
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
      if (response.statusCode === 200) acknowledged.add(body.data!.credits_remaining)
      return response.statusCode
    }
    let cutting = true
    // A call that gets no answer at all (the server gone) ends the load and fails the test below, where the
    // server's own log is told, rather than as an unhandled rejection that leaves the other clients running.
    const failures: string[] = []
    const clients = Array.from({ length: 32 }, async () => {
      try {
        while (cutting) await call()
      } catch (error) {
        failures.push(String(error))
        cutting = false
      }
    })
    let cuts = 0
    for (const until = Date.now() + 1_500; cutting && Date.now() < until; cuts++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
    }
    cutting = false
    await Promise.all(clients)
    t.same(failures, [], 'every call got an answer: the server stayed up')
    t.same(
      [...statuses.keys()].filter((s) => s !== 200 && s !== 503),
      [],
      `only 200 and 503 (${JSON.stringify(Object.fromEntries(statuses))}) over ${cuts} cuts`,
    )
    t.ok((statuses.get(503) ?? 0) > 0, 'some calls met a cut connection')
    // A connection cut by the last cut while idle costs at most the call that meets it.
    let answered = 0
    for (let tries = 0; tries < 20 && answered !== 200; tries++) answered = await call()
    t.equal(answered, 200, 'the same server process answers again once the cuts stop')

    const ledger = await openLedger(url)
    t.teardown(() => ledger.close())
    const state = (await ledger.account(id))!
    const entries = await ledger.entries(id, 1_000_000)
    const charges = new Set(entries.filter((e) => e.type === 'charge').map((e) => e.balance_after))
    t.equal(
      entries.reduce((sum, e) => sum + e.credits, 0),
      state.balance,
      'balance = sum of entries',
    )
    t.equal(state.entries, entries.length, 'the entry count matches the entries')
    t.same(
      [...acknowledged].filter((balance) => !charges.has(balance)),
      [],
      `every acknowledged credits_remaining (${acknowledged.size}) is in the ledger`,
    )
    t.equal(charges.size, acknowledged.size, 'and no charge without its 200: each 503 was uncharged')
  },
)
