/**
 * The build benchmark: generates the sample export once per size, then times
 * `carmarket build` on it next to two baselines measured in the same run on the same
 * file: a plain gunzip-and-split scan, and DuckDB computing count, mean and quartiles
 * per make/model/year. Every job runs in a child process of its own (peak RSS is that
 * process's); the median of the runs is reported.
 *
 *   npm run bench:build -- [--scales 1,5] [--runs 3]
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_LISTINGS, generateExport } from '../sample/generate.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name)
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback
}
const scales = option('--scales', '1').split(',').map(Number)
const runs = Number(option('--runs', '3'))
const data = join('bench', '.data')
const measure = fileURLToPath(new URL('./measure.js', import.meta.url))
mkdirSync(data, { recursive: true })

interface Measured {
  seconds: number
  max_rss_mb: number
}

function run(job: string, file: string): Measured {
  const snapshots = join(data, 'snapshots')
  rmSync(snapshots, { recursive: true, force: true })
  const out = execFileSync(process.execPath, [measure, job, file, snapshots], { encoding: 'utf8', maxBuffer: 1 << 20 })
  return JSON.parse(out.trim().split('\n').at(-1)!) as Measured
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const rows: string[] = []
for (const scale of scales) {
  const listings = Math.round(DEFAULT_LISTINGS * scale)
  const file = join(data, `listings-${listings}.csv.gz`)
  if (!existsSync(file)) {
    process.stderr.write(`generating ${listings} listings into ${file}\n`)
    await generateExport({ out: file, listings, seed: 'bench', asOf: '2026-09-30' })
  }
  const results: Record<string, Measured[]> = { scan: [], duckdb: [], build: [] }
  for (let i = 0; i < runs; i++) {
    for (const job of ['scan', 'duckdb', 'build']) {
      const m = run(job, file)
      results[job]!.push(m)
      process.stderr.write(`${listings} ${job} run ${i + 1}: ${m.seconds.toFixed(2)} s, ${m.max_rss_mb} MB\n`)
    }
  }
  const summary = Object.fromEntries(
    Object.entries(results).map(([job, ms]) => [
      job,
      { seconds: median(ms.map((m) => m.seconds)), rss: median(ms.map((m) => m.max_rss_mb)) },
    ]),
  ) as Record<'scan' | 'duckdb' | 'build', { seconds: number; rss: number }>
  const build = summary.build
  rows.push(
    `| ${listings.toLocaleString('en-US')} | ${summary.scan.seconds.toFixed(2)} s | ${summary.duckdb.seconds.toFixed(2)} s, ${summary.duckdb.rss} MB | ` +
      `${build.seconds.toFixed(2)} s, ${build.rss} MB | ${Math.round(listings / build.seconds).toLocaleString('en-US')} | ` +
      `${(build.seconds / summary.duckdb.seconds).toFixed(2)}x | ${(build.seconds / summary.scan.seconds).toFixed(2)}x |`,
  )
}
process.stdout.write(
  [
    `runs per job: ${runs} (median), node ${process.version}`,
    '| listings | plain scan | DuckDB | carmarket build | rows/s | build / DuckDB | build / scan |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
)
