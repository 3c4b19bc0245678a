import type { KeyObject } from 'node:crypto'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { latestYear } from '../format/bounds.js'
import { dayNumber, isoDate, yearOfDay } from '../format/calendar.js'
import { CODE_VERSION } from '../format/code-version.js'
import { SCHEMA_VERSION, type Manifest } from '../format/schema.js'
import { curatedTable } from './alias-table.js'
import { BuildError } from './build-error.js'
import { currencyWarning, type BuildWarning } from './build-warnings.js'
import type { ExportFormat } from './export-reader.js'
import { cleanRows, sortedCounts, spellingCounts } from './clean-rows.js'
import { planKeys } from './key-plan.js'
import { KEPT } from './listing-store.js'
import { mapNames, nameIndex } from './name-mapping.js'
import { DEFAULT_KEEP, newBuildId, prune, publish, stagingDir, withBuildLock } from './publish.js'
import { readInParallel } from './parallel-read.js'
import { openSource } from './source.js'
import { renderedKeys } from './parallel-statistics.js'
import { checkShrink } from './shrink-guard.js'
import { StatisticsBuilder, groupRows } from './statistics.js'
import type { IgnoredValues, RejectionReason } from './validate.js'
import { verifySnapshot, writeSnapshot } from './snapshot-writer.js'

export interface BuildOptions {
  /** A file path, `-` for standard input, or an http(s) URL. */
  readonly input: string
  /** The snapshots folder; the new snapshot becomes its `current`. */
  readonly snapshots: string
  /** YYYY-MM-DD; by default the greatest last_seen among kept rows. */
  readonly asOf?: string | undefined
  /** Exchange rates to PLN by ISO code, for rows priced in another currency. */
  readonly fx?: ReadonlyMap<string, number>
  /** An operator's alias table extending the curated one. */
  readonly aliases?: string | undefined
  /** Published snapshots to keep, the new one included. */
  readonly keep?: number
  /** The build fails, publishing nothing, when a larger share of rows is rejected. */
  readonly maxRejectedShare?: number
  /** Publish even when listings or keys fall by more than MAX_SHRINK from the current snapshot. */
  readonly allowShrink?: boolean
  /** The Ed25519 private key the snapshot's manifest is signed with (manifest-signature.ts); unsigned without. */
  readonly signingKey?: KeyObject | undefined
  readonly stdin?: Readable
  readonly onProgress?: (event: BuildProgress) => void
}

export type BuildProgress =
  | { readonly phase: 'read'; readonly done: number; readonly total: number | undefined }
  | { readonly phase: 'write'; readonly done: number; readonly total: number }

/** The build report (data contract 1.1), printed for a person or as JSON. */
export interface BuildReport {
  readonly build_id: string
  readonly snapshot: string
  readonly source: string
  readonly format: ExportFormat
  readonly as_of: string
  readonly rows_read: number
  readonly rows_rejected: number
  readonly rejected_by_reason: Readonly<Partial<Record<RejectionReason, number>>>
  readonly duplicates_dropped: number
  /** Used listings after de-duplication. */
  readonly listings_kept: number
  /** New cars, set apart from every figure (contract 1.2). */
  readonly new_listings: number
  /** Used listings whose make and model the alias table names (the rest are named after their spellings). */
  readonly listings_named_by_table: number
  /** Unrecognised values of optional columns that did not reject their rows, by column (contract 1.1). */
  readonly values_ignored: IgnoredValues
  readonly currency_conversions: Readonly<Record<string, number>>
  readonly keys_written: number
  readonly makes: number
  readonly models: number
  readonly families: number
  /** Body variants that pool their base model's listings of their body type (contract 3.1). */
  readonly variants: number
  readonly pruned: readonly string[]
  readonly seconds: number
  /** What the operator should act on though the build published. */
  readonly warnings: readonly BuildWarning[]
}

export const DEFAULT_MAX_REJECTED_SHARE = 0.5
/** Answers a build reads back once its snapshot is written (it checked every one as it wrote it). */
const VERIFIED_SAMPLES = 1000

/**
 * Reads an export, cleans it, resolves its names, computes every statistic and
 * publishes the snapshot as `current`, or fails without publishing anything.
 */
export async function runBuild(options: BuildOptions): Promise<BuildReport> {
  const started = performance.now()
  const table = curatedTable(options.aliases)
  let givenAsOf: number | undefined
  if (options.asOf !== undefined) {
    givenAsOf = /^\d{4}-\d{2}-\d{2}$/.test(options.asOf) ? dayNumber(options.asOf) : undefined
    if (givenAsOf === undefined)
      throw new BuildError('invalid_option', `--as-of must be a date YYYY-MM-DD, not ${JSON.stringify(options.asOf)}`)
  }
  const keep = options.keep ?? DEFAULT_KEEP
  const maxRejectedShare = options.maxRejectedShare ?? DEFAULT_MAX_REJECTED_SHARE
  const progress = options.onProgress ?? (() => {})

  return withBuildLock(options.snapshots, async () => {
    const source = await openSource(options.input, options.stdin)
    const read = await readInParallel(
      source.bytes,
      {
        fx: options.fx ?? new Map<string, number>(),
        maxYear: givenAsOf === undefined ? undefined : latestYear(yearOfDay(givenAsOf)),
      },
      () => progress({ phase: 'read', done: source.bytesRead(), total: source.totalBytes }),
    )
    progress({ phase: 'read', done: source.bytesRead(), total: source.bytesRead() })
    const { format, rowsRead, store, rejected, ignored, conversions, unrated } = read
    if (format === undefined || rowsRead === 0)
      throw new BuildError('empty_export', `the export ${source.description} holds no rows`)
    const { state, asOf, rowsRejected, duplicates, kept, newListings } = cleanRows(
      store,
      rowsRead,
      rejected,
      givenAsOf,
      maxRejectedShare,
    )

    const names = mapNames(store.spellings, spellingCounts(store, state), table)
    const model = new Int32Array(store.length)
    let namedByTable = 0
    for (let i = 0; i < store.length; i++) {
      model[i] = state[i] === KEPT ? names.modelOf[store.modelSpelling[i]!]! : -1
      if (model[i]! >= 0 && names.models[model[i]!]!.curated) namedByTable++
    }
    const rows = groupRows(store, model, names.models.length, asOf)
    const statistics = new StatisticsBuilder(rows)
    const modelListings = new Map(names.models.map((_, i) => [i, statistics.listingsOf(i)]))
    const index = nameIndex(names, modelListings, table, (model, body) => statistics.yearsWithBody(model, body))
    const plan = planKeys(names, modelListings, index)
    const jobs = plan.targets.flatMap((t) =>
      t.years.map((year) => ({ target: t.target, models: t.models, bodies: t.bodies, year })),
    )

    const buildId = newBuildId()
    const staging = stagingDir(options.snapshots, buildId)
    const asOfDate = isoDate(asOf)
    const manifest = await writeSnapshot(
      staging,
      renderedKeys(rows, jobs),
      plan.keys,
      index,
      (keysWritten): Manifest => ({
        schema_version: SCHEMA_VERSION,
        build_id: buildId,
        as_of: asOfDate,
        source: source.description,
        created_at: new Date().toISOString(),
        code_version: CODE_VERSION,
        counts: {
          rows_read: rowsRead,
          rows_rejected: rowsRejected,
          duplicates_dropped: duplicates,
          listings_kept: kept,
          new_listings: newListings,
          keys_written: keysWritten,
          makes: names.makes.length,
          models: names.models.length,
          families: plan.families,
          variants: plan.variants,
        },
      }),
      (done, total) => progress({ phase: 'write', done, total }),
      options.signingKey,
    )
    await verifySnapshot(staging, buildId, VERIFIED_SAMPLES)
    if (options.allowShrink !== true) checkShrink(options.snapshots, manifest.counts)
    publish(options.snapshots, buildId)
    const pruned = prune(options.snapshots, keep)
    return {
      build_id: buildId,
      snapshot: join(options.snapshots, buildId),
      source: source.description,
      format,
      as_of: asOfDate,
      ...manifest.counts,
      listings_named_by_table: namedByTable,
      rejected_by_reason: sortedCounts(rejected),
      values_ignored: ignored,
      currency_conversions: conversions,
      pruned,
      seconds: Math.round(performance.now() - started) / 1000,
      warnings: [currencyWarning(rejected.unsupported_currency ?? 0, unrated)].filter((w) => w !== undefined),
    }
  })
}
