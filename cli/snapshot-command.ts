import { Command } from 'commander'
import { OPERATIONS, type Manifest, type Operation } from '../format/schema.js'
import { OPERATION_SPECS, answer, marketRequest } from '../query/operations.js'
import { Snapshot } from '../query/snapshot.js'
import { EnvironmentError, UsageError } from './handle-error.js'
import { DEFAULT_SNAPSHOTS } from './options.js'
import { pullCommand } from './pull-command.js'
import { lines, terminal, terminalJson, type TerminalText } from './terminal-text.js'
import { messageOf } from '../format/message-of.js'

const info = new Command('info')
  .description("print the current snapshot's manifest")
  .option(
    '-s, --snapshots <dir>',
    'snapshots folder, or one snapshot folder (env CARMARKET_SNAPSHOTS)',
    DEFAULT_SNAPSHOTS,
  )
  .option('--json', 'print the manifest as JSON')
  .action(async (flags: { snapshots: string; json?: boolean }) => {
    const snapshot = openOrFail(flags.snapshots)
    try {
      process.stdout.write(
        flags.json === true
          ? `${terminalJson(snapshot.manifest)}\n`
          : `${formatManifest(snapshot.dir, snapshot.manifest)}\n`,
      )
    } finally {
      await snapshot.close()
    }
  })

interface QueryFlags {
  snapshots: string
  make?: string
  model?: string
  year?: string
  fuelType?: string
  gearbox?: string
  mileage?: string
  askingPrice?: string
  months?: string
  bodyType?: string
  version?: string
  powerHp?: string
}

/** The free catalogue questions `query` answers beside the market operations. */
const CATALOG = ['makes', 'models'] as const
/** Every market operation's parameters, by their API names (flagOf reads each from its option). */
const PARAMETERS = [...new Set(Object.values(OPERATION_SPECS).flatMap((spec) => spec.parameters))]

const query = new Command('query')
  .description('answer a market question offline, printing the JSON envelope the HTTP API returns')
  .argument('<operation>', [...OPERATIONS, ...CATALOG].join('|'))
  .option(
    '-s, --snapshots <dir>',
    'snapshots folder, or one snapshot folder (env CARMARKET_SNAPSHOTS)',
    DEFAULT_SNAPSHOTS,
  )
  .option('--make <make>', 'make, e.g. VW or Volkswagen (models: the make whose models to list)')
  .option('--model <model>', 'model, e.g. Golf or 3 Series')
  .option('--year <year>', 'production year (not for depreciation)')
  .option('--fuel-type <fuel>', 'valuation, depreciation: Benzyna, Diesel, ... or petrol, diesel, ...')
  .option('--gearbox <gearbox>', 'valuation, depreciation: Manualna/Automatyczna or manual/automatic, m/a, ...')
  .option('--body-type <body>', 'valuation, depreciation: Kombi, Sedan, SUV, ... or estate, sedan, suv, ...')
  .option('--version <words>', 'valuation, depreciation: listings whose version or generation holds these words')
  .option('--power-hp <km>', 'valuation, depreciation: listings within ±10% of this engine power in KM')
  .option('--mileage <km>', 'valuation: listings within ±30% of this mileage, and the value at it')
  .option('--asking-price <pln>', 'valuation: where this asking price sits among the listings')
  .option('--months <n>', 'price-history: months of history, 1 to 24 (default 6)')
  .action(async (operation: string, flags: QueryFlags) => {
    const known: readonly string[] = [...OPERATIONS, ...CATALOG]
    if (!known.includes(operation)) {
      throw new UsageError(`unknown operation ${JSON.stringify(operation)}; one of ${known.join(', ')}`)
    }
    // An option the question does not take is refused, as the HTTP API refuses an unknown parameter.
    const takes: readonly string[] =
      operation === 'makes'
        ? []
        : operation === 'models'
          ? ['make']
          : OPERATION_SPECS[operation as Operation].parameters
    const option = (parameter: string) => `--${parameter.replace(/_/g, '-')}`
    for (const parameter of PARAMETERS) {
      if (flagOf(flags, parameter) === undefined || takes.includes(parameter)) continue
      const accepted = takes.length === 0 ? 'no options but --snapshots' : takes.map(option).join(', ')
      throw new UsageError(`${operation} does not take ${option(parameter)}; it takes ${accepted}`)
    }
    const snapshot = openOrFail(flags.snapshots)
    try {
      const data =
        operation === 'makes'
          ? snapshot.catalogMakes()
          : operation === 'models'
            ? snapshot.catalogModels({ make: flags.make as string })
            : answer(
                snapshot,
                marketRequest(operation as Operation, (name) => flagOf(flags, name), snapshot.maxYear),
              )
      process.stdout.write(`${terminalJson({ status: 'success', data })}\n`)
    } finally {
      await snapshot.close()
    }
  })

export const snapshotCommand = new Command('snapshot')
  .description('inspect a snapshot, query it offline, or pull one from another host')
  .addCommand(info)
  .addCommand(query)
  .addCommand(pullCommand)

function flagOf(flags: QueryFlags, parameter: string): string | undefined {
  switch (parameter) {
    case 'make':
      return flags.make
    case 'model':
      return flags.model
    case 'year':
      return flags.year
    case 'fuel_type':
      return flags.fuelType
    case 'gearbox':
      return flags.gearbox
    case 'mileage':
      return flags.mileage
    case 'asking_price':
      return flags.askingPrice
    case 'months':
      return flags.months
    case 'body_type':
      return flags.bodyType
    case 'version':
      return flags.version
    case 'power_hp':
      return flags.powerHp
    default:
      return undefined
  }
}

/** The snapshot at `path`; one that is missing or refused is the machine's state, not a wrong call (exit 1). */
export function openOrFail(path: string): Snapshot {
  try {
    return Snapshot.open(path)
  } catch (error) {
    throw new EnvironmentError(messageOf(error))
  }
}

export function formatManifest(dir: string, m: Manifest): TerminalText {
  const n = (x: number) => x.toLocaleString('en-US')
  return lines([
    terminal`snapshot ${m.build_id} (${dir})`,
    terminal`  as of           ${m.as_of}`,
    terminal`  source          ${m.source}`,
    terminal`  built           ${m.created_at} by carmarket ${m.code_version}, schema ${m.schema_version}`,
    terminal`  rows read       ${n(m.counts.rows_read)} (${n(m.counts.rows_rejected)} rejected, ${n(m.counts.duplicates_dropped)} duplicates)`,
    terminal`  listings        ${n(m.counts.listings_kept)} used (${n(m.counts.new_listings)} new cars set apart)`,
    terminal`  makes / models  ${n(m.counts.makes)} / ${n(m.counts.models)} (${n(m.counts.families)} pooled families)`,
    terminal`  keys            ${n(m.counts.keys_written)}`,
  ])
}
