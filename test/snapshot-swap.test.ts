import { readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { Agent, request } from 'undici'
import { runBuild } from '../build/run-build.js'
import { ANSWERS_OPTIONS, SNAPSHOT_FILE } from '../format/schema.js'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import {
  account,
  build,
  copySnapshot,
  freshDir,
  metric,
  pointCurrent,
  reseal,
  rows,
  spawnServe,
  toCsv,
  vehicle,
  writeExport,
} from './support.js'

const golf = vehicle('VW', 'Golf', 2017)
const valuation = '/v1/market/valuation?make=VW&model=Golf&year=2017'

/** What one answer says, reduced to what tells the snapshots apart. */
interface Seen {
  readonly status: number
  readonly figures: string
}

/**
 * Copies a built snapshot into `snapshots` under a new name and breaks one stored answer (its digests made to match);
 * returns how to mend it.
 */
async function brokenCopy(
  snapshots: string,
  from: string,
  name: string,
): Promise<{ readonly mend: () => Promise<void> }> {
  const dir = join(snapshots, name)
  copySnapshot(from, dir)
  // Kept open until mended: lmdb-js may fail to open a path again in a process that closed it moments before.
  const root = open({ path: join(dir, SNAPSHOT_FILE), maxDbs: 4 })
  const answers = root.openDB(ANSWERS_OPTIONS)
  const key = [...answers.getKeys()][0]!
  const original = answers.getBinary(key)!
  await answers.put(key, Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]))
  reseal(dir)
  return {
    mend: async () => {
      await answers.put(key, original)
      await root.close()
      reseal(dir)
    },
  }
}

t.test(
  'a new build is served under load: no request fails or mixes two snapshots; a broken one is refused',
  async (t) => {
    const first = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i * 100 }))))
    const snapshots = first.snapshots
    const figuresOf = (answer: { valuation: unknown; sample_size: number }) =>
      JSON.stringify([answer.valuation, answer.sample_size])
    const before = figuresOf(first.snapshot.valuation(golf))

    const ledgerDir = freshDir(t)
    const { id, key } = await account(ledgerDir, 'swap@example.pl', 1_000_000)
    const server = await spawnServe(t, [
      '--workers',
      '2',
      '--snapshots',
      snapshots,
      '--ledger',
      ledgerDir,
      '--rate-limit',
      '0',
    ])
    const dispatcher = new Agent({ connections: 8 })
    t.teardown(() => dispatcher.close())
    const ask = async (): Promise<Seen> => {
      const response = await request(`http://127.0.0.1:${server.port}${valuation}`, {
        headers: { 'x-api-key': key },
        dispatcher,
      })
      const body = (await response.body.json()) as { data: { valuation: unknown; sample_size: number } }
      return {
        status: response.statusCode,
        figures: response.statusCode === 200 ? figuresOf(body.data) : JSON.stringify(body),
      }
    }

    // Eight callers in a loop until told to stop, every answer kept in order.
    const seen: Seen[] = []
    let loading = true
    const load = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (loading) seen.push(await ask())
      }),
    )
    const until = async (done: () => boolean, what: string) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 50))
      t.ok(done(), what)
    }
    await until(() => seen.length > 100, 'answers flow before the build')

    // A new build publishes into the served folder while the callers go on.
    const second = await runBuild({
      input: writeExport(t, 'next.csv', toCsv(rows(20, (i) => ({ price: 60_000 + i * 100 })))),
      snapshots,
      asOf: '2026-10-31',
    })
    const secondDir = second.snapshot
    const { Snapshot } = await import('../query/snapshot.js')
    const opened = Snapshot.open(secondDir)
    const after = figuresOf(opened.valuation(golf))
    await opened.close()
    t.not(after, before)
    const sinceBuild = seen.length
    await until(
      () => seen.length > sinceBuild + 200 && seen.slice(-100).every((s) => s.figures === after),
      'every worker answers from the new build',
    )
    loading = false
    await load

    t.equal(seen.filter((s) => s.status !== 200).length, 0, 'no request failed during the swap')
    t.equal(
      seen.filter((s) => s.figures !== before && s.figures !== after).length,
      0,
      'every answer is wholly one snapshot or the other',
    )
    t.ok(seen.some((s) => s.figures === before) && seen.some((s) => s.figures === after))
    const ledger = LmdbLedger.open(ledgerDir)
    t.equal((await ledger.account(id))!.balance, 1_000_000 - 8 * seen.length, 'every answer was debited once')
    await ledger.close()

    const ready = async () =>
      (
        (await (await request(`http://127.0.0.1:${server.port}/readyz`)).body.json()) as {
          data: { snapshot: string; as_of: string }
        }
      ).data
    t.same(await ready(), { ready: true, snapshot: basename(secondDir), as_of: '2026-10-31' })

    // A broken snapshot published: refused by every worker, the last good one keeps serving.
    const third = await runBuild({
      input: writeExport(t, 'third.csv', toCsv(rows(15, (i) => ({ price: 90_000 + i * 100 })))),
      snapshots: freshDir(t),
      asOf: '2026-11-15',
    })
    const brokenName = basename(third.snapshot)
    const broken = await brokenCopy(snapshots, third.snapshot, brokenName)
    pointCurrent(snapshots, brokenName)
    await until(
      () => (server.log().match(/new snapshot refused/g) ?? []).length === 2,
      'both workers refuse it, and say so',
    )
    t.match(server.log(), /"level":"error","message":"new snapshot refused; the old one keeps serving".*unreadable/)
    t.same(await ask(), { status: 200, figures: after }, 'the old snapshot answers')
    const metrics = await (await request(`http://127.0.0.1:${server.port}/metrics`)).body.text()
    t.equal(metric(metrics, 'carmarket_snapshot_swaps_total{result="refused"}'), 2)
    t.equal(metric(metrics, 'carmarket_snapshot_swaps_total{result="swapped"}'), 2)
    t.equal(metric(metrics, `carmarket_snapshot_processes{build_id="${basename(secondDir)}"}`), 2)

    // Mended in place, nothing for the watcher to see: SIGHUP asks for the check again.
    await broken.mend()
    server.child.kill('SIGHUP')
    await until(
      () => (server.log().match(/"message":"snapshot swapped"/g) ?? []).length === 4,
      'SIGHUP: both workers check it again and swap',
    )
    t.equal((await ready()).as_of, '2026-11-15')
    const third15 = await ask()
    t.equal(third15.status, 200)
    t.not(third15.figures, after, 'answers come from the mended build')
  },
)

t.test(
  'snapshot files LMDB cannot map safely (empty, cut short) are refused, not crashed on, also at start; SIGHUP with nothing new changes nothing',
  async (t) => {
    const { snapshots, report } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t), '--rate-limit', '0'])
    const served = basename(report.snapshot)
    const readyz = async () =>
      ((await (await request(`http://127.0.0.1:${server.port}/readyz`)).body.json()) as { data: { snapshot: string } })
        .data.snapshot
    const whole = readFileSync(join(report.snapshot, SNAPSHOT_FILE))
    const cases = {
      empty: Buffer.alloc(0),
      'cut-short': whole.subarray(0, whole.length - 4096),
      foreign: Buffer.alloc(whole.length, 7),
    }
    for (const [name, content] of Object.entries(cases)) {
      // Digests that match: what refuses these files is the look at them before mapping.
      copySnapshot(report.snapshot, join(snapshots, name))
      writeFileSync(join(snapshots, name, SNAPSHOT_FILE), content)
      reseal(join(snapshots, name))
      const refusals = (server.log().match(/new snapshot refused/g) ?? []).length
      pointCurrent(snapshots, name)
      for (let i = 0; i < 100 && (server.log().match(/new snapshot refused/g) ?? []).length === refusals; i++)
        await new Promise((resolve) => setTimeout(resolve, 50))
      t.equal((server.log().match(/new snapshot refused/g) ?? []).length, refusals + 1, `${name}: refused`)
      t.equal(await readyz(), served, `${name}: the old snapshot still serves`)
    }
    t.match(server.log(), /cut short/)
    t.match(server.log(), /not an LMDB file/)

    // A server (or a replaced worker) starting while `current` is broken serves the newest good snapshot.
    const restarted = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t), '--rate-limit', '0'])
    const restartedReady = (await (await request(`http://127.0.0.1:${restarted.port}/readyz`)).body.json()) as {
      data: { snapshot: string }
    }
    t.equal(restartedReady.data.snapshot, served, 'the last good snapshot, not none')
    t.match(restarted.log(), /"message":"serving an older snapshot: the current one was refused"/)

    pointCurrent(snapshots, served)
    // Whatever the watcher noticed of the link being put back, the reload asked for is answered in the log.
    await new Promise((resolve) => setTimeout(resolve, 300))
    server.child.kill('SIGHUP')
    const deadline = Date.now() + 5_000
    while (
      !/"message":"reload: current names the snapshot served; nothing to swap"/.test(server.log()) &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 50))
    t.notMatch(server.log(), /snapshot swapped/, 'current names the snapshot served: nothing to do')
    t.match(
      server.log(),
      `"message":"reload: current names the snapshot served; nothing to swap","snapshot":"${served}"`,
      'and the log says it looked and found nothing new',
    )
    const answer = await request(`http://127.0.0.1:${server.port}/v1/market/regional?make=VW&model=Golf&year=2017`)
    t.equal(answer.statusCode, 200)
    await answer.body.dump()
  },
)

t.test('a server started before the first build becomes ready when the build publishes', async (t) => {
  const snapshots = join(freshDir(t), 'snapshots')
  const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t), '--rate-limit', '0'])
  const readyz = async () => {
    const response = await request(`http://127.0.0.1:${server.port}/readyz`)
    await response.body.dump()
    return response.statusCode
  }
  t.equal(await readyz(), 503)
  await runBuild({
    input: writeExport(t, 'first.csv', toCsv(rows(12, (i) => ({ price: 30_000 + i })))),
    snapshots,
    asOf: '2026-09-30',
  })
  let status = 503
  for (let i = 0; i < 100 && status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    status = await readyz()
  }
  t.equal(status, 200, 'ready without a restart')
})
