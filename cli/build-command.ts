import { Command } from 'commander'
import { DEFAULT_KEEP } from '../build/publish.js'
import { DEFAULT_MAX_REJECTED_SHARE, runBuild, type BuildReport } from '../build/run-build.js'
import { DEFAULT_SNAPSHOTS, collect, exchangeRates, positiveInteger, share } from './options.js'
import { ProgressBar } from './progress.js'
import { lines, terminal, terminalJson, type TerminalText } from './terminal-text.js'

interface BuildFlags {
  input: string
  snapshots: string
  asOf?: string
  fx: string[]
  aliases?: string
  keep: string
  maxRejectedShare: string
  json?: boolean
}

export const buildCommand = new Command('build')
  .description('build a snapshot from a listings export and publish it as snapshots/current')
  .requiredOption('-i, --input <src>', 'the export: a file, - for standard input, or an http(s) URL (CSV or NDJSON, gzip or plain)')
  .option('-s, --snapshots <dir>', 'snapshots folder (env CARMARKET_SNAPSHOTS)', DEFAULT_SNAPSHOTS)
  .option('--as-of <date>', 'the day the figures describe, YYYY-MM-DD (default: the latest last_seen)')
  .option('--fx <code=rate>', 'exchange rate to PLN for rows in another currency, e.g. EUR=4.31 (repeatable)', collect, [])
  .option('--aliases <file>', 'an alias table of your own that extends the curated one')
  .option('--keep <n>', 'published snapshots to keep, the new one included', String(DEFAULT_KEEP))
  .option('--max-rejected-share <share>', 'fail without publishing when more rows than this share are rejected', String(DEFAULT_MAX_REJECTED_SHARE))
  .option('--json', 'print the build report as JSON')
  .action(async (flags: BuildFlags) => {
    const report = await buildWithProgress({
      input: flags.input,
      snapshots: flags.snapshots,
      asOf: flags.asOf,
      fx: exchangeRates(flags.fx),
      aliases: flags.aliases,
      keep: positiveInteger(flags.keep, '--keep'),
      maxRejectedShare: share(flags.maxRejectedShare, '--max-rejected-share'),
    })
    process.stdout.write(flags.json === true ? `${terminalJson(report)}\n` : `${formatReport(report)}\n`)
  })

/** runBuild with its progress drawn as bars on a terminal. */
export async function buildWithProgress(options: Parameters<typeof runBuild>[0]): Promise<BuildReport> {
  const bar = new ProgressBar()
  let phase = ''
  try {
    return await runBuild({
      ...options,
      onProgress: (event) => {
        if (event.phase !== phase) {
          bar.finish()
          phase = event.phase
        }
        if (event.phase === 'read') bar.update('reading', event.done, event.total, 'bytes')
        else bar.update('writing', event.done, event.total)
      },
    })
  } finally {
    bar.finish()
  }
}

/** The build report for a person. */
export function formatReport(r: BuildReport): TerminalText {
  const n = (x: number) => x.toLocaleString('en-US')
  const reasons = Object.entries(r.rejected_by_reason).map(([reason, count]) => terminal`    ${reason.padEnd(30)} ${n(count)}`)
  const conversions = Object.entries(r.currency_conversions).map(([code, count]) => `${code} ${n(count)}`)
  return lines([
    terminal`snapshot ${r.build_id} published (${r.snapshot})`,
    terminal`  source             ${r.source} (${r.format})`,
    terminal`  as of              ${r.as_of}`,
    terminal`  rows read          ${n(r.rows_read)}`,
    terminal`  rows rejected      ${n(r.rows_rejected)}`,
    ...reasons,
    terminal`  duplicates merged  ${n(r.duplicates_dropped)}`,
    terminal`  listings kept      ${n(r.listings_kept)}`,
    terminal`  currency converted ${conversions.length === 0 ? 'none' : conversions.join(', ')}`,
    terminal`  makes / models     ${n(r.makes)} / ${n(r.models)} (${n(r.families)} pooled families)`,
    terminal`  keys written       ${n(r.keys_written)}`,
    ...(r.pruned.length > 0 ? [terminal`  pruned             ${r.pruned.join(', ')}`] : []),
    terminal`  time               ${r.seconds.toFixed(1)} s`,
  ])
}
