import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { isoDate, yearOfDay } from '../format/calendar.js'
import { normalize } from '../format/normalize.js'
import { SCHEMA_VERSION, type Manifest, type Target } from '../format/schema.js'
import { CURATED_ALIASES, extendAliasTable, loadAliasTable } from './alias-table.js'
import { BuildError } from './build-error.js'
import { CODE_VERSION } from './code-version.js'
import type { ExportFormat } from './export-reader.js'
import { DUPLICATE, KEPT, ListingStore, REJECTED, dropDuplicates, settleAsOf } from './listing-store.js'
import { mapNames, nameIndex } from './name-mapping.js'
import { newBuildId, prune, publish, stagingDir, withBuildLock } from './publish.js'
import { readInParallel } from './parallel-read.js'
import { openSource } from './source.js'
import { StatisticsBuilder, type KeyStatistics } from './statistics.js'
import { dayNumber, type RejectionReason } from './validate.js'
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
  readonly listings_kept: number
  readonly currency_conversions: Readonly<Record<string, number>>
  readonly keys_written: number
  readonly makes: number
  readonly models: number
  readonly families: number
  readonly pruned: readonly string[]
  readonly seconds: number
}

export const DEFAULT_KEEP = 3
export const DEFAULT_MAX_REJECTED_SHARE = 0.5

/**
 * Reads an export, cleans it, resolves its names, computes every statistic and
 * publishes the snapshot as `current`, or fails without publishing anything.
 */
export async function runBuild(options: BuildOptions): Promise<BuildReport> {
  const started = performance.now()
  const table =
    options.aliases === undefined
      ? loadAliasTable(CURATED_ALIASES)
      : extendAliasTable(loadAliasTable(CURATED_ALIASES), loadAliasTable(options.aliases))
  let givenAsOf: number | undefined
  if (options.asOf !== undefined) {
    givenAsOf = /^\d{4}-\d{2}-\d{2}$/.test(options.asOf) ? dayNumber(options.asOf) : undefined
    if (givenAsOf === undefined) throw new BuildError(`--as-of must be a date YYYY-MM-DD, not ${JSON.stringify(options.asOf)}`)
  }
  const keep = options.keep ?? DEFAULT_KEEP
  const maxRejectedShare = options.maxRejectedShare ?? DEFAULT_MAX_REJECTED_SHARE
  const progress = options.onProgress ?? (() => {})

  return withBuildLock(options.snapshots, async () => {
    const source = await openSource(options.input, options.stdin)
    const read = await readInParallel(
      source.bytes,
      { fx: options.fx ?? new Map<string, number>(), maxYear: givenAsOf === undefined ? undefined : yearOfDay(givenAsOf) + 1 },
      () => progress({ phase: 'read', done: source.bytesRead(), total: source.totalBytes }),
    )
    progress({ phase: 'read', done: source.bytesRead(), total: source.bytesRead() })
    const { format, rowsRead, store } = read
    if (format === undefined || rowsRead === 0) throw new BuildError(`the export ${source.description} holds no rows`)
    const rejected = read.rejected
    const reject = (reason: RejectionReason, count = 1) => {
      if (count > 0) rejected[reason] = (rejected[reason] ?? 0) + count
    }
    const conversions = read.conversions

    const state = new Uint8Array(store.length)
    rejectUnnamed(store, state, reject)
    let asOf = givenAsOf
    if (asOf === undefined) {
      const settled = settleAsOf(store, state, yearOfDay)
      reject('year_out_of_range', settled.yearRejected)
      asOf = settled.asOf
    }
    const duplicates = dropDuplicates(store, state)
    const kept = store.length - countState(state, REJECTED) - countState(state, DUPLICATE)
    const rowsRejected = rowsRead - store.length + countState(state, REJECTED)
    if (kept === 0 || Number.isNaN(asOf)) {
      throw new BuildError(`no row of the export passed validation (${summarize(rejected)}); nothing was published`)
    }
    if (rowsRejected / rowsRead > maxRejectedShare) {
      throw new BuildError(
        `${rowsRejected} of ${rowsRead} rows were rejected (${summarize(rejected)}), more than the allowed share ` +
          `${maxRejectedShare}; nothing was published`,
      )
    }

    const makeCount = new Uint32Array(store.spellings.makeSpellings.length)
    const modelCount = new Uint32Array(store.spellings.modelSpellings.length)
    for (let i = 0; i < store.length; i++) {
      if (state[i] !== KEPT) continue
      makeCount[store.makeSpelling[i]!]!++
      modelCount[store.modelSpelling[i]!]!++
    }
    const names = mapNames({ ...store.spellings, makeCount, modelCount }, table)
    const model = new Int32Array(store.length)
    for (let i = 0; i < store.length; i++) model[i] = state[i] === KEPT ? names.modelOf[store.modelSpelling[i]!]! : -1

    const statistics = new StatisticsBuilder(store, model, names.models.length, asOf)
    const modelYears = new Map(names.models.map((_, i) => [i, statistics.yearsOf(i)]))
    const index = nameIndex(names, modelYears, table)
    const targets: { target: Target; models: number[]; years: readonly number[] }[] = names.models.map((m, i) => ({
      target: { kind: 'model', make: names.makes[m.make]!, name: m.name },
      models: [i],
      years: modelYears.get(i)!,
    }))
    const modelNumber = new Map(names.models.map((m, i) => [`${names.makes[m.make]}\u0000${m.name}`, i]))
    let families = 0
    for (const make of index.makes) {
      for (const family of make.families) {
        // A family of one model answers with that model's key; only a real pool gets keys of its own.
        if (family.models.length < 2) continue
        families++
        targets.push({
          target: { kind: 'family', make: make.name, name: family.name },
          models: family.models.map((m) => modelNumber.get(`${make.name}\u0000${m}`)!),
          years: family.years,
        })
      }
    }
    const totalKeys = targets.reduce((n, t) => n + t.years.length, 0)
    function* keys(): Generator<KeyStatistics> {
      for (const t of targets) for (const year of t.years) yield statistics.key(t.target, t.models, year)
    }

    const buildId = newBuildId()
    const staging = stagingDir(options.snapshots, buildId)
    const asOfDate = isoDate(asOf)
    const manifest = await writeSnapshot(
      staging,
      keys(),
      totalKeys,
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
          keys_written: keysWritten,
          makes: names.makes.length,
          models: names.models.length,
          families,
        },
      }),
      (done, total) => progress({ phase: 'write', done, total }),
    )
    await verifySnapshot(staging, manifest)
    publish(options.snapshots, buildId)
    const pruned = prune(options.snapshots, keep)
    return {
      build_id: buildId,
      snapshot: join(options.snapshots, buildId),
      source: source.description,
      format,
      as_of: asOfDate,
      ...manifest.counts,
      rejected_by_reason: sortedCounts(rejected),
      currency_conversions: conversions,
      pruned,
      seconds: Math.round(performance.now() - started) / 1000,
    }
  })
}

/** A make or model with no letter or digit at all names nothing: its rows are rejected. */
function rejectUnnamed(store: ListingStore, state: Uint8Array, reject: (reason: RejectionReason, count?: number) => void) {
  const badMake = store.spellings.makeSpellings.map((s) => normalize(s) === '')
  const badModel = store.spellings.modelSpellings.map((s) => normalize(s) === '')
  if (!badMake.includes(true) && !badModel.includes(true)) return
  for (let i = 0; i < store.length; i++) {
    const reason = badMake[store.makeSpelling[i]!] ? 'invalid_make' : badModel[store.modelSpelling[i]!] ? 'invalid_model' : undefined
    if (reason === undefined) continue
    state[i] = REJECTED
    reject(reason)
  }
}

function countState(state: Uint8Array, value: number): number {
  let n = 0
  for (const s of state) if (s === value) n++
  return n
}

function sortedCounts<K extends string>(counts: Partial<Record<K, number>>): Partial<Record<K, number>> {
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => (b as number) - (a as number))) as Partial<Record<K, number>>
}

function summarize(rejected: Partial<Record<RejectionReason, number>>): string {
  const entries = Object.entries(sortedCounts(rejected))
  return entries.length === 0 ? 'no rows' : entries.slice(0, 5).map(([r, n]) => `${r}: ${n}`).join(', ')
}
