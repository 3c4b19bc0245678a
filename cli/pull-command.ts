import { Command } from 'commander'
import { DEFAULT_KEEP } from '../build/publish.js'
import { DEFAULT_DEADLINE, DEFAULT_MIN_RATE, pullSnapshot, type PullReport } from '../build/pull.js'
import { DEFAULT_SNAPSHOTS, httpUrl, positiveInteger, verifyKey } from './options.js'
import { ProgressBar } from './progress.js'
import { lines, terminal, terminalJson, type TerminalText } from './terminal-text.js'

interface PullFlags {
  from: string
  snapshots: string
  keep: string
  deadline: string
  minRate: string
  verifyKey?: string
  json?: boolean
}

export const pullCommand = new Command('pull')
  .description("download another host's current snapshot, verify it and publish it as snapshots/current")
  .requiredOption(
    '--from <url>',
    "the other host's snapshots folder on a static HTTP server, e.g. http://build.internal/snapshots/",
  )
  .option('-s, --snapshots <dir>', 'snapshots folder (env CARMARKET_SNAPSHOTS)', DEFAULT_SNAPSHOTS)
  .option('--keep <n>', 'published snapshots to keep, the new one included', String(DEFAULT_KEEP))
  .option('--deadline <seconds>', 'give up when the whole pull takes longer', String(DEFAULT_DEADLINE / 1000))
  .option(
    '--min-rate <bytes>',
    'give up when a file comes slower than this many bytes a second (after its first seconds; 0 for no minimum)',
    String(DEFAULT_MIN_RATE),
  )
  .option(
    '--verify-key <file>',
    'publish only a snapshot signed by the build whose Ed25519 public key this PEM file holds (env CARMARKET_VERIFY_KEY)',
    process.env.CARMARKET_VERIFY_KEY,
  )
  .option('--json', 'print the summary as JSON')
  .action(async (flags: PullFlags) => {
    const from = httpUrl(flags.from, '--from')
    const keep = positiveInteger(flags.keep, '--keep')
    const deadline = positiveInteger(flags.deadline, '--deadline') * 1000
    const minRate = positiveInteger(flags.minRate, '--min-rate', 0)
    const key = flags.verifyKey === undefined ? undefined : verifyKey(flags.verifyKey, '--verify-key')
    const bar = new ProgressBar()
    let report: PullReport
    try {
      report = await pullSnapshot({
        from,
        snapshots: flags.snapshots,
        keep,
        deadline,
        minRate,
        verifyKey: key,
        onProgress: (done, total) => bar.update('pulling', done, total, 'bytes'),
      })
    } finally {
      bar.finish()
    }
    process.stdout.write(flags.json === true ? `${terminalJson(report)}\n` : `${formatPull(report)}\n`)
  })

function formatPull(r: PullReport): TerminalText {
  if (r.result === 'unchanged')
    return terminal`snapshot ${r.build_id} of ${r.source} is already here (${r.snapshot}): nothing to pull`
  return lines([
    terminal`snapshot ${r.build_id} published (${r.snapshot})`,
    terminal`  from    ${r.source}`,
    terminal`  bytes   ${r.bytes.toLocaleString('en-US')}`,
    ...(r.pruned.length > 0 ? [terminal`  pruned  ${r.pruned.join(', ')}`] : []),
    terminal`  time    ${r.seconds.toFixed(1)} s`,
  ])
}
