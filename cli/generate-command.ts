import { Command } from 'commander'
import { DEFAULT_LISTINGS, DEFAULT_SEED, SAMPLE_AS_OF, generateExport } from '../sample/generate.js'
import { UsageError } from './handle-error.js'
import { positiveInteger } from './options.js'
import { ProgressBar } from './progress.js'
import { terminalJson, visible } from './terminal-text.js'

interface GenerateFlags {
  out: string
  listings: string
  seed: string
  asOf: string
  format: string
  gzip: boolean
  json?: boolean
}

export const generateCommand = new Command('generate')
  .description('write a deterministic sample listings export that looks like the Polish market')
  .requiredOption('-o, --out <file>', 'where to write it (- for standard output)')
  .option('-n, --listings <n>', 'listings to generate', String(DEFAULT_LISTINGS))
  .option('--seed <seed>', 'seed: the same seed and as-of date give the same file', DEFAULT_SEED)
  .option('--as-of <date>', 'export day YYYY-MM-DD', SAMPLE_AS_OF)
  .option('--format <format>', 'csv or ndjson', 'csv')
  .option('--no-gzip', 'write it uncompressed')
  .option('--json', 'print the summary as JSON')
  .action(async (flags: GenerateFlags) => {
    if (flags.format !== 'csv' && flags.format !== 'ndjson') throw new UsageError('--format must be csv or ndjson')
    const bar = new ProgressBar()
    let summary
    try {
      summary = await generateExport({
        out: flags.out,
        listings: positiveInteger(flags.listings, '--listings'),
        seed: flags.seed,
        asOf: flags.asOf,
        format: flags.format,
        gzip: flags.gzip,
        onProgress: (done, total) => bar.update('listings', done, total),
      })
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message)
      throw error
    } finally {
      bar.finish()
    }
    const report =
      flags.json === true
        ? terminalJson(summary)
        : `${visible(summary.out)}: ${summary.listings.toLocaleString('en-US')} listings in ${summary.rows.toLocaleString('en-US')} rows ` +
          `(${summary.duplicate_rows} earlier sightings, ${summary.invalid_rows} invalid, ` +
          `${Object.entries(summary.foreign_rows)
            .map(([code, rows]) => `${rows} priced in ${code}`)
            .join(', ')}), as of ${summary.as_of}`
    // With --out - the export itself is on standard output.
    ;(flags.out === '-' ? process.stderr : process.stdout).write(`${report}\n`)
  })
