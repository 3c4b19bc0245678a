import { spawn } from 'node:child_process'
import { once } from 'node:events'
import {
  chmodSync,
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  readlinkSync,
  statSync,
  writeSync,
} from 'node:fs'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { BuildError, type BuildErrorCode } from '../../build/build-error.js'
import { MAX_MANIFEST_BYTES, pullSnapshot, type PullReport } from '../../build/pull.js'
import { messageOf } from '../../format/message-of.js'
import { CURRENT_LINK, MANIFEST_FILE, SIGNATURE_FILE, SNAPSHOT_FILE } from '../../format/schema.js'
import { Snapshot } from '../../query/snapshot.js'
import { smallDisk } from '../disk.js'
import { staticOrigin, type Answer } from '../static-origin.js'
import { build, carmarket, freshDir, pointCurrent, rows, spawnServe, toCsv } from '../support.js'

/**
 * `carmarket snapshot pull` against a real HTTP server over a built snapshots folder:
 * what it publishes, and that a broken download publishes nothing and leaves nothing.
 */

const ORIGIN_CSV = toCsv(rows(12, (i) => ({ price: 40_000 + i * 1_250 })))
const LOCAL_CSV = toCsv(rows(12, (i) => ({ price: 20_000 + i * 500 })))

interface Origin {
  /** The snapshots folder's address, as `--from` takes it. */
  readonly base: string
  /** The paths asked for, in order. */
  readonly requests: string[]
  readonly snapshots: string
  /** The build `current` names. */
  readonly id: string
  /** Its folder. */
  readonly dir: string
}

/**
 * A snapshots folder built from ORIGIN_CSV, served by a static file server on 127.0.0.1
 * that follows symlinks as nginx does. `answer` may stand in for it on any request.
 */
async function origin(t: Test, answer?: Answer): Promise<Origin> {
  const built = await build(t, ORIGIN_CSV, { asOf: '2026-10-31' })
  const { base, requests } = await staticOrigin(t, built.snapshots, answer)
  const id = built.report.build_id
  return { base, requests, snapshots: built.snapshots, id, dir: join(built.snapshots, id) }
}

/** A local snapshots folder that already serves a build of its own. */
async function localWithBuild(t: Test): Promise<{ readonly snapshots: string; readonly id: string }> {
  const built = await build(t, LOCAL_CSV, { asOf: '2026-09-30' })
  return { snapshots: built.snapshots, id: built.report.build_id }
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  return undefined
}

/** What a snapshots folder holds, staging folders and the lock included. */
function entries(snapshots: string): string[] {
  return existsSync(snapshots) ? readdirSync(snapshots).sort() : []
}

/** The pull failed with `code` and left `snapshots` as it was. */
async function refused(
  t: Test,
  pull: Promise<PullReport>,
  code: BuildErrorCode,
  snapshots: string,
  before: readonly string[],
): Promise<void> {
  const error = await failure(pull)
  t.ok(error instanceof BuildError, 'a BuildError')
  t.match(error, { code })
  t.notMatch(messageOf(error), /\n/, 'one line')
  t.strictSame(entries(snapshots), before, 'nothing published, no staging folder or lock left')
}

/** The data file's first `n` bytes, then the connection cut: a server that stops midway. */
function cutShort(res: ServerResponse, file: string, n: number): void {
  res.writeHead(200, { 'content-length': statSync(file).size })
  res.write(readFileSync(file).subarray(0, n), () => res.destroy())
}

t.test(
  'a pull publishes a verified copy of the current build and makes it current; the same build again is a no-op',
  async (t) => {
    const from = await origin(t)
    const snapshots = join(freshDir(t), 'snapshots')
    let progressed = 0
    const report = await pullSnapshot({ from: from.base, snapshots, onProgress: (done) => (progressed = done) })
    const size = statSync(join(from.dir, SNAPSHOT_FILE)).size
    t.match(report, {
      build_id: from.id,
      snapshot: join(snapshots, from.id),
      source: from.base,
      result: 'published',
      bytes: size,
    })
    t.strictSame(report.pruned, [])
    t.equal(progressed, size, 'progress reaches every byte')
    t.strictSame(
      from.requests,
      ['/current/manifest.json', `/${from.id}/${SIGNATURE_FILE}`, `/${from.id}/${SNAPSHOT_FILE}`],
      'the manifest through current, its signature (none here) and the data file by its build id',
    )

    const dir = join(snapshots, from.id)
    for (const file of [SNAPSHOT_FILE, MANIFEST_FILE]) {
      t.ok(
        readFileSync(join(dir, file)).equals(readFileSync(join(from.dir, file))),
        `${file} is byte-identical to the origin's`,
      )
      t.equal(statSync(join(dir, file)).mode & 0o777, 0o444, `${file} is 0444`)
    }
    t.ok(lstatSync(join(snapshots, CURRENT_LINK)).isSymbolicLink())
    t.equal(readlinkSync(join(snapshots, CURRENT_LINK)), from.id, 'current names the pulled build')
    const snapshot = Snapshot.open(snapshots)
    t.teardown(() => snapshot.close())
    t.equal(snapshot.manifest.build_id, from.id)
    t.equal(snapshot.manifest.as_of, '2026-10-31')
    t.strictSame(entries(snapshots), [from.id, CURRENT_LINK].sort(), 'no staging folder or lock left')

    const again = await pullSnapshot({ from: from.base, snapshots })
    t.match(again, { build_id: from.id, result: 'unchanged', bytes: 0 })
    t.equal(from.requests.length, 4, 'only the manifest is asked for')
    t.strictSame(entries(snapshots), [from.id, CURRENT_LINK].sort())
  },
)

t.test('redirects are followed, for the data file too', async (t) => {
  const from = await origin(
    t,
    (path, res) =>
      path.startsWith('/moved/') && (res.writeHead(301, { location: path.slice('/moved'.length) }).end(), true),
  )
  const snapshots = join(freshDir(t), 'snapshots')
  const report = await pullSnapshot({ from: `${from.base}moved/`, snapshots })
  t.equal(report.result, 'published')
  t.strictSame(from.requests, [
    '/moved/current/manifest.json',
    '/current/manifest.json',
    `/moved/${from.id}/${SIGNATURE_FILE}`,
    `/${from.id}/${SIGNATURE_FILE}`,
    `/moved/${from.id}/${SNAPSHOT_FILE}`,
    `/${from.id}/${SNAPSHOT_FILE}`,
  ])
})

t.test('a build already in the folder is not made current again', async (t) => {
  const local = await localWithBuild(t)
  const from = await origin(t)
  await pullSnapshot({ from: from.base, snapshots: local.snapshots })
  // An operator rolls back to the older build by hand.
  pointCurrent(local.snapshots, local.id)
  const report = await pullSnapshot({ from: from.base, snapshots: local.snapshots })
  t.equal(report.result, 'unchanged')
  t.equal(
    readlinkSync(join(local.snapshots, CURRENT_LINK)),
    local.id,
    'current still names the build the operator chose',
  )
})

t.test('--keep prunes as a build does', async (t) => {
  const local = await localWithBuild(t)
  const from = await origin(t)
  const report = await pullSnapshot({ from: from.base, snapshots: local.snapshots, keep: 1 })
  t.strictSame(report.pruned, [local.id])
  t.strictSame(entries(local.snapshots), [from.id, CURRENT_LINK].sort())
})

t.test('a file changed on the origin (one byte flipped, its manifest as it was) is refused', async (t) => {
  const from = await origin(t)
  const file = join(from.dir, SNAPSHOT_FILE)
  // Written in place through a descriptor: the build's own reader still maps the file.
  chmodSync(file, 0o644)
  const fd = openSync(file, 'r+')
  const byte = Buffer.alloc(1)
  const at = statSync(file).size >> 1
  readSync(fd, byte, 0, 1, at)
  writeSync(fd, Buffer.from([byte[0]! ^ 0xff]), 0, 1, at)
  closeSync(fd)
  const local = await localWithBuild(t)
  const before = entries(local.snapshots)
  await refused(
    t,
    pullSnapshot({ from: from.base, snapshots: local.snapshots }),
    'digest_mismatch',
    local.snapshots,
    before,
  )
  t.equal(readlinkSync(join(local.snapshots, CURRENT_LINK)), local.id, 'current still names the local build')
})

t.test('a download cut short, too long, refused (404, 500) or stalled publishes nothing', async (t) => {
  let fault: Answer = () => false
  const from = await origin(t, (path, res) => fault(path, res))
  const data = join(from.dir, SNAPSHOT_FILE)
  const dataPath = `/${from.id}/${SNAPSHOT_FILE}`
  const size = statSync(data).size
  const local = await localWithBuild(t)
  const before = entries(local.snapshots)
  const pull = () => pullSnapshot({ from: from.base, snapshots: local.snapshots, timeout: 500 })
  const cases: { readonly name: string; readonly answer: Answer; readonly code: BuildErrorCode }[] = [
    {
      name: 'the connection closed midway',
      answer: (path, res) => path === dataPath && (cutShort(res, data, size >> 1), true),
      code: 'download_failed',
    },
    {
      name: 'a body shorter than the manifest lists',
      answer: (path, res) => path === dataPath && (res.end(readFileSync(data).subarray(0, size - 1)), true),
      code: 'download_incomplete',
    },
    {
      name: 'the body runs on past its size',
      answer: (path, res) =>
        path === dataPath && (res.end(Buffer.concat([readFileSync(data), Buffer.alloc(10)])), true),
      code: 'download_too_long',
    },
    {
      name: 'the data file is not found (404)',
      answer: (path, res) => path === dataPath && (res.writeHead(404).end(), true),
      code: 'http_status',
    },
    {
      name: 'the manifest fails (500)',
      answer: (path, res) => path === '/current/manifest.json' && (res.writeHead(500).end(), true),
      code: 'http_status',
    },
    {
      name: 'redirects without end',
      answer: (path, res) =>
        path === '/current/manifest.json' &&
        (res.writeHead(302, { location: `/current/manifest.json?hop=${from.requests.length}` }).end(), true),
      code: 'http_status',
    },
    {
      name: 'the data file stalls',
      answer: (path, res) =>
        path === dataPath && (res.writeHead(200, { 'content-length': size }), res.write(Buffer.alloc(100)), true),
      code: 'download_failed',
    },
    {
      name: 'the manifest never comes',
      answer: (path) => path === '/current/manifest.json',
      code: 'download_failed',
    },
  ]
  for (const c of cases) {
    fault = c.answer
    await t.test(c.name, (t) => refused(t, pull(), c.code, local.snapshots, before))
  }
  fault = () => false
  t.equal((await pull()).result, 'published', 'the origin mended, the pull succeeds')
})

t.test('a manifest that is not one is refused before anything is written', async (t) => {
  let manifest = ''
  const from = await origin(t, (path, res) => path === '/current/manifest.json' && (res.end(manifest), true))
  const snapshots = join(freshDir(t), 'snapshots')
  const valid = JSON.parse(readFileSync(join(from.dir, MANIFEST_FILE), 'utf8')) as Record<string, unknown>
  const cases: Record<string, [string, BuildErrorCode]> = {
    'not JSON': ['<html>', 'invalid_manifest'],
    'without digests': [JSON.stringify({ ...valid, files: undefined }), 'invalid_manifest'],
    'a file name with a slash': [
      JSON.stringify({ ...valid, files: { '../x': { bytes: 1, sha256: '0'.repeat(64) } } }),
      'invalid_manifest',
    ],
    'a build id that is not one': [JSON.stringify({ ...valid, build_id: '../../etc' }), 'invalid_manifest'],
    'past the size bound': [' '.repeat(MAX_MANIFEST_BYTES + 1), 'download_too_long'],
  }
  for (const [name, [body, code]] of Object.entries(cases)) {
    manifest = body
    const error = await failure(pullSnapshot({ from: from.base, snapshots }))
    t.ok(error instanceof BuildError, `${name}: a BuildError`)
    t.match(error, { code }, name)
    t.notOk(existsSync(snapshots), `${name}: the snapshots folder is not even made`)
  }
  t.strictSame(
    from.requests.filter((p) => p !== '/current/manifest.json'),
    [],
    'no data file was asked for',
  )
})

t.test('a full disk publishes nothing: refused at once without room, and when it fills midway', async (t) => {
  const disk = smallDisk(t, 1 << 20)
  const snapshots = join(disk.dir, 'snapshots')
  let fillOnDownload = false
  const from = await origin(t, (path) => {
    if (path.endsWith(`/${SNAPSHOT_FILE}`) && fillOnDownload) disk.fill()
    return false
  })
  const size = statSync(join(from.dir, SNAPSHOT_FILE)).size

  disk.fill(size >> 2)
  await refused(t, pullSnapshot({ from: from.base, snapshots }), 'no_room', snapshots, [])
  t.strictSame(
    from.requests.filter((p) => p !== '/current/manifest.json'),
    [],
    'nothing downloaded',
  )

  disk.free()
  fillOnDownload = true
  await refused(t, pullSnapshot({ from: from.base, snapshots }), 'write_failed', snapshots, [])

  disk.free()
  fillOnDownload = false
  t.equal(
    (await pullSnapshot({ from: from.base, snapshots })).result,
    'published',
    'with room again, the pull succeeds',
  )
})

/**
 * A static file server in a process of its own that answers as HTTP/1.0 servers such as
 * `python3 -m http.server` do: one response per connection, which it then closes.
 */
const HTTP10_SERVER = `
const { createServer } = require('node:net')
const { createReadStream, statSync } = require('node:fs')
const { join } = require('node:path')
const root = process.argv[1]
const server = createServer((socket) => {
  socket.once('data', (head) => {
    const file = join(root, decodeURIComponent(head.toString().split(' ')[1]))
    const stat = statSync(file, { throwIfNoEntry: false })
    if (stat === undefined) return void socket.end('HTTP/1.0 404 Not Found\\r\\nContent-Length: 0\\r\\n\\r\\n')
    socket.write('HTTP/1.0 200 OK\\r\\nContent-Length: ' + stat.size + '\\r\\n\\r\\n')
    createReadStream(file).pipe(socket)
  })
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
`

t.test(
  'an origin that closes the connection after each response: a snapshot of megabytes, pulled again and again',
  async (t) => {
    const dir = freshDir(t)
    const generated = await carmarket([
      'generate',
      '--out',
      join(dir, 'export.csv.gz'),
      '--listings',
      '2000',
      '--as-of',
      '2026-09-30',
    ])
    t.equal(generated.code, 0, generated.stderr)
    const built = await build(t, readFileSync(join(dir, 'export.csv.gz')), { asOf: '2026-09-30' }, 'export.csv.gz')
    const size = statSync(join(built.report.snapshot, SNAPSHOT_FILE)).size
    t.ok(size > 1 << 20, `${size} bytes`)
    const server = spawn(process.execPath, ['-e', HTTP10_SERVER, built.snapshots], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    t.teardown(() => void server.kill())
    const [port] = (await once(server.stdout, 'data')) as [Buffer]
    // What a closed connection can break depends on timing (a body held back just as the
    // server closes), so the whole file is downloaded again and again, each into a fresh folder.
    for (let i = 0; i < 20; i++) {
      const report = await pullSnapshot({
        from: `http://127.0.0.1:${Number(port)}/`,
        snapshots: join(dir, `pulled-${i}`),
      })
      t.equal(report.result, 'published', `pull ${i + 1}`)
    }
  },
)

t.test('a running server keeps serving while the origin is down, and swaps the pulled snapshot in', async (t) => {
  const from = await origin(t)
  const local = await localWithBuild(t)
  const server = await spawnServe(t, ['--snapshots', local.snapshots, '--ledger', freshDir(t), '--rate-limit', '0'])
  const ready = async () =>
    (
      (await (await request(`http://127.0.0.1:${server.port}/readyz`)).body.json()) as {
        data: { snapshot: string; as_of: string }
      }
    ).data
  t.match(await ready(), { snapshot: local.id, as_of: '2026-09-30' })

  // Nothing listens on port 1.
  await refused(
    t,
    pullSnapshot({ from: 'http://127.0.0.1:1/', snapshots: local.snapshots }),
    'download_failed',
    local.snapshots,
    entries(local.snapshots),
  )
  t.match(await ready(), { ready: true, snapshot: local.id }, 'the origin down: the local build is served')

  await pullSnapshot({ from: from.base, snapshots: local.snapshots })
  for (let i = 0; i < 100 && (await ready()).snapshot !== from.id; i++) await new Promise((r) => setTimeout(r, 50))
  t.match(await ready(), { ready: true, snapshot: from.id, as_of: '2026-10-31' }, '/readyz names the pulled build')
  t.match(server.log(), /"message":"snapshot swapped"/)
})

t.test('the CLI: --json, exit codes, one line on failure, nothing on stderr when not a terminal', async (t) => {
  const from = await origin(t)
  const snapshots = join(freshDir(t), 'snapshots')
  const first = await carmarket(['snapshot', 'pull', '--from', from.base, '--snapshots', snapshots, '--json'])
  t.equal(first.code, 0, first.stderr)
  t.equal(first.stderr, '', 'no progress bar without a terminal')
  const summary = JSON.parse(first.stdout) as PullReport
  t.match(summary, {
    build_id: from.id,
    result: 'published',
    bytes: statSync(join(from.dir, SNAPSHOT_FILE)).size,
    source: from.base,
  })
  t.type(summary.seconds, 'number')

  const again = await carmarket([
    'snapshot',
    'pull',
    '--from',
    from.base.slice(0, -1),
    '--snapshots',
    snapshots,
    '--json',
  ])
  t.equal(again.code, 0, again.stderr)
  t.match(JSON.parse(again.stdout), { build_id: from.id, result: 'unchanged', bytes: 0 })

  const text = await carmarket(['snapshot', 'pull', '--from', from.base, '--snapshots', snapshots])
  t.equal(text.code, 0)
  t.equal(
    text.stdout,
    `snapshot ${from.id} of ${from.base} is already here (${join(snapshots, from.id)}): nothing to pull\n`,
  )

  const missing = await carmarket([
    'snapshot',
    'pull',
    '--from',
    `${from.base}nowhere`,
    '--snapshots',
    join(freshDir(t), 'other'),
  ])
  t.equal(missing.code, 1)
  t.equal(missing.stdout, '')
  t.equal(missing.stderr, `carmarket: cannot download ${from.base}nowhere/current/manifest.json: HTTP 404\n`)

  const bad = await carmarket(['snapshot', 'pull', '--from', 'ftp://example.com/', '--snapshots', snapshots])
  t.equal(bad.code, 2, 'a usage error')
  t.match(bad.stderr, /^carmarket: --from must be an http or https address/)
  const keep = await carmarket(['snapshot', 'pull', '--from', from.base, '--snapshots', snapshots, '--keep', '0'])
  t.equal(keep.code, 2)
  t.match(keep.stderr, /^carmarket: --keep must be an integer of at least 1/)
})

/** The data file, a byte at a time every `ms`: a source that trickles, never stalling long enough for a timeout. */
function trickle(res: ServerResponse, file: string, ms: number): void {
  const bytes = readFileSync(file)
  res.writeHead(200, { 'content-length': bytes.length })
  let at = 0
  const timer = setInterval(() => {
    if (res.destroyed || at >= bytes.length) return clearInterval(timer)
    res.write(bytes.subarray(at, ++at))
  }, ms)
  res.once('close', () => clearInterval(timer))
}

t.test(
  'a source that trickles is given up by the deadline or the minimum rate, and the lock goes with it',
  async (t) => {
    const from = await origin(
      t,
      (path, res) => path.endsWith(`/${SNAPSHOT_FILE}`) && (trickle(res, join(from.dir, SNAPSHOT_FILE), 20), true),
    )
    const local = await localWithBuild(t)
    const before = entries(local.snapshots)
    const given = async (options: { deadline?: number; minRate?: number }, most: number, what: string) => {
      const started = Date.now()
      await refused(
        t,
        pullSnapshot({ from: from.base, snapshots: local.snapshots, ...options }),
        'download_too_slow',
        local.snapshots,
        before,
      )
      const took = Date.now() - started
      t.ok(took < most, `${what}: given up after ${took} ms`)
    }
    await given({ deadline: 1_500, minRate: 0 }, 6_000, 'the deadline')
    await given({ deadline: 600_000, minRate: 10_000 }, 15_000, 'the minimum rate')
    // Neither left the lock: a build of the folder goes ahead at once.
    const built = await build(t, LOCAL_CSV, { asOf: '2026-09-30', snapshots: local.snapshots })
    t.ok(built.report.build_id, 'a build takes the folder after the pulls')
  },
)

t.test('carmarket snapshot pull --deadline and --min-rate', async (t) => {
  const from = await origin(
    t,
    (path, res) => path.endsWith(`/${SNAPSHOT_FILE}`) && (trickle(res, join(from.dir, SNAPSHOT_FILE), 20), true),
  )
  const snapshots = join(freshDir(t), 'snapshots')
  const slow = await carmarket(['snapshot', 'pull', '--from', from.base, '--snapshots', snapshots, '--deadline', '1'])
  t.equal(slow.code, 1)
  t.match(slow.stderr, /^carmarket: .*(deadline|rate)/)
  for (const [option, value] of [
    ['--deadline', '0'],
    ['--min-rate', '-1'],
    ['--min-rate', 'fast'],
  ]) {
    const bad = await carmarket(['snapshot', 'pull', '--from', from.base, '--snapshots', snapshots, option!, value!])
    t.equal(bad.code, 2, `${option} ${value}: a usage error`)
  }
})
