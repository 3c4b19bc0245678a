/**
 * Runs one benchmark job in this process and prints {seconds, max_rss_mb, ...} as JSON,
 * so every job's memory is measured alone, the same way:
 *   node dist/bench/measure.js scan|duckdb|build FILE [SNAPSHOTS]
 */
import { createReadStream } from 'node:fs'
import { createGunzip } from 'node:zlib'
import { runBuild } from '../build/run-build.js'
import { SAMPLE_EUR_RATE } from '../sample/generate.js'

const [job, file, snapshots] = process.argv.slice(2)
if (file === undefined) throw new Error('usage: measure.js scan|duckdb|build FILE [SNAPSHOTS]')

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

/** The engine baseline: count, mean and quartiles per make, model and year, straight from the file. */
async function duckdb(path: string) {
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const instance = await DuckDBInstance.create(':memory:')
  const connection = await instance.connect()
  // all_varchar + TRY_CAST: the export has rows whose price is text, which a strict read rejects.
  const result = await connection.runAndReadAll(`
    SELECT make, model, year, count(*) AS n, avg(p) AS average, quantile_cont(p, [0.25, 0.5, 0.75]) AS quartiles
    FROM (SELECT make, model, year, TRY_CAST(price AS DOUBLE) AS p FROM read_csv('${path.replace(/'/g, "''")}', header = true, all_varchar = true))
    GROUP BY make, model, year`)
  const groups = result.getRows().length
  connection.closeSync()
  instance.closeSync()
  return { groups }
}

async function build(path: string, dir: string) {
  const report = await runBuild({ input: path, snapshots: dir, fx: new Map([['EUR', SAMPLE_EUR_RATE]]) })
  return { listings: report.listings_kept, keys: report.keys_written }
}

const started = performance.now()
const result =
  job === 'scan'
    ? await scan(file)
    : job === 'duckdb'
      ? await duckdb(file)
      : await build(file, snapshots ?? 'bench/.data/snapshots')
const seconds = (performance.now() - started) / 1000
process.stdout.write(
  `${JSON.stringify({ job, seconds, max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024), ...result })}\n`,
)
