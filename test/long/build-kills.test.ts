import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { runBuild } from '../../build/run-build.js'
import { SMALL, assertCurrent, exited, published, staging } from '../published-snapshots.js'
import { CLI, carmarket, writeExport } from '../support.js'

/** Builds killed at any moment: `current` is left as it was, and the next build cleans up. */

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

t.test('a build killed at any moment leaves current as it was; the next build cleans up', async (t) => {
  const input = writeExport(t, 'small.csv', SMALL)
  const dir = join(input, '..')
  const big = join(dir, 'big.csv.gz')
  const snapshots = join(dir, 'snapshots')
  const generated = await carmarket(['generate', '--out', big, '--listings', '200000', '--as-of', '2026-09-30'])
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
