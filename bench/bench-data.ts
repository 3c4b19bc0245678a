import { existsSync, mkdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { runBuild } from '../build/run-build.js'
import { Snapshot } from '../query/snapshot.js'
import { SAMPLE_FX, generateExport } from '../sample/generate.js'

/** Where benchmarks keep what they generate and build, once (git-ignored). */
export const BENCH_DATA = join('bench', '.data')

/**
 * The snapshots folder of the sample market with `listings` listings (seed `bench`, as of
 * 2026-09-30), generated and built on first use. One built by an earlier version that this
 * one refuses is built again.
 */
export async function benchSnapshots(listings: number): Promise<string> {
  mkdirSync(BENCH_DATA, { recursive: true })
  const dir = join(BENCH_DATA, `answers-${listings}`)
  if (!servable(dir)) {
    await runBuild({ input: await benchExport(listings), snapshots: dir, fx: SAMPLE_FX })
  }
  return dir
}

/**
 * The sample export of `listings` listings (seed `bench`, as of 2026-09-30), generated on first use under a temporary
 * name and then renamed, so that a run stopped half way leaves no cut file for the next to read. `detail` false: the
 * same market without the detail columns, as exports were before them.
 */
export async function benchExport(listings: number, detail = true): Promise<string> {
  mkdirSync(BENCH_DATA, { recursive: true })
  const file = join(BENCH_DATA, `listings-${listings}${detail ? '' : '-without-detail'}.csv.gz`)
  if (existsSync(file)) return file
  process.stderr.write(`generating ${listings} listings into ${file}\n`)
  const partial = `${file}.partial`
  await generateExport({ out: partial, listings, seed: 'bench', asOf: '2026-09-30', detail })
  renameSync(partial, file)
  return file
}

function servable(dir: string): boolean {
  try {
    void Snapshot.open(dir).close()
    return true
  } catch {
    return false
  }
}
