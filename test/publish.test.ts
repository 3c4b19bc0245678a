import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { BuildError } from '../build/build-error.js'
import { newBuildId } from '../build/publish.js'
import { runBuild, type BuildReport } from '../build/run-build.js'
import { BUILD_ID, SMALL, assertCurrent, exited, published, staging } from './published-snapshots.js'
import { rows, toCsv, writeExport } from './support.js'

/**
 * How snapshots are published: `current` switched by a symlink, old snapshots pruned,
 * and the build lock (builds killed midway: long/build-kills.test.ts).
 */

/** Waits until the UTC second changes: build ids are stamped to the second. */
async function nextSecond(): Promise<void> {
  const second = Math.floor(Date.now() / 1000)
  while (Math.floor(Date.now() / 1000) === second) await new Promise((r) => setTimeout(r, 10))
}

t.test('two successive builds: current is a symlink to the second', async (t) => {
  const input = writeExport(t, 'export.csv', SMALL)
  const snapshots = join(input, '..', 'snapshots')
  const first = await runBuild({ input, snapshots, asOf: '2026-09-30' })
  t.match(first.build_id, BUILD_ID)
  await assertCurrent(t, snapshots, first.build_id, 'after the first build')
  await nextSecond()
  const second = await runBuild({ input, snapshots, asOf: '2026-09-30' })
  t.not(second.build_id, first.build_id)
  await assertCurrent(t, snapshots, second.build_id, 'after the second build')
  t.strictSame(published(snapshots), [first.build_id, second.build_id], 'both snapshots are kept (default keep 3)')
  t.strictSame(second.pruned, [])
  t.strictSame(
    readdirSync(snapshots).sort(),
    ['current', first.build_id, second.build_id].sort(),
    'no staging folder, no lock, no temporary link',
  )
})

t.test('keep: 2 after four builds leaves the two newest', async (t) => {
  const input = writeExport(t, 'export.csv', SMALL)
  const snapshots = join(input, '..', 'snapshots')
  const reports: BuildReport[] = []
  for (let i = 0; i < 4; i++) {
    if (i > 0) await nextSecond()
    const report = await runBuild({ input, snapshots, asOf: '2026-09-30', keep: 2 })
    reports.push(report)
    await assertCurrent(t, snapshots, report.build_id, `build ${i + 1}`)
    t.ok(
      existsSync(join(snapshots, report.build_id, 'snapshot.mdb')),
      `build ${i + 1}: the folder current names is there`,
    )
    t.ok(published(snapshots).length <= 2, `build ${i + 1}: at most two snapshots`)
  }
  const ids = reports.map((r) => r.build_id)
  t.strictSame(published(snapshots), ids.slice(2), 'exactly the two newest are left')
  t.strictSame(
    reports.map((r) => r.pruned),
    [[], [], [ids[0]], [ids[1]]],
    'each build pruned the one that fell out',
  )
})

t.test('builds within one second: keep still keeps the newest', async (t) => {
  // Nightly builds are hours apart, but a retried or manual build can follow a failed
  // one within the same second. The newest build must still be the one kept.
  const input = writeExport(t, 'export.csv', SMALL)
  const snapshots = join(input, '..', 'snapshots')
  // Builds back to back with keep: 1; after each, the one snapshot left must be the new one.
  const left: string[][] = []
  const newest: string[][] = []
  const ids: string[] = []
  const started = Date.now()
  while (ids.length < 8 && (ids.length < 2 || Date.now() - started < 1_500)) {
    const report = await runBuild({ input, snapshots, asOf: '2026-09-30', keep: 1 })
    ids.push(report.build_id)
    t.equal(readlinkSync(join(snapshots, 'current')), report.build_id, 'current names the newest build')
    left.push(published(snapshots))
    newest.push([report.build_id])
  }
  const seconds = new Set(ids.map((id) => id.slice(0, 15)))
  t.comment(`${ids.length} builds in ${seconds.size} distinct seconds`)
  t.strictSame(left, newest, 'keep: 1 leaves exactly the newest snapshot after every build')

  // Ids carry milliseconds, so ids made within one second still sort by time, not by their random suffix.
  const pairs = Array.from({ length: 16 }, () => [
    newBuildId(new Date('2026-09-30T01:00:00.100Z')),
    newBuildId(new Date('2026-09-30T01:00:00.900Z')),
  ])
  t.strictSame(
    pairs.map(([earlier, later]) => earlier! < later!),
    pairs.map(() => true),
    'a build id made later in the same second sorts after the earlier one',
  )
})

t.test('the build lock', async (t) => {
  await t.test('held by a running process: the build fails and touches nothing', async (t) => {
    const input = writeExport(t, 'export.csv', SMALL)
    const snapshots = join(input, '..', 'snapshots')
    mkdirSync(join(snapshots, '.building-20260930T010000Z-abcdef'), { recursive: true })
    writeFileSync(join(snapshots, '.build.lock'), String(process.pid))
    let error: unknown
    try {
      await runBuild({ input, snapshots, asOf: '2026-09-30' })
    } catch (e) {
      error = e
    }
    t.ok(error instanceof BuildError, 'a BuildError')
    t.match(error, { code: 'build_running' })
    t.equal(readFileSync(join(snapshots, '.build.lock'), 'utf8'), String(process.pid), 'the lock is left to its holder')
    t.strictSame(
      staging(snapshots),
      ['.building-20260930T010000Z-abcdef'],
      "the running build's staging folder is left alone",
    )
    t.notOk(existsSync(join(snapshots, 'current')), 'nothing is published')
    t.strictSame(published(snapshots), [])
  })

  await t.test('left by a dead process: taken over, and the build succeeds', async (t) => {
    const input = writeExport(t, 'export.csv', SMALL)
    const snapshots = join(input, '..', 'snapshots')
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    const exit = await exited(dead)
    t.equal(exit.code, 0)
    const pid = dead.pid!
    t.ok(pid > 0)
    t.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the process is gone')
    mkdirSync(join(snapshots, '.building-20260930T010000Z-abcdef'), { recursive: true })
    writeFileSync(join(snapshots, '.build.lock'), String(pid))
    const report = await runBuild({ input, snapshots, asOf: '2026-09-30' })
    await assertCurrent(t, snapshots, report.build_id, 'after taking the lock over')
    t.notOk(existsSync(join(snapshots, '.build.lock')), 'the lock is released')
    t.strictSame(staging(snapshots), [], "the dead build's staging folder is removed")
    t.strictSame(readdirSync(snapshots).sort(), ['current', report.build_id].sort())
  })
})

t.test('a build that shrinks the market is refused, publishing nothing, unless allowed', async (t) => {
  const models = ['Golf', 'Passat', 'Polo', 'Tiguan', 'Arteon']
  const market = (perModel: number, names = models) =>
    toCsv(rows(perModel * names.length, (i) => ({ model: names[i % names.length]!, price: 40_000 + i * 100 })))
  const input = writeExport(t, 'market.csv', market(12))
  const snapshots = join(input, '..', 'snapshots')
  const first = await runBuild({ input, snapshots, asOf: '2026-09-30' })
  t.equal(first.listings_kept, 60)

  const refused = async (content: string, what: string) => {
    const next = writeExport(t, 'next.csv', content)
    const error = await runBuild({ input: next, snapshots, asOf: '2026-09-30' }).catch((e: unknown) => e)
    t.ok(error instanceof BuildError, `${what}: a BuildError`)
    t.equal((error as BuildError).code, 'market_shrank', `${what}: market_shrank`)
    t.equal(readlinkSync(join(snapshots, 'current')), first.build_id, `${what}: current is untouched`)
    t.strictSame(published(snapshots), [first.build_id], `${what}: nothing else was published`)
    t.strictSame(staging(snapshots), [], `${what}: the staging folder is removed`)
  }
  await refused(market(2), 'listings 60 -> 10')
  await refused(market(60, ['Golf']), 'as many listings, keys of one model only')

  const fewer = await runBuild({ input: writeExport(t, 'fewer.csv', market(10)), snapshots, asOf: '2026-09-30' })
  t.equal(fewer.listings_kept, 50, 'a fall within the bound (60 -> 50 listings) publishes')
  t.equal(readlinkSync(join(snapshots, 'current')), fewer.build_id)

  const tiny = writeExport(t, 'tiny.csv', market(2))
  const allowed = await runBuild({ input: tiny, snapshots, asOf: '2026-09-30', allowShrink: true })
  t.equal(readlinkSync(join(snapshots, 'current')), allowed.build_id, 'allowShrink publishes it')
  t.equal(allowed.listings_kept, 10)
})
