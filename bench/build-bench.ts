/**
 * The build benchmark: generates the sample export once per size, then times
 * `carmarket build` on it next to baselines measured in the same run on the same file: a
 * plain gunzip-and-split scan, DuckDB computing count, mean and quartiles per
 * make/model/year, and DuckDB computing those and the figures beyond them (the mileage
 * fit per make/model/year, the median per make/model/year and fuel). Every job runs in a
 * child process of its own (peak RSS is that process's); the median of the runs is
 * reported. `--before DIR` also times the build of another checkout's compiled code, so
 * that a change to the build is judged against the code before it in the same run. Each
 * size is measured on the export with its detail columns (version, generation, body type,
 * power, displacement) and on the same market without them (`--detail with|without` for
 * one of the two).
 *
 *   npm run bench:build -- [--scales 1,5] [--runs 3] [--before DIR] [--detail with|without]
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_LISTINGS } from '../sample/generate.js'
import { BENCH_DATA, benchExport } from './bench-data.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name)
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback
}
const scales = option('--scales', '1').split(',').map(Number)
const runs = Number(option('--runs', '3'))
const before = option('--before', '')
const details = option('--detail', 'with,without').split(',')
const measure = fileURLToPath(new URL('./measure.js', import.meta.url))

interface Measured {
  seconds: number
  cpu_seconds: number
  max_rss_mb: number
}

/** One job, in a child process; `before` is the build of the checkout in `--before`. */
function run(job: string, file: string): Measured {
  const snapshots = join(BENCH_DATA, 'snapshots')
  rmSync(snapshots, { recursive: true, force: true })
  const args = job === 'before' ? ['build', file, snapshots, before] : [job, file, snapshots]
  const out = execFileSync(process.execPath, [measure, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 })
  return JSON.parse(out.trim().split('\n').at(-1)!) as Measured
}

interface Summary {
  seconds: number
  cpu: number
  rss: number
}

const timed = (m: Summary) => `${m.seconds.toFixed(2)} s (CPU ${m.cpu.toFixed(2)} s), ${m.rss} MB`
/** Of the elapsed times, and in brackets of the CPU times: on a busy machine the second is the steadier. */
const ratio = (a: Summary, b: Summary) => `${(a.seconds / b.seconds).toFixed(2)}x (${(a.cpu / b.cpu).toFixed(2)}x)`

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const jobs = ['scan', 'duckdb', 'duckdb-figures', 'build', ...(before === '' ? [] : ['before'])]
const rows: string[] = []
for (const scale of scales)
  for (const detail of details) {
    const listings = Math.round(DEFAULT_LISTINGS * scale)
    const file = await benchExport(listings, detail === 'with')
    const results = new Map<string, Measured[]>(jobs.map((job) => [job, []]))
    for (let i = 0; i < runs; i++) {
      for (const job of jobs) {
        const m = run(job, file)
        results.get(job)!.push(m)
        process.stderr.write(
          `${listings} ${detail} detail ${job} run ${i + 1}: ${m.seconds.toFixed(2)} s, CPU ${m.cpu_seconds.toFixed(2)} s, ${m.max_rss_mb} MB\n`,
        )
      }
    }
    const summary = (job: string): Summary => {
      const ms = results.get(job)!
      return {
        seconds: median(ms.map((m) => m.seconds)),
        cpu: median(ms.map((m) => m.cpu_seconds)),
        rss: median(ms.map((m) => m.max_rss_mb)),
      }
    }
    const scan = summary('scan')
    const quartiles = summary('duckdb')
    const figures = summary('duckdb-figures')
    const build = summary('build')
    const earlier = before === '' ? '' : ` ${timed(summary('before'))} | ${ratio(build, summary('before'))} |`
    rows.push(
      `| ${listings.toLocaleString('en-US')} | ${detail} | ${scan.seconds.toFixed(2)} s | ${timed(quartiles)} | ${timed(figures)} | ` +
        `${timed(build)} | ${Math.round(listings / build.seconds).toLocaleString('en-US')} | ` +
        `${ratio(build, quartiles)} | ${ratio(build, figures)} | ${ratio(figures, quartiles)} | ${ratio(build, scan)} |${earlier}`,
    )
  }
const beforeColumns = before === '' ? ['', ''] : [' build of --before | build / --before |', '---|---|']
process.stdout.write(
  [
    `runs per job: ${runs} (median), node ${process.version}${before === '' ? '' : `, --before ${before}`}`,
    '| listings | detail columns | plain scan | DuckDB quartiles | DuckDB with the figures | carmarket build | rows/s | build / DuckDB quartiles | ' +
      `build / DuckDB with the figures | DuckDB with the figures / quartiles | build / scan |${beforeColumns[0]}`,
    `|---|---|---|---|---|---|---|---|---|---|---|${beforeColumns[1]}`,
    ...rows,
    '',
  ].join('\n'),
)
