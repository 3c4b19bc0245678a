import { Command } from 'commander'
import { DEFAULT_KEEP } from '../build/publish.js'
import { DEFAULT_MAX_REJECTED_SHARE, runBuild, type BuildReport } from '../build/run-build.js'
import { MAX_SHRINK_TEXT } from '../build/shrink-guard.js'
import { describeSource } from '../build/source.js'
import { failureOf } from './handle-error.js'
import { DEFAULT_SNAPSHOTS, collect, exchangeRates, positiveInteger, share, signingKey } from './options.js'
import { ProgressBar } from './progress.js'
import { lines, terminal, terminalJsonLine, visible, type TerminalText } from './terminal-text.js'

interface BuildFlags {
  input: string
  snapshots: string
  asOf?: string
  fx: string[]
  aliases?: string
  keep: string
  maxRejectedShare: string
  allowShrink?: boolean
  signingKey?: string
  json?: boolean
}

export const buildCommand = new Command('build')
  .description('build a snapshot from a listings export and publish it as snapshots/current')
  .requiredOption(
    '-i, --input <src>',
    'the export: a file, - for standard input, or an http(s) URL (CSV or NDJSON, gzip or plain)',
  )
  .option('-s, --snapshots <dir>', 'snapshots folder (env CARMARKET_SNAPSHOTS)', DEFAULT_SNAPSHOTS)
  .option('--as-of <date>', 'the day the figures describe, YYYY-MM-DD (default: the latest last_seen)')
  .option(
    '--fx <code=rate>',
    'exchange rate to PLN for rows in another currency, e.g. EUR=4.31 (repeatable)',
    collect,
    [],
  )
  .option('--aliases <file>', 'an alias table of your own that extends the curated one')
  .option('--keep <n>', 'published snapshots to keep, the new one included', String(DEFAULT_KEEP))
  .option(
    '--max-rejected-share <share>',
    'fail without publishing when more rows than this share are rejected',
    String(DEFAULT_MAX_REJECTED_SHARE),
  )
  .option(
    '--allow-shrink',
    `publish even when listings or keys fall by more than ${MAX_SHRINK_TEXT} from the current snapshot`,
  )
  .option(
    '--signing-key <file>',
    'sign the snapshot with the Ed25519 private key in this PEM file, for serve and snapshot pull --verify-key (env CARMARKET_SIGNING_KEY)',
    process.env.CARMARKET_SIGNING_KEY,
  )
  .option('--json', 'print one line of JSON, the report or the failure, for a JSON Lines log')
  .action(async (flags: BuildFlags) => {
    let report: BuildReport
    try {
      report = await buildWithProgress({
        input: flags.input,
        snapshots: flags.snapshots,
        asOf: flags.asOf,
        fx: exchangeRates(flags.fx),
        aliases: flags.aliases,
        keep: positiveInteger(flags.keep, '--keep'),
        maxRejectedShare: share(flags.maxRejectedShare, '--max-rejected-share'),
        allowShrink: flags.allowShrink === true,
        signingKey: flags.signingKey === undefined ? undefined : signingKey(flags.signingKey, '--signing-key'),
      })
    } catch (error) {
      // A nightly log gets its line for a failed build too; the message still goes to stderr.
      if (flags.json === true) {
        process.stdout.write(`${terminalJsonLine({ ok: false, error: failureOf(error), ...runOf(flags) })}\n`)
      }
      throw error
    }
    for (const warning of report.warnings) process.stderr.write(`carmarket: WARNING: ${visible(warning.message)}\n`)
    const line = flags.json === true ? terminalJsonLine({ ok: true, ...report, ...runOf(flags) }) : formatReport(report)
    process.stdout.write(`${line}\n`)
  })

/** What every line of a build's JSON log says of the run, whatever its outcome. */
function runOf(flags: BuildFlags) {
  return { input: describeSource(flags.input), finished: new Date().toISOString() }
}

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

/** The share of used listings whose names the alias table knows, as a percentage with one decimal. */
function tableShare(r: BuildReport): string {
  return `${((100 * r.listings_named_by_table) / r.listings_kept).toFixed(1)} %`
}

/** The build report for a person. */
export function formatReport(r: BuildReport): TerminalText {
  const n = (x: number) => x.toLocaleString('en-US')
  const reasons = Object.entries(r.rejected_by_reason).map(
    ([reason, count]) => terminal`    ${reason.padEnd(30)} ${n(count)}`,
  )
  const conversions = Object.entries(r.currency_conversions).map(([code, count]) => `${code} ${n(count)}`)
  const ignored = Object.entries(r.values_ignored).map(([column, count]) => `${column} ${n(count)}`)
  return lines([
    terminal`snapshot ${r.build_id} published (${r.snapshot})`,
    terminal`  source             ${r.source} (${r.format})`,
    terminal`  as of              ${r.as_of}`,
    terminal`  rows read          ${n(r.rows_read)}`,
    terminal`  rows rejected      ${n(r.rows_rejected)}`,
    ...reasons,
    terminal`  duplicates dropped ${n(r.duplicates_dropped)}`,
    terminal`  listings kept      ${n(r.listings_kept)} used (${n(r.new_listings)} new cars set apart)`,
    terminal`  values ignored     ${ignored.length === 0 ? 'none' : ignored.join(', ')}`,
    terminal`  named by the table ${n(r.listings_named_by_table)} of the used listings (${tableShare(r)})`,
    terminal`  currency converted ${conversions.length === 0 ? 'none' : conversions.join(', ')}`,
    terminal`  makes / models     ${n(r.makes)} / ${n(r.models)} (${n(r.families)} pooled families)`,
    terminal`  keys written       ${n(r.keys_written)}`,
    ...(r.pruned.length > 0 ? [terminal`  pruned             ${r.pruned.join(', ')}`] : []),
    terminal`  time               ${r.seconds.toFixed(1)} s`,
    ...r.warnings.map((w) => terminal`  WARNING            ${w.message}`),
  ])
}
