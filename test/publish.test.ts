import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { BuildError } from '../build/build-error.js'
import { newBuildId } from '../build/publish.js'
import { runBuild, type BuildReport } from '../build/run-build.js'
import { Snapshot } from '../query/snapshot.js'
import { reference, rows, toCsv, vehicle, writeExport } from './support.js'

/**
 * How snapshots are published: `current` switched by a symlink, old snapshots pruned,
 * an interrupted build leaving `current` alone, and the build lock.
 */

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url))
const BUILD_ID = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/

const PRICES = Array.from({ length: 12 }, (_, i) => 40_000 + i * 1_250)
const SMALL = toCsv(rows(PRICES.length, (i) => ({ price: PRICES[i]! })))
const GOLF = vehicle('Volkswagen', 'Golf', 2017)

function published(snapshots: string): string[] {
  return readdirSync(snapshots)
    .filter((e) => BUILD_ID.test(e))
    .sort()
}

function staging(snapshots: string): string[] {
  return readdirSync(snapshots).filter((e) => e.startsWith('.building-'))
}

/** `current` is a symlink naming `id`, and the snapshot it leads to answers with the figures of SMALL. */
async function assertCurrent(t: Test, snapshots: string, id: string, what: string) {
  const link = join(snapshots, 'current')
  t.ok(lstatSync(link).isSymbolicLink(), `${what}: current is a symlink`)
  t.equal(readlinkSync(link), id, `${what}: current names ${id}`)
  const snapshot = Snapshot.open(snapshots)
  try {
    t.equal(snapshot.manifest.build_id, id, `${what}: the manifest behind current is ${id}`)
    const answer = snapshot.valuation(GOLF)
    t.equal(answer.sample_size, PRICES.length, `${what}: it answers`)
    t.strictSame(answer.valuation, reference.quartiles(PRICES), `${what}: with the right figures`)
  } finally {
    await snapshot.close()
  }
}

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

interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

function exited(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode })
    else child.once('exit', (code, signal) => resolve({ code, signal }))
  })
}

function run(args: string[], timeout = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr })
    })
  })
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

t.test('a build killed at any moment leaves current as it was; the next build cleans up', async (t) => {
  const input = writeExport(t, 'small.csv', SMALL)
  const dir = join(input, '..')
  const big = join(dir, 'big.csv.gz')
  const snapshots = join(dir, 'snapshots')
  const generated = await run(['generate', '--out', big, '--listings', '200000', '--as-of', '2026-09-30'])
  t.equal(generated.code, 0, `generate: ${generated.stderr}`)

  const first = await runBuild({ input, snapshots, asOf: '2026-09-30' })
  await assertCurrent(t, snapshots, first.build_id, 'the first build')

  const moments: { name: string; wait: (child: ChildProcess) => Promise<void> }[] = [
    { name: 'after 100 ms', wait: () => sleep(100) },
    { name: 'after 400 ms', wait: () => sleep(400) },
    { name: 'after 900 ms', wait: () => sleep(900) },
    {
      name: 'while it writes its staging folder',
      wait: async (child) => {
        const deadline = Date.now() + 30_000
        while (staging(snapshots).length === 0 && child.exitCode === null && Date.now() < deadline) await sleep(5)
        await sleep(30)
      },
    },
  ]
  let lastPid: number | undefined
  for (const moment of moments) {
    const child = spawn(process.execPath, [CLI, 'build', '--input', big, '--snapshots', snapshots], { stdio: 'ignore' })
    await moment.wait(child)
    const killedWhileRunning = child.kill('SIGKILL')
    const exit = await exited(child)
    t.ok(
      killedWhileRunning && exit.signal === 'SIGKILL',
      `${moment.name}: the build was still running and was killed (${JSON.stringify(exit)})`,
    )
    lastPid = child.pid
    await assertCurrent(t, snapshots, first.build_id, `killed ${moment.name}`)
    t.strictSame(published(snapshots), [first.build_id], `killed ${moment.name}: no other snapshot was published`)
  }

  // The last build died holding the lock, with its staging folder half written.
  t.equal(staging(snapshots).length, 1, 'the killed build left its staging folder')
  t.equal(
    readFileSync(join(snapshots, '.build.lock'), 'utf8'),
    String(lastPid),
    'and its lock, naming the dead process',
  )

  const next = await runBuild({ input, snapshots, asOf: '2026-09-30' })
  await assertCurrent(t, snapshots, next.build_id, 'the build after the kills')
  t.strictSame(staging(snapshots), [], 'the leftover staging folder is removed')
  t.notOk(existsSync(join(snapshots, '.build.lock')), 'the stale lock is gone')
  t.strictSame(published(snapshots), [first.build_id, next.build_id].sort())
  t.strictSame(
    readdirSync(snapshots).sort(),
    ['current', first.build_id, next.build_id].sort(),
    'nothing else is left behind',
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
