import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { BuildError } from '../build/build-error.js'
import { runBuild, type BuildReport } from '../build/run-build.js'
import { ApiError } from '../query/api-error.js'
import { Snapshot } from '../query/snapshot.js'
import { build, gzip, reference, rows, toCsv, toNdjson, vehicle, writeExport, type Row } from './support.js'

/**
 * Every kind of source (plain or gzip, CSV or NDJSON, a file, a URL, stdin) read into
 * the same snapshot; sources that are no export fail with a BuildError and publish
 * nothing.
 */

const KEYS = [
  ['Volkswagen', 'Golf', 2017],
  ['Skoda', 'Octavia', 2018],
  ['Toyota', 'Corolla', 2019],
] as const
const REGIONS = ['mazowieckie', 'łódzkie', 'śląskie', 'pomorskie', 'małopolskie'] as const
const PER_KEY = 48

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
}

function priceOf(k: number, i: number): number {
  return 20_000 + k * 5_000 + ((i * 7_919) % 97) * 300
}

/** 3 keys x 48 listings with every dimension varied, plus rows that are rejected or duplicates. */
function dataset(): Row[] {
  const listings = KEYS.flatMap(([make, model, year], k) =>
    rows(PER_KEY, (i) => {
      const first = addDays('2025-10-03', i * 7)
      return {
        listing_id: `K${k}-${i}`,
        make: i % 3 === 0 ? make.toUpperCase() : make,
        model,
        year,
        price: priceOf(k, i),
        mileage_km: i % 10 === 0 ? '' : 40_000 + i * 2_500,
        fuel_type: i % 2 === 1 ? 'Benzyna' : i % 4 === 0 ? 'Diesel' : 'diesel',
        gearbox: i % 4 < 2 ? 'Manualna' : 'automatic',
        imported: i % 3 === 0 ? 'true' : 'false',
        voivodeship: REGIONS[i % REGIONS.length]!,
        first_seen: first,
        last_seen: addDays(first, 3 + ((i * 13) % 40)),
        active: i % 3 === 1 ? 'true' : 'false',
      }
    }),
  )
  return [
    ...listings,
    // An earlier sighting of K0-5 (dropped as a duplicate: the later last_seen wins).
    { ...listings[5]!, price: 1_000_000, last_seen: '2025-10-01', first_seen: '2025-09-01' },
    ...rows(1, () => ({ listing_id: 'BAD1', price: 'abc' })),
    ...rows(1, () => ({ listing_id: 'BAD2', fuel_type: 'Parowy' })),
    ...rows(1, () => ({ listing_id: 'BAD3', condition: 'damaged' })),
    ...rows(1, () => ({ listing_id: 'BAD4', currency: 'USD' })),
  ]
}

const DATA = dataset()
const CSV = toCsv(DATA)
const NDJSON = toNdjson(DATA)

/** The answers and counts of the plain CSV file build, which every other source must reproduce. */
let fileReference: { answers: Record<string, unknown>; counts: unknown } | undefined
async function fileBuild(t: Test) {
  if (fileReference === undefined) {
    await t.test('the export from a plain file', async (t) => {
      const { report, snapshot } = await build(t, CSV)
      fileReference = { answers: answers(snapshot), counts: counts(report) }
    })
  }
  return fileReference!
}

/** Every operation's answer (or error code) for each key, and a few filtered valuations. */
function answers(snapshot: Snapshot): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const attempt = (name: string, f: () => unknown) => {
    try {
      out[name] = f()
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      out[name] = { error: error.code, ...error.extra }
    }
  }
  for (const [make, model, year] of [...KEYS, ['VW', 'Golf', 2017] as const, ['Nonexistent', 'Car', 2017] as const]) {
    const v = vehicle(make, model, year)
    const key = `${make} ${model} ${year}`
    attempt(`${key} valuation`, () => snapshot.valuation(v))
    attempt(`${key} valuation diesel`, () => snapshot.valuation({ ...v, fuel_type: 'Diesel' }))
    attempt(`${key} valuation mileage`, () => snapshot.valuation({ ...v, mileage: 80_000 }))
    attempt(`${key} price-history`, () => snapshot.priceHistory({ ...v, months: 12 }))
    attempt(`${key} liquidity`, () => snapshot.liquidity(v))
    attempt(`${key} valuation-factors`, () => snapshot.valuationFactors(v))
    attempt(`${key} regional`, () => snapshot.regional(v))
  }
  return out
}

function counts(report: BuildReport) {
  const {
    rows_read,
    rows_rejected,
    rejected_by_reason,
    duplicates_dropped,
    listings_kept,
    keys_written,
    as_of,
    makes,
    models,
    families,
  } = report
  return {
    rows_read,
    rows_rejected,
    rejected_by_reason,
    duplicates_dropped,
    listings_kept,
    keys_written,
    as_of,
    makes,
    models,
    families,
  }
}

const EXPECTED_COUNTS = {
  rows_read: KEYS.length * PER_KEY + 5,
  rows_rejected: 4,
  duplicates_dropped: 1,
  listings_kept: KEYS.length * PER_KEY,
  as_of: '2026-09-30',
}

/** Runs an ES module script in a real node process, without throwing on a non-zero exit. */
function runNode(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script, ...args],
      { timeout: 15_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr })
      },
    )
  })
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  return undefined
}

/** Nothing published: no `current`, no snapshot or staging folder, no lock. */
function assertNothingPublished(t: Test, snapshots: string) {
  t.notOk(existsSync(join(snapshots, 'current')), 'no current snapshot')
  t.strictSame(existsSync(snapshots) ? readdirSync(snapshots) : [], [], 'the snapshots folder holds nothing')
}

interface Served {
  readonly base: string
  readonly requests: string[]
}

/** A real node:http server on 127.0.0.1 serving the gzip export, a redirect to it and a 404. */
async function serve(t: Test, body: Buffer): Promise<Served> {
  const requests: string[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`)
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    if (path === '/export.csv.gz') {
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length })
      // In pieces, as a download arrives.
      const half = body.length >> 1
      res.write(body.subarray(0, half))
      setTimeout(() => res.end(body.subarray(half)), 20)
    } else if (path === '/latest') {
      res.writeHead(302, { location: '/export.csv.gz' })
      res.end()
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

t.test('plain CSV, gzip CSV, plain NDJSON and gzip NDJSON give identical snapshots', async (t) => {
  const sources = [
    { name: 'export.csv', content: Buffer.from(CSV), format: 'csv' },
    // gzip under names that do not say so: detection is by the magic bytes.
    { name: 'export-gzipped.csv', content: gzip(CSV), format: 'csv' },
    { name: 'export.ndjson', content: Buffer.from(NDJSON), format: 'ndjson' },
    { name: 'export-gzipped.ndjson', content: gzip(NDJSON), format: 'ndjson' },
  ] as const
  const built: { name: string; report: BuildReport; answers: Record<string, unknown> }[] = []
  for (const source of sources) {
    await t.test(source.name, async (t) => {
      const { report, snapshot } = await build(t, source.content, { fx: new Map([['EUR', 4.3]]) }, source.name)
      t.equal(report.format, source.format)
      t.match(counts(report), EXPECTED_COUNTS)
      t.strictSame(report.rejected_by_reason, {
        invalid_price: 1,
        invalid_fuel_type: 1,
        invalid_condition: 1,
        unsupported_currency: 1,
      })
      built.push({ name: source.name, report, answers: answers(snapshot) })
      if (source.name === 'export.csv') fileReference = { answers: built[0]!.answers, counts: counts(report) }
    })
  }
  t.equal(built.length, 4)
  const [first, ...others] = built
  // The answers are real ones: figures for every operation of the three keys.
  const golf = first!.answers['Volkswagen Golf 2017 valuation'] as { valuation: unknown; sample_size: number }
  const golfPrices = Array.from({ length: PER_KEY }, (_, i) => priceOf(0, i))
  t.equal(golf.sample_size, PER_KEY)
  t.strictSame(golf.valuation, reference.quartiles(golfPrices))
  for (const [name, answer] of Object.entries(first!.answers)) {
    if (name.startsWith('Nonexistent')) t.match(answer, { error: 'INSUFFICIENT_DATA' }, name)
    else t.notMatch(answer, { error: String }, `${name} is answered`)
  }
  for (const other of others) {
    t.strictSame(counts(other.report), counts(first!.report), `${other.name}: the same counts as ${first!.name}`)
    t.strictSame(other.answers, first!.answers, `${other.name}: the same answers as ${first!.name}`)
  }
  t.not(first!.report.build_id, others[0]!.report.build_id)
})

t.test('an http URL is streamed; a redirect is followed; a 404 fails publishing nothing', async (t) => {
  const gz = gzip(CSV)
  const served = await serve(t, gz)
  const { answers: fileAnswers, counts: fileCounts } = await fileBuild(t)

  await t.test('from the URL', async (t) => {
    const snapshots = join(t.testdir(), 'snapshots')
    const url = `${served.base}/export.csv.gz`
    const report = await runBuild({ input: url, snapshots, asOf: '2026-09-30' })
    t.equal(report.source, url)
    t.equal(report.format, 'csv')
    t.strictSame(counts(report), fileCounts)
    t.equal(readlinkSync(join(snapshots, 'current')), report.build_id)
    const snapshot = Snapshot.open(snapshots)
    t.teardown(() => snapshot.close())
    t.equal(snapshot.manifest.source, url)
    t.strictSame(answers(snapshot), fileAnswers)
  })

  await t.test('through a 302 redirect', async (t) => {
    const snapshots = join(t.testdir(), 'snapshots')
    const before = served.requests.length
    const report = await runBuild({ input: `${served.base}/latest?token=secret`, snapshots, asOf: '2026-09-30' })
    t.strictSame(
      served.requests.slice(before),
      ['GET /latest?token=secret', 'GET /export.csv.gz'],
      'the redirect was followed',
    )
    t.equal(report.source, `${served.base}/latest`, 'the source is recorded without its query')
    t.strictSame(counts(report), fileCounts)
    const snapshot = Snapshot.open(snapshots)
    t.teardown(() => snapshot.close())
    t.strictSame(answers(snapshot), fileAnswers)
  })

  await t.test('a 404', async (t) => {
    // Run in a process of its own: a build embedded in a long-lived process (a scheduler,
    // this test runner) must get its BuildError and go on running afterwards.
    const snapshots = join(t.testdir(), 'snapshots')
    const child = await runNode(
      `const { runBuild } = await import(${JSON.stringify(new URL('../build/run-build.js', import.meta.url).href)})
      try {
        await runBuild({ input: process.argv[1], snapshots: process.argv[2], asOf: '2026-09-30' })
        console.log(JSON.stringify({ built: true }))
      } catch (error) {
        console.log(JSON.stringify({ name: error.name, code: error.code }))
      }
      await new Promise((resolve) => setTimeout(resolve, 300))
      console.log('still running')`,
      [`${served.base}/missing.csv.gz`, snapshots],
    )
    const [first] = child.stdout.split('\n')
    const outcome = JSON.parse(first ?? '{}') as { name?: string; code?: string }
    t.equal(outcome.name, 'BuildError', 'a BuildError')
    t.equal(outcome.code, 'http_status')
    t.ok(served.requests.includes('GET /missing.csv.gz'), 'the server was asked for the file')
    assertNothingPublished(t, snapshots)
    t.equal(child.stderr.match(/^\w*Error\b.*$/m)?.[0], undefined, 'no unhandled error event after the BuildError')
    t.equal(child.code, 0, 'the process goes on after the failed build')
    t.match(child.stdout, /still running\n$/)
  })

  await t.test('a server that is not there', async (t) => {
    const snapshots = join(t.testdir(), 'snapshots')
    const error = await failure(runBuild({ input: 'http://127.0.0.1:1/export.csv', snapshots, asOf: '2026-09-30' }))
    t.ok(error instanceof BuildError, 'a BuildError')
    t.match(error, { code: 'download_failed' })
    assertNothingPublished(t, snapshots)
  })
})

t.test('standard input: plain and gzip', async (t) => {
  const { answers: fileAnswers, counts: fileCounts } = await fileBuild(t)
  for (const [name, bytes] of [
    ['plain', Buffer.from(CSV)],
    ['gzip', gzip(CSV)],
  ] as const) {
    await t.test(`${name} on stdin`, async (t) => {
      const snapshots = join(t.testdir(), 'snapshots')
      const report = await runBuild({ input: '-', stdin: Readable.from([bytes]), snapshots, asOf: '2026-09-30' })
      t.equal(report.source, 'stdin')
      t.strictSame(counts(report), fileCounts)
      const snapshot = Snapshot.open(snapshots)
      t.teardown(() => snapshot.close())
      t.equal(snapshot.manifest.source, 'stdin')
      t.strictSame(answers(snapshot), fileAnswers)
    })
  }
})

t.test('a truncated gzip fails clearly and leaves the published snapshot as it was', async (t) => {
  const good = gzip(CSV)
  const goodPath = writeExport(t, 'good.csv.gz', good)
  const dir = join(goodPath, '..')
  const truncatedPath = join(dir, 'truncated.csv.gz')
  writeFileSync(truncatedPath, good.subarray(0, good.length >> 1))
  const snapshots = join(dir, 'snapshots')

  const first = await runBuild({ input: goodPath, snapshots, asOf: '2026-09-30' })
  const before = Snapshot.open(snapshots)
  const answersBefore = answers(before)
  await before.close()

  const error = await failure(runBuild({ input: truncatedPath, snapshots, asOf: '2026-09-30' }))
  t.ok(error instanceof BuildError, 'a BuildError')
  t.match(error, { code: 'corrupt_gzip' })

  t.equal(readlinkSync(join(snapshots, 'current')), first.build_id, 'current still names the first build')
  t.strictSame(
    readdirSync(snapshots).sort(),
    [first.build_id, 'current'].sort(),
    'no new snapshot, staging folder or lock',
  )
  const after = Snapshot.open(snapshots)
  t.teardown(() => after.close())
  t.equal(after.manifest.build_id, first.build_id)
  t.strictSame(answers(after), answersBefore, 'the first snapshot still answers the same')
})

/** Deterministic noise (xorshift32), never starting with the gzip magic bytes or `{`. */
function noise(n: number, seed: number): Buffer {
  const out = Buffer.alloc(n)
  let s = seed
  for (let i = 0; i < n; i++) {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    out[i] = s & 0xff
  }
  if (out[0] === 0x1f || out[0] === 0x7b) out[0] = 0x41
  return out
}

t.test('a file that is not an export fails with a clear BuildError and publishes nothing', async (t) => {
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from([0, 0, 0, 13]),
    Buffer.from('IHDR'),
    noise(2_000, 7),
  ])
  const cases = [
    { name: 'random bytes', content: noise(64 * 1024, 12_345), code: 'not_an_export' },
    { name: 'a PNG', content: png, code: 'not_an_export' },
    { name: 'gzip of random bytes', content: gzip(noise(10_000, 99)), code: 'not_an_export' },
    { name: 'an empty file', content: Buffer.alloc(0), code: 'empty_export' },
    { name: 'a gzip of nothing', content: gzip(''), code: 'empty_export' },
    { name: 'a header and no rows', content: Buffer.from(toCsv([])), code: 'empty_export' },
    {
      name: 'a PDF',
      content: Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1'),
      code: 'not_an_export',
    },
  ]
  const files: Record<string, string> = {
    'random bytes': 'random.dat',
    'a PNG': 'picture.dat',
    'gzip of random bytes': 'random-gzip.dat',
    'an empty file': 'empty.dat',
    'a gzip of nothing': 'empty-gzip.dat',
    'a header and no rows': 'header-only.dat',
    'a PDF': 'document.dat',
  }
  const dir = t.testdir()
  for (const c of cases) {
    const input = join(dir, files[c.name]!)
    writeFileSync(input, c.content)
    const snapshots = join(dir, `snapshots-${files[c.name]}`)
    const error = await failure(runBuild({ input, snapshots, asOf: '2026-09-30' }))
    t.ok(error instanceof BuildError, `${c.name}: a BuildError`)
    t.match(error, { code: c.code }, c.name)
    assertNothingPublished(t, snapshots)
  }
})

t.test('a path that does not exist, or is a folder, fails with a BuildError', async (t) => {
  const dir = t.testdir()
  const snapshots = join(dir, 'snapshots')
  const missing = join(dir, 'no-such-export.csv')
  const error = await failure(runBuild({ input: missing, snapshots }))
  t.ok(error instanceof BuildError, 'a BuildError')
  t.match(error, { code: 'unreadable_export' })
  assertNothingPublished(t, snapshots)

  const folder = join(dir, 'a-folder')
  mkdirSync(folder)
  const notFile = await failure(runBuild({ input: folder, snapshots }))
  t.ok(notFile instanceof BuildError, 'a BuildError')
  t.match(notFile, { code: 'unreadable_export' })
  assertNothingPublished(t, snapshots)
})
