/**
 * The build on a real marketplace export: the report (what was rejected, set apart as new,
 * ignored), the share of used listings whose names the curated table knows, and the
 * build's time and peak memory per 100,000 rows. The whole export and its first half are
 * each built in a child process of their own (bench/measure.ts): the difference is the
 * cost of the rows, told apart from the build's fixed cost (starting workers, loading the
 * name table, writing and verifying a snapshot), which a smaller build would not pay in
 * full (it computes its few keys on one thread).
 *
 *   npm run bench:real -- [EXPORT] [--runs 3]
 *
 * EXPORT defaults to the Otomoto export in ../shared/realdata/ when that folder is there.
 */
import { execFileSync } from 'node:child_process'
import { createReadStream, createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { createGunzip } from 'node:zlib'
import type { BuildReport } from '../build/run-build.js'
import { formatReport } from '../cli/build-command.js'
import { BENCH_DATA } from './bench-data.js'

const SHARED_EXPORT = fileURLToPath(
  new URL('../../../shared/realdata/otomoto-2021-04-display-names.csv.gz', import.meta.url),
)

const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3
const given = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--runs')
const file = resolve(given ?? SHARED_EXPORT)
if (!existsSync(file)) {
  process.stderr.write(`bench:real: no export at ${file}; give one: npm run bench:real -- EXPORT\n`)
  process.exit(2)
}
const measure = fileURLToPath(new URL('./measure.js', import.meta.url))

interface Measured {
  readonly seconds: number
  readonly cpu_seconds: number
  readonly max_rss_mb: number
  readonly report: BuildReport
}

/** The first `rows` data lines of an export (gzip or not, by its magic bytes) after its header, plain. */
async function head(path: string, rows: number, out: string): Promise<void> {
  const first = await new Promise<Buffer>((done) =>
    createReadStream(path, { start: 0, end: 1 }).once('data', (b) => done(b as Buffer)),
  )
  const input = createReadStream(path)
  const text = first[0] === 0x1f && first[1] === 0x8b ? input.pipe(createGunzip()) : input
  const lines: string[] = []
  for await (const line of createInterface({ input: text, crlfDelay: Infinity })) {
    lines.push(line)
    if (lines.length > rows) break
  }
  input.destroy()
  await pipeline(Readable.from([`${lines.join('\n')}\n`]), createWriteStream(out))
}

function build(path: string): Measured {
  const snapshots = join(BENCH_DATA, 'real-snapshots')
  rmSync(snapshots, { recursive: true, force: true })
  const out = execFileSync(process.execPath, [measure, 'build', path, snapshots], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  })
  return JSON.parse(out.trim().split('\n').at(-1)!) as Measured
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

mkdirSync(BENCH_DATA, { recursive: true })
const whole: Measured[] = [build(file)]
const report = whole[0]!.report
const small = join(BENCH_DATA, 'real-half.csv')
await head(file, Math.floor(report.rows_read / 2), small)
const part: Measured[] = []
for (let i = 0; i < runs; i++) {
  if (i > 0) whole.push(build(file))
  part.push(build(small))
  process.stderr.write(
    `run ${i + 1}: ${whole.at(-1)!.seconds.toFixed(2)} s whole, ${part.at(-1)!.seconds.toFixed(2)} s half\n`,
  )
}
const figure = (m: readonly Measured[], f: (x: Measured) => number) => median(m.map(f))
const rows = report.rows_read
const per100k = (f: (m: Measured) => number) =>
  ((figure(whole, f) - figure(part, f)) / (rows - part[0]!.report.rows_read)) * 100_000
const fixed = (f: (m: Measured) => number) => figure(whole, f) - (per100k(f) * rows) / 100_000
const [seconds, cpu, rss] = [(m: Measured) => m.seconds, (m: Measured) => m.cpu_seconds, (m: Measured) => m.max_rss_mb]
const share = (100 * report.listings_named_by_table) / report.listings_kept
process.stdout.write(
  [
    formatReport(report),
    '',
    `export ${file}, runs per build: ${runs} (median), node ${process.version}`,
    `names: ${report.listings_named_by_table.toLocaleString('en-US')} of ${report.listings_kept.toLocaleString('en-US')} ` +
      `used listings (${share.toFixed(1)} %) resolved through the curated table`,
    `whole export: ${figure(whole, seconds).toFixed(2)} s (CPU ${figure(whole, cpu).toFixed(2)} s), ${figure(whole, rss)} MB ` +
      `for ${rows.toLocaleString('en-US')} rows`,
    `its first ${part[0]!.report.rows_read.toLocaleString('en-US')} rows: ${figure(part, seconds).toFixed(2)} s ` +
      `(CPU ${figure(part, cpu).toFixed(2)} s), ${figure(part, rss)} MB`,
    `per 100,000 rows: ${per100k(seconds).toFixed(2)} s (CPU ${per100k(cpu).toFixed(2)} s), ${per100k(rss).toFixed(0)} MB ` +
      `beyond a fixed ${fixed(seconds).toFixed(2)} s (CPU ${fixed(cpu).toFixed(2)} s), ${fixed(rss).toFixed(0)} MB`,
    '',
  ].join('\n'),
)
