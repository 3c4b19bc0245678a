/**
 * Runs one benchmark job in this process and prints {seconds, cpu_seconds, max_rss_mb, ...}
 * as JSON, so every job's time and memory are measured alone, the same way (CPU time counts
 * every thread of the process: the build's workers, DuckDB's threads):
 *   node dist/bench/measure.js scan|duckdb|duckdb-figures|build FILE [SNAPSHOTS] [CHECKOUT]
 * CHECKOUT: the build of another checkout's compiled code, measured by this same code.
 */
import { createReadStream } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createGunzip } from 'node:zlib'
import { SAMPLE_FX } from '../sample/generate.js'

const [job, file, snapshots, checkout] = process.argv.slice(2)
if (file === undefined)
  throw new Error('usage: measure.js scan|duckdb|duckdb-figures|build FILE [SNAPSHOTS] [CHECKOUT]')

/** The plain baseline: gunzip and split into lines, nothing else. */
async function scan(path: string) {
  let lines = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }).pipe(
    createGunzip({ chunkSize: 1 << 20 }),
  )) {
    const bytes = chunk as Buffer
    for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) lines++
  }
  return { lines }
}

/**
 * The engine baselines, straight from the file (read all_varchar with TRY_CAST: the export
 * has rows whose price is text, which a strict read rejects): count, mean and quartiles
 * per make, model and year; with `figures`, also what the build computes beyond them from
 * the same rows: per make, model and year the mileage fit (the slope of ln(price) on
 * mileage_km where both are usable, and its count), and per make, model, year and fuel the
 * median that depreciation curves are made of, the file read once for both.
 */
async function duckdb(path: string, figures: boolean) {
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const instance = await DuckDBInstance.create(':memory:')
  const connection = await instance.connect()
  const rows = `SELECT make, model, year, fuel_type, TRY_CAST(price AS DOUBLE) AS p, TRY_CAST(mileage_km AS DOUBLE) AS km
    FROM read_csv('${path.replace(/'/g, "''")}', header = true, all_varchar = true)`
  const perKey = `SELECT make, model, year, count(*) AS n, avg(p) AS average, quantile_cont(p, [0.25, 0.5, 0.75]) AS quartiles`
  // ln of zero or a negative price is an error in DuckDB; the CASEs make those pairs NULL, which regr_* skip.
  const pair = 'CASE WHEN p > 0 THEN ln(p) END, CASE WHEN km >= 0 THEN km END'
  const result = await connection.runAndReadAll(
    figures
      ? `WITH rows AS MATERIALIZED (${rows})
         (${perKey}, regr_slope(${pair}) AS slope, regr_count(${pair}) AS fitted FROM rows GROUP BY make, model, year)
         UNION ALL BY NAME
         (SELECT make, model, year, fuel_type, median(p) AS median FROM rows GROUP BY make, model, year, fuel_type)`
      : `${perKey} FROM (${rows}) GROUP BY make, model, year`,
  )
  const groups = result.getRows().length
  connection.closeSync()
  instance.closeSync()
  return { groups }
}

// This checkout's build or CHECKOUT's, loaded before the clock starts whichever it is.
const { runBuild } = (await import(
  checkout === undefined
    ? '../build/run-build.js'
    : pathToFileURL(resolve(checkout, 'dist', 'build', 'run-build.js')).href
)) as typeof import('../build/run-build.js')

async function build(path: string, dir: string) {
  const report = await runBuild({ input: path, snapshots: dir, fx: SAMPLE_FX })
  return { listings: report.listings_kept, keys: report.keys_written, report }
}

const started = performance.now()
const cpuAtStart = process.cpuUsage()
const result =
  job === 'scan'
    ? await scan(file)
    : job === 'duckdb' || job === 'duckdb-figures'
      ? await duckdb(file, job === 'duckdb-figures')
      : await build(file, snapshots ?? 'bench/.data/snapshots')
const seconds = (performance.now() - started) / 1000
const cpu = process.cpuUsage(cpuAtStart)
const measured = {
  job,
  seconds,
  cpu_seconds: (cpu.user + cpu.system) / 1e6,
  max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
}
process.stdout.write(`${JSON.stringify({ ...measured, ...result })}\n`)
