import t from 'tap'
import { Agent, request } from 'undici'
import { openLedger } from '../cli/engines.js'
import { FAILED_CALL_ENTRIES_PER_DAY } from '../ledger/types.js'
import { MAX_VALUE_LENGTH } from '../runtime/query-string.js'
import { ENGINES } from './ledger-engines.js'
import { account, build, carmarket, rows, spawnServe, toCsv } from './support.js'

for (const engine of ENGINES) {
  t.test(
    `refund records on the ${engine.name} ledger are bounded: repeated failures coalesce, and a day holds at most a fixed number of failure entries`,
    async (t) => {
      const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
      const ledgerDir = await engine.fresh(t)
      const { id, key } = await account(ledgerDir, 'spam@example.pl', 0)
      const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', ledgerDir, '--rate-limit', '0'])
      const dispatcher = new Agent({ connections: 16 })
      t.teardown(() => dispatcher.close())
      const send = async (paths: readonly string[]) => {
        let next = 0
        const statuses: number[] = []
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (next < paths.length) {
              const response = await request(`http://127.0.0.1:${server.port}${paths[next++]}`, {
                headers: { 'x-api-key': key },
                dispatcher,
              })
              await response.body.dump()
              statuses.push(response.statusCode)
            }
          }),
        )
        return statuses
      }
      const same = Array.from({ length: 1_000 }, () => '/v1/market/valuation?make=VW&model=Golf&year=1850')
      t.ok(
        (await send(same)).every((s) => s === 400),
        'a thousand times the same bad call, at balance 0',
      )
      const distinct = Array.from({ length: 300 }, (_, i) => `/v1/market/regional?make=VW&model=Golf&year=${1000 + i}`)
      t.ok(
        (await send(distinct)).every((s) => s === 400),
        'three hundred different bad calls',
      )

      const ledger = await openLedger(ledgerDir)
      t.teardown(() => ledger.close())
      const entries = await ledger.entries(id, 10_000)
      const failures = entries.filter((e) => e.type === 'failed_call')
      t.ok(
        failures.length <= FAILED_CALL_ENTRIES_PER_DAY,
        `${failures.length} failure entries for 1,300 failed calls (at most ${FAILED_CALL_ENTRIES_PER_DAY} a day)`,
      )
      t.equal(
        failures.reduce((sum, e) => sum + e.count, 0),
        1_300,
        'every failed call is counted in one of them',
      )
      const repeated = failures.find((e) => e.year === 1850)!
      t.same(
        [repeated.endpoint, repeated.status, repeated.count],
        ['valuation', 'INVALID_PARAMETER', 1_000],
        'the same call repeated is one entry with its count',
      )
      t.ok(
        failures.every((e) => e.credits === 0 && e.balance_after === 0),
        'none of them moved the balance',
      )
      t.equal((await ledger.account(id))!.entries, entries.length, 'the entry count matches')
      const usage = await carmarket(['usage', '--ledger', ledgerDir, '--account', id, '--limit', '200'])
      t.match(
        usage.stdout,
        /valuation VW Golf 1850 INVALID_PARAMETER x1000\n/,
        'carmarket usage shows the count of a coalesced entry',
      )
    },
  )
}

for (const engine of ENGINES) {
  t.test(
    `on the ${engine.name} ledger a day of failing batches stores no more than a day of failing GET calls: names cut alike`,
    async (t) => {
      const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
      const ledgerDir = await engine.fresh(t)
      const viaGet = await account(ledgerDir, 'get@example.pl', 0)
      const viaBatch = await account(ledgerDir, 'batch@example.pl', 0)
      const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', ledgerDir, '--rate-limit', '0'])
      const base = `http://127.0.0.1:${server.port}`
      const names = (i: number, length: number) => `${i}`.padEnd(length, 'x')
      // The longest names a query string takes (MAX_VALUE_LENGTH), and a batch's 60 KiB ones, each call failing anew.
      for (let i = 0; i < FAILED_CALL_ENTRIES_PER_DAY + 20; i++) {
        const query = new URLSearchParams({ make: names(i, MAX_VALUE_LENGTH), model: names(i, MAX_VALUE_LENGTH) })
        const get = await request(`${base}/v1/market/valuation?${query}&year=2017`, {
          headers: { 'x-api-key': viaGet.key },
        })
        t.equal(get.statusCode, 400)
        await get.body.dump()
        const body = {
          requests: [{ operation: 'valuation', make: names(i, 30_000), model: names(i, 30_000), year: 2017 }],
        }
        const batch = await request(`${base}/v1/market/batch`, {
          method: 'POST',
          headers: { 'x-api-key': viaBatch.key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        t.equal(batch.statusCode, 200)
        await batch.body.dump()
      }
      const ledger = await openLedger(ledgerDir)
      t.teardown(() => ledger.close())
      const stored = async (id: string) =>
        (await ledger.entries(id, 10_000))
          .filter((e) => e.type === 'failed_call')
          .reduce((sum, e) => sum + (e.make?.length ?? 0) + (e.model?.length ?? 0), 0)
      const get = await stored(viaGet.id)
      const batch = await stored(viaBatch.id)
      t.ok(get > 0, `the GET route's failures keep their names (${get} characters)`)
      t.ok(batch <= get, `a day of failing batches keeps ${batch} characters of names, the GET route ${get}`)
    },
  )
}
