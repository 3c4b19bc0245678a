import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Command } from 'commander'
import { CURRENT_LINK } from '../format/schema.js'
import { Snapshot } from '../query/snapshot.js'
import { DEFAULT_LISTINGS, SAMPLE_FX, generateExport } from '../sample/generate.js'
import { buildWithProgress, formatReport } from './build-command.js'
import { formatManifest, openOrFail } from './snapshot-command.js'
import { DEFAULT_SNAPSHOTS } from './options.js'
import { ProgressBar } from './progress.js'
import { visible } from './terminal-text.js'
import { messageOf } from '../format/message-of.js'

export const DEFAULT_SAMPLE_EXPORT = join('data', 'sample-listings.csv.gz')

/**
 * The embedded default: when the snapshots folder has no current snapshot that opens
 * (none yet, or one this version refuses, such as a build of an older format), generate
 * the sample export and build it; either way, return with a snapshot in place.
 */
export async function ensureSampleSnapshot(snapshots: string, exportPath = DEFAULT_SAMPLE_EXPORT): Promise<void> {
  const problem = currentProblem(snapshots)
  if (problem === undefined) return
  process.stderr.write(
    `${visible(problem)}: generating the sample market (${DEFAULT_LISTINGS.toLocaleString('en-US')} listings) and building it once.\n`,
  )
  mkdirSync(dirname(exportPath), { recursive: true })
  const bar = new ProgressBar()
  try {
    await generateExport({ out: exportPath, onProgress: (done, total) => bar.update('generating', done, total) })
  } finally {
    bar.finish()
  }
  // What it replaces cannot be served: however small, the sample is more of a market.
  const report = await buildWithProgress({ input: exportPath, snapshots, fx: SAMPLE_FX, allowShrink: true })
  process.stderr.write(`${formatReport(report)}\n`)
}

/** Why the current snapshot of `snapshots` cannot be served, or undefined when it can be opened. */
function currentProblem(snapshots: string): string | undefined {
  if (!existsSync(join(snapshots, CURRENT_LINK))) return `No snapshot in ${snapshots} yet`
  try {
    void Snapshot.open(snapshots).close()
    return undefined
  } catch (error) {
    return `The current snapshot in ${snapshots} cannot be served (${messageOf(error)})`
  }
}

export const sampleCommand = new Command('sample')
  .description('build the embedded sample snapshot if there is none, and print its summary')
  .option('-s, --snapshots <dir>', 'snapshots folder (env CARMARKET_SNAPSHOTS)', DEFAULT_SNAPSHOTS)
  .option('--export <file>', 'where the generated sample export is kept', DEFAULT_SAMPLE_EXPORT)
  .action(async (flags: { snapshots: string; export: string }) => {
    await ensureSampleSnapshot(flags.snapshots, flags.export)
    const snapshot = openOrFail(flags.snapshots)
    try {
      process.stdout.write(`${formatManifest(snapshot.dir, snapshot.manifest)}\n`)
    } finally {
      await snapshot.close()
    }
  })
