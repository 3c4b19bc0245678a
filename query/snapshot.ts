import type { KeyObject } from 'node:crypto'
import { existsSync, realpathSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { open, type Database, type RootDatabase } from 'lmdb'
import { latestYear } from '../format/bounds.js'
import { annualChangePct } from '../format/annual-change.js'
import { fitOf, viewColumns, type ListingColumns } from '../format/columns.js'
import { confidenceOf, percentile, priceFigures } from '../format/figures.js'
import { adjustedMember, fitMileage, mileageEffectMember } from '../format/mileage-fit.js'
import { lmdbFileProblem } from '../format/lmdb-file.js'
import { SnapshotError } from '../format/snapshot-error.js'
import { verifyFiles } from '../format/snapshot-files.js'
import {
  LIQUIDITY_NOTE_JSON,
  StoredAnswer,
  curveMembers,
  filterSelector,
  valuationMembers,
} from '../format/rendered.js'
import {
  ALL_YEARS,
  ANSWERS_OPTIONS,
  COLUMNS_DB,
  CURRENT_LINK,
  MANIFEST_FILE,
  META_DB,
  KEY_OPERATIONS,
  MIN_LISTINGS,
  SCHEMA_VERSION,
  SNAPSHOT_FILE,
  answerKey,
  statKey,
  type AnswerKey,
  type CurvePoint,
  type Manifest,
  type NameIndex,
  type Operation,
} from '../format/schema.js'
import { BODY_TYPES, FUEL_TYPES, GEARBOXES, UNKNOWN } from '../format/vocabulary.js'
import { answerProblem } from './answer-consistency.js'
import { ApiError } from './api-error.js'
import type {
  CatalogMakesData,
  CatalogModelsData,
  CatalogVersionsData,
  DepreciationData,
  LiquidityData,
  PriceHistoryData,
  RegionalData,
  ValuationData,
  ValuationFactorsData,
} from './answers.js'
import { mileageWindow } from '../format/mileage-window.js'
import { askingPriceMember } from './asking-price.js'
import { Catalog } from './catalog.js'
import { commonVersions, detailTallies, hasDetail, ListingScan } from './listing-scan.js'
import { NameResolver, type KeyTarget, type Resolution } from './name-resolver.js'
import { matchedJson, namesOnly, narrow, scans, valueJson, withoutVersions, type Narrowing } from './narrowing.js'
import {
  describe,
  filterMiss,
  insufficient,
  mileageMiss,
  narrowMiss,
  thinCurve,
  type Described,
  type KnownMileages,
} from './thin-data.js'
import { OPERATION_SPECS } from './operations.js'
import {
  depreciationParams,
  fieldSource,
  name,
  priceHistoryParams,
  valuationParams,
  vehicleParams,
  type DepreciationFields,
  type DepreciationParams,
  type ParamSource,
  type PriceHistoryFields,
  type PriceHistoryParams,
  type ValuationFields,
  type ValuationParams,
  type VehicleFields,
  type VehicleParams,
} from './params.js'

/** Answers checked between two turns of the event loop by checkInSlices: about 20 ms of work. */
const CHECK_SLICE = 2_000

/** How a snapshot is opened. */
export interface OpenOptions {
  /** The Ed25519 public key whose signature the snapshot's manifest must carry (manifest-signature.ts). */
  readonly verifyKey?: KeyObject | undefined
}

/**
 * A snapshot opened read-only: the embedding API and the code the HTTP runtime calls.
 * Opening maps the LMDB file and reads only the manifest and the name index; every
 * answer is one look-up of a precomputed record, except a valuation with a mileage
 * window, which scans that one key's listings.
 *
 * @example
 * const snapshot = Snapshot.open('snapshots')   // follows snapshots/current
 * const { valuation } = snapshot.valuation({ make: 'VW', model: 'Golf', year: 2017 })
 * await snapshot.close()
 */
export class Snapshot {
  readonly manifest: Manifest
  /** The snapshot's own folder. */
  readonly dir: string
  /** The latest production year a request may name: the as-of year + 1, as the build accepts. */
  readonly maxYear: number
  private readonly root: RootDatabase
  private readonly answers: Database<Buffer>
  private readonly stored = new StoredAnswer()
  private readonly columns: Database<Buffer>
  private readonly names: NameResolver
  private readonly catalog: Catalog
  // Reused by every mileage-filtered valuation: an 8-byte aligned copy of the key's
  // columns and the prices kept, so the scan allocates nothing.
  private columnBuffer = new Uint8Array(1 << 16)
  private kept = new Float64Array(1 << 12)
  /** Reused by every narrowed question (contract 4.1). */
  private readonly scan = new ListingScan()

  private constructor(dir: string, options: OpenOptions) {
    this.dir = dir
    // Mapping a file that was changed after its build could serve wrong figures or crash
    // the process; its digests (and their signature) are checked first, then its LMDB meta pages.
    const buildId = verifyFiles(dir, options.verifyKey)
    const file = join(dir, SNAPSHOT_FILE)
    const problem = existsSync(file) ? lmdbFileProblem(file) : 'missing'
    if (problem !== undefined) throw new SnapshotError('unmappable', `${file} cannot be served: ${problem}`)
    this.root = open({ path: file, readOnly: true, maxDbs: 4 })
    try {
      const meta = this.root.openDB({ name: META_DB })
      const manifest = meta.get('manifest') as Manifest | undefined
      if (manifest === undefined) throw new SnapshotError('no_manifest', `${dir} holds no snapshot manifest`)
      if (manifest.schema_version !== SCHEMA_VERSION) {
        throw new SnapshotError(
          'schema_mismatch',
          `${dir} has snapshot schema ${manifest.schema_version}; this code reads schema ${SCHEMA_VERSION}`,
        )
      }
      if (manifest.build_id !== buildId)
        throw new SnapshotError(
          'build_mismatch',
          `${join(dir, MANIFEST_FILE)} is of build ${buildId}, ${file} of build ${manifest.build_id}`,
        )
      this.manifest = manifest
      this.maxYear = latestYear(Number(manifest.as_of.slice(0, 4)))
      const index = meta.get('names') as NameIndex
      this.names = new NameResolver(index)
      this.catalog = new Catalog(index)
      this.answers = this.root.openDB(ANSWERS_OPTIONS)
      this.columns = this.root.openDB({ name: COLUMNS_DB, encoding: 'binary' })
    } catch (error) {
      void this.root.close()
      throw error
    }
  }

  /**
   * Opens a snapshot folder, or the `current` snapshot of a snapshots folder.
   * Throws when there is none, when its files differ from the digests its manifest.json
   * lists (or it lists none), when it was built for another schema, or, given
   * `verifyKey`, when its manifest is not signed by that key.
   */
  static open(path: string, options: OpenOptions = {}): Snapshot {
    const dir = Snapshot.locate(path)
    if (dir === undefined) {
      throw new SnapshotError(
        'no_snapshot',
        `no snapshot at ${resolve(path)} (build one with: carmarket build --input FILE)`,
      )
    }
    return new Snapshot(dir, options)
  }

  /**
   * The folder `open` would open: `path` itself when it is a snapshot, else where its `current` points; undefined when
   * neither.
   */
  static locate(path: string): string | undefined {
    if (existsSync(join(path, SNAPSHOT_FILE))) return path
    try {
      return realpathSync(join(path, CURRENT_LINK))
    } catch {
      return undefined
    }
  }

  /**
   * Reads the snapshot as it will be served, before anyone is answered from it: it must
   * hold the answers its manifest counts, and every variant of `samples` answers spread
   * over the whole file must read as the JSON its operation stores, with figures that
   * agree with each other (answer-consistency.ts). Throws what is wrong.
   */
  check(samples: number): void {
    for (const _ of this.checking(samples));
  }

  /**
   * As check, in slices of CHECK_SLICE answers with a turn of the event loop between them: a runtime checking a new
   * snapshot (a second or two for every answer of the sample) goes on answering from the one it serves.
   */
  async checkInSlices(samples: number): Promise<void> {
    for (const _ of this.checking(samples)) await new Promise<void>((resolve) => setImmediate(resolve))
  }

  /** The check, pausing (yielding) after each CHECK_SLICE answers read. */
  private *checking(samples: number): Generator<void, void, undefined> {
    // Each key's answers, and a depreciation for each model, family of two or more models and pooled body variant.
    const { keys_written: keys, models, families, variants } = this.manifest.counts
    const expected = keys * KEY_OPERATIONS.length + models + families + variants
    const count = this.answers.getStats() as { entryCount: number }
    if (count.entryCount !== expected)
      throw new SnapshotError(
        'answer_count',
        `${this.dir} holds ${count.entryCount} answers; its manifest promises ${expected}`,
      )
    // Infinity samples: a step of 1, every answer.
    const step = Math.max(1, Math.floor(expected / samples))
    let at = 0
    let read = 0
    // Every answer is read in the same pass over the file as the keys; a sample looks up only its own.
    const every = step === 1
    const entries = every ? this.answers.getRange({}) : this.answers.getKeys().map((key) => ({ key, value: undefined }))
    for (const { key, value } of entries) {
      if (at++ % step !== 0) continue
      const [kind, make, name, year, operation] = key as AnswerKey
      const bytes = every ? (value as Buffer | undefined) : this.answers.getBinary(key)
      const problem = bytes === undefined ? 'it is missing' : answerProblem(this.stored, bytes, operation)
      if (problem !== undefined)
        throw new SnapshotError(
          'inconsistent_answer',
          `${this.dir} holds an unreadable or inconsistent ${operation} answer (${kind} ${make} ${name} ${year}): ${problem}`,
        )
      if (++read % CHECK_SLICE === 0) yield
    }
  }

  close(): Promise<void> {
    return this.root.close()
  }

  /** Resolves names as a request would (data contract, section 4). */
  resolve(make: string, model: string): Resolution {
    return this.names.resolve(make, model)
  }

  // The embedding API: each question is guarded as the HTTP API guards its query string
  // (same bounds, spellings and INVALID_PARAMETER errors), then answered by the same code.

  /**
   * Average, median, p25 and p75 of prices, optionally narrowed by fuel, gearbox and a ±30% mileage window.
   *
   * @example snapshot.valuation({ make: 'VW', model: 'Golf', year: 2017, fuel_type: 'diesel', mileage: 150000 })
   */
  valuation(fields: ValuationFields): ValuationData {
    const params = valuationParams(this.source(fields, 'valuation'), this.maxYear)
    return JSON.parse(this.valuationJson(params)) as ValuationData
  }

  /**
   * Mean price per month of first sighting over the `months` months (6 unless given) ending with the as-of month.
   *
   * @example snapshot.priceHistory({ make: 'BMW', model: '3 Series', year: '2018', months: 12 })
   */
  priceHistory(fields: PriceHistoryFields): PriceHistoryData {
    const params = priceHistoryParams(this.source(fields, 'price-history'), this.maxYear)
    return JSON.parse(this.priceHistoryJson(params)) as PriceHistoryData
  }

  /** Days on market estimated from the listing spans of closed listings. */
  liquidity(fields: VehicleFields): LiquidityData {
    const params = vehicleParams(this.source(fields, 'liquidity'), this.maxYear)
    return JSON.parse(this.liquidityJson(params)) as LiquidityData
  }

  /** Price differences of imported against domestic, automatic against manual, and each fuel against petrol. */
  valuationFactors(fields: VehicleFields): ValuationFactorsData {
    const params = vehicleParams(this.source(fields, 'valuation-factors'), this.maxYear)
    return JSON.parse(this.valuationFactorsJson(params)) as ValuationFactorsData
  }

  /** Mean price per voivodeship against the national mean. */
  regional(fields: VehicleFields): RegionalData {
    const params = vehicleParams(this.source(fields, 'regional'), this.maxYear)
    return JSON.parse(this.regionalJson(params)) as RegionalData
  }

  /**
   * The medians of each production year with enough listings, and the annual change they make.
   *
   * @example snapshot.depreciation({ make: 'VW', model: 'Golf', fuel_type: 'diesel' })
   */
  depreciation(fields: DepreciationFields): DepreciationData {
    const params = depreciationParams(this.source(fields, 'depreciation'))
    return JSON.parse(this.depreciationJson(params)) as DepreciationData
  }

  /** Every make with listings, most listed first. */
  catalogMakes(): CatalogMakesData {
    return JSON.parse(this.catalogMakesJson()) as CatalogMakesData
  }

  /**
   * The versions, generations and body types the listings of a make, model and year give, with their listings.
   *
   * @example snapshot.catalogVersions({ make: 'VW', model: 'Golf', year: 2017 }).versions[0]
   */
  catalogVersions(fields: VehicleFields): CatalogVersionsData {
    return JSON.parse(
      this.catalogVersionsJson(vehicleParams(fieldSource(fields, ['make', 'model', 'year']), this.maxYear)),
    ) as CatalogVersionsData
  }

  /** Every model of a make (resolved as a market call resolves it) with its listings, years with figures and families. */
  catalogModels(fields: { readonly make: string }): CatalogModelsData {
    return JSON.parse(this.catalogModelsJson(name(fieldSource(fields, ['make']), 'make'))) as CatalogModelsData
  }

  private source(fields: unknown, operation: Operation): ParamSource {
    return fieldSource(fields, OPERATION_SPECS[operation].parameters)
  }

  // The same answers as JSON text, as the HTTP API sends them: the stored members of the
  // answer behind what the request decides (its names, year, match and filters). They take
  // parameters the guards of params.ts have returned (marketRequest gives them).

  valuationJson(params: ValuationParams): string {
    const resolution = this.names.resolve(params.make, params.model)
    let narrowing = narrow(resolution, params)
    const key = narrowing.key
    // Read before the stored answer: a columns read reuses the buffer the answer's text lies in.
    const columns = scans(narrowing) ? this.keyColumns(key, params.year) : undefined
    if (narrowing.phrases.length > 0 && !hasDetail(columns)) narrowing = withoutVersions(narrowing)
    this.find(resolution, key, params.year, 'valuation')
    if (scans(narrowing)) {
      const total = this.stored.sampleSize(0)
      if (total < MIN_LISTINGS) throw insufficient(describedAs(resolution, key), params.year, total)
    }
    const members = scans(narrowing)
      ? this.narrowedValuation(resolution, narrowing, columns, params)
      : this.storedValuation(resolution, narrowing, params)
    const filters =
      `{"fuel_type":${valueJson(narrowing.fuel, FUEL_TYPES)},"gearbox":${valueJson(narrowing.gearbox, GEARBOXES)},` +
      `"body_type":${valueJson(narrowing.body, BODY_TYPES)},"version":${params.version === null ? 'null' : JSON.stringify(params.version)},` +
      `"power_hp":${params.power_hp},"mileage":${params.mileage}}`
    return `${head(params, resolution, narrowing)},"currency":"PLN","filters":${filters},${members}}`
  }

  /**
   * A valuation's members from what the build stored: the key's figures for a fuel and a
   * gearbox, or with a mileage window, the key's listings in it and the filter's stored fit.
   */
  private storedValuation(resolution: Resolution, narrowing: Narrowing, params: ValuationParams): string {
    const { fuel, gearbox, key } = narrowing
    let members = ''
    let sampleSize: number
    if (params.mileage !== null) {
      const columns = this.keyColumns(key, params.year)
      const prices = this.valuationPrices(columns, params.mileage, fuel, gearbox)
      sampleSize = prices.length
      if (sampleSize >= MIN_LISTINGS) {
        // The fit is the filter's over all its mileages: the window narrows the valuation, not the fit (contract 5.2).
        const fit = fitOf(columns!, filterSelector(fuel, gearbox))
        members =
          `${valuationMembers(priceFigures(prices), confidenceOf(prices))},${mileageEffectMember(fit)},` +
          `${adjustedMember(fit, params.mileage)},${askingPriceMember(prices, params.asking_price)}`
      }
    } else {
      // Fuel and gearbox filters were rendered at build time, for every combination with listings.
      const variant = this.stored.find(filterSelector(fuel, gearbox))
      sampleSize = variant < 0 ? 0 : this.stored.sampleSize(variant)
      // The unfiltered variant holds figures whatever its size; too few listings are refused below, before an
      // asking price is placed among them.
      if (variant >= 0 && this.stored.items(variant) > 0 && sampleSize >= MIN_LISTINGS) {
        members = `${this.stored.text(variant)},"adjusted":null,`
        members +=
          params.asking_price === null
            ? '"asking_price":null'
            : askingPriceMember(
                this.valuationPrices(this.keyColumns(key, params.year), null, fuel, gearbox),
                params.asking_price,
              )
      }
    }
    if (members === '' || sampleSize < MIN_LISTINGS) {
      throw this.thinValuation(resolution, narrowing, params, sampleSize)
    }
    return members
  }

  /**
   * A valuation's members computed from the key's listings that a narrowed question keeps
   * (contract 4.1): every figure of it, the mileage fit over them too (5.2).
   */
  private narrowedValuation(
    resolution: Resolution,
    narrowing: Narrowing,
    columns: ListingColumns | undefined,
    params: ValuationParams,
  ): string {
    const window = params.mileage === null ? null : mileageWindow(params.mileage)
    if (columns !== undefined) this.scan.run(columns, narrowing, window, true)
    const sampleSize = columns === undefined ? 0 : this.scan.count
    if (sampleSize < MIN_LISTINGS) {
      const suggestions = narrowing.phrases.length > 0 && columns !== undefined ? commonVersions([columns], 5) : []
      const mileages =
        params.mileage === null
          ? undefined
          : { mileage: params.mileage, before: columns === undefined ? 0 : this.scan.matched }
      throw narrowMiss(
        describedAs(resolution, narrowing.key),
        params.year,
        sampleSize,
        columns?.count ?? 0,
        narrowing,
        suggestions,
        mileages,
      )
    }
    const prices = this.scan.kept()
    const { fitPrices, fitLogs, fitMileages, fitCount, scratch } = this.scan
    const fit = fitMileage(fitPrices, fitLogs, fitMileages, 0, fitCount, scratch)
    return (
      `${valuationMembers(priceFigures(prices), confidenceOf(prices))},${mileageEffectMember(fit)},` +
      `${params.mileage === null ? '"adjusted":null' : adjustedMember(fit, params.mileage)},` +
      askingPriceMember(prices, params.asking_price)
    )
  }

  priceHistoryJson(params: PriceHistoryParams): string {
    const resolution = this.resolvedAnswer(params, 'price-history')
    const variant = this.stored.find(params.months)
    const listings = variant < 0 ? 0 : this.stored.sampleSize(variant)
    if (listings < MIN_LISTINGS)
      throw insufficient(
        resolution,
        params.year,
        listings,
        `were first seen in the last ${params.months === 1 ? 'month' : `${params.months} months`}`,
      )
    return `${head(params, resolution, namesOnly(resolution))},"currency":"PLN","months_requested":${params.months},"trend":[${this.stored.text(variant)}]}`
  }

  liquidityJson(params: VehicleParams): string {
    const resolution = this.resolvedAnswer(params, 'liquidity')
    const sampleSize = this.stored.sampleSize(0)
    if (sampleSize < MIN_LISTINGS) throw insufficient(resolution, params.year, sampleSize, 'have left the market')
    return `${head(params, resolution, namesOnly(resolution))},${this.stored.text(0)},"note":${LIQUIDITY_NOTE_JSON}}`
  }

  valuationFactorsJson(params: VehicleParams): string {
    const resolution = this.resolvedAnswer(params, 'valuation-factors')
    const total = this.stored.sampleSize(0)
    if (total < MIN_LISTINGS) throw insufficient(resolution, params.year, total)
    if (this.stored.items(0) === 0) {
      throw new ApiError(
        'INSUFFICIENT_DATA',
        `No attribute of ${describe(resolution, params.year)} has at least ${MIN_LISTINGS} listings on both sides of a comparison.`,
        { sample_size: total },
      )
    }
    return `${head(params, resolution, namesOnly(resolution))},"currency":"PLN",${this.stored.text(0)}}`
  }

  regionalJson(params: VehicleParams): string {
    const resolution = this.resolvedAnswer(params, 'regional')
    const total = this.stored.sampleSize(0)
    if (total < MIN_LISTINGS) throw insufficient(resolution, params.year, total, 'name their voivodeship')
    return `${head(params, resolution, namesOnly(resolution))},"currency":"PLN",${this.stored.text(0)}}`
  }

  depreciationJson(params: DepreciationParams): string {
    const resolution = this.names.resolve(params.make, params.model)
    let narrowing = narrow(resolution, params)
    const key = narrowing.key
    const described = describedAs(resolution, key)
    // On a question without a year, rule 3 of contract 4.1 looks at every year of the model.
    if (narrowing.phrases.length > 0 && !key.years.some((year) => hasDetail(this.keyColumns(key, year))))
      narrowing = withoutVersions(narrowing)
    if (scans(narrowing) || narrowing.gearbox !== UNKNOWN) {
      const curve = this.narrowedCurve(described, narrowing, key.years)
      return `${head(params, resolution, narrowing)},"currency":"PLN",${curve}}`
    }
    const bytes = this.answers.getBinaryFast(answerKey(key.target, ALL_YEARS, 'depreciation'))
    if (bytes === undefined || !this.stored.reset(bytes))
      throw new Error(`the snapshot's depreciation answer for ${describe(described)} is missing or unreadable`)
    const variant = this.stored.find(narrowing.fuel)
    if (variant < 0 || this.stored.items(variant) === 0)
      throw thinCurve(described, valueOf(narrowing.fuel, FUEL_TYPES), variant < 0 ? 0 : this.stored.sampleSize(variant))
    return `${head(params, resolution, narrowing)},"currency":"PLN",${this.stored.text(variant)}}`
  }

  /**
   * The curve of a narrowed depreciation (contract 5.5): each year's listings that the
   * question keeps, its median where they are MIN_LISTINGS or more, and the annual change.
   */
  private narrowedCurve(described: Described, narrowing: Narrowing, years: readonly number[]): string {
    const points: CurvePoint[] = []
    let listings = 0
    for (const year of years) {
      const columns = this.keyColumns(narrowing.key, year)
      if (columns === undefined) continue
      this.scan.run(columns, narrowing, null, false)
      listings += this.scan.count
      if (this.scan.count >= MIN_LISTINGS)
        points.push({ year, median: percentile(this.scan.kept(), 0.5), sample_size: this.scan.count })
    }
    if (points.length === 0) {
      const suggestions =
        narrowing.phrases.length > 0
          ? commonVersions(
              years.map((y) => this.keyColumns(narrowing.key, y, true)).filter((c) => c !== undefined),
              5,
            )
          : []
      throw narrowMiss(described, undefined, listings, undefined, narrowing, suggestions)
    }
    return curveMembers(points, annualChangePct(points))
  }

  /**
   * What the listings of a make, model and year say of their cars (the catalogue's versions): each version and
   * generation with its listings, most listed first, and each body type; INSUFFICIENT_DATA below MIN_LISTINGS
   * listings, which no market question could be answered from.
   */
  catalogVersionsJson(params: VehicleParams): string {
    const resolution = this.names.resolve(params.make, params.model)
    const columns = this.keyColumns(resolution, params.year)
    this.find(resolution, resolution, params.year, 'valuation')
    const total = this.stored.sampleSize(0)
    if (columns === undefined || total < MIN_LISTINGS) throw insufficient(resolution, params.year, total)
    const { versions, generations } = detailTallies([columns])
    const bodies = new Uint32Array(BODY_TYPES.length)
    const body = columns.body ?? new Uint8Array(0)
    for (let i = 0; i < body.length; i++) if (body[i] !== UNKNOWN) bodies[body[i]!]!++
    const bodyTypes = BODY_TYPES.map((body, code) => ({ body_type: body, listings: bodies[code]! }))
      .filter((b) => b.listings > 0)
      .sort((a, b) => b.listings - a.listings)
    const members = JSON.stringify({
      listings: total,
      versions: versions.map((v) => ({ version: v.text, listings: v.listings })),
      generations: generations.map((g) => ({ generation: g.text, listings: g.listings })),
      body_types: bodyTypes,
    }).slice(1, -1)
    return `${head(params, resolution, namesOnly(resolution))},${members}}`
  }

  catalogMakesJson(): string {
    return `{${this.catalog.makesMembers}}`
  }

  /** `make` as a guard of params.ts returned it. */
  catalogModelsJson(make: string): string {
    const found = this.names.resolveMake(make)
    const matched = `{"makes":[${JSON.stringify(found.make)}],"match_type":"${found.matchType}"}`
    return `{"make":${JSON.stringify(make)},"matched":${matched},${this.catalog.modelsMembers(found.make)}}`
  }

  /** The names of a question that takes nothing more, with `stored` at its operation's answer (find). */
  private resolvedAnswer(params: VehicleParams, operation: Operation): Resolution {
    const resolution = this.names.resolve(params.make, params.model)
    this.find(resolution, resolution, params.year, operation)
    return resolution
  }

  /**
   * Points `stored` at the operation's answer for `key` in `year`; throws INSUFFICIENT_DATA
   * when the key has no listings that year. `stored` reads a buffer lmdb-js lends until the
   * next read, so its text is taken before anything else is read.
   */
  private find(resolution: Resolution, key: KeyTarget, year: number, operation: Operation): void {
    const bytes = this.answers.getBinaryFast(answerKey(key.target, year, operation))
    if (bytes !== undefined && !this.stored.reset(bytes))
      throw new Error(
        `the snapshot's ${operation} answer for ${describe(describedAs(resolution, key), year)} is unreadable`,
      )
    if (bytes === undefined) {
      const years = key.years
      const range = years.length === 0 ? '' : ` (listings exist for ${years[0]}-${years[years.length - 1]})`
      throw new ApiError(
        'INSUFFICIENT_DATA',
        `No listings of ${describe(describedAs(resolution, key))} from ${year}${range}.`,
        { sample_size: 0 },
      )
    }
  }

  /**
   * The INSUFFICIENT_DATA of a valuation answered from what the build stored, with what each
   * of its filters left, read only on the way to this error: the stored counts per filter
   * (`stored` still holds the key's answer unless the mileage window read the columns
   * since), or the key's mileages.
   */
  private thinValuation(
    resolution: Resolution,
    narrowing: Narrowing,
    params: ValuationParams,
    sampleSize: number,
  ): ApiError {
    const { fuel, gearbox, key } = narrowing
    const described = describedAs(resolution, key)
    const filters = { ...params, fuel_type: valueOf(fuel, FUEL_TYPES), gearbox: valueOf(gearbox, GEARBOXES) }
    if (params.mileage !== null) {
      const known = this.knownMileages(key, params.year, fuel, gearbox)
      return mileageMiss(described, filters, params.mileage, sampleSize, known)
    }
    if (fuel === UNKNOWN && gearbox === UNKNOWN) return insufficient(described, params.year, sampleSize)
    const count = (f: number, g: number) => {
      const variant = this.stored.find(filterSelector(f, g))
      return variant < 0 ? 0 : this.stored.sampleSize(variant)
    }
    const counts = { all: count(UNKNOWN, UNKNOWN), fuel: count(fuel, UNKNOWN), gearbox: count(UNKNOWN, gearbox) }
    return filterMiss(described, filters, sampleSize, counts)
  }

  /**
   * The key's columns, copied into an 8-byte aligned buffer the next call reuses (or, with
   * `own`, a buffer of their own); undefined when the key has no listings that year, or
   * fewer than MIN_LISTINGS none of which tells its version or generation.
   */
  private keyColumns(key: KeyTarget, year: number, own = false): ListingColumns | undefined {
    const stored = this.columns.getBinaryFast(statKey(key.target, year))
    if (stored === undefined) return undefined
    // getBinaryFast lends a large reusable buffer whose `length` alone is the value's:
    // copy exactly that many bytes.
    const size = stored.length
    if (own) return viewColumns(new Uint8Array(stored.subarray(0, size)))
    if (this.columnBuffer.byteLength < size) this.columnBuffer = new Uint8Array(grownSize(size))
    this.columnBuffer.set(stored.subarray(0, size))
    return viewColumns(this.columnBuffer)
  }

  /**
   * Prices, ascending, of the valuation's listings: the key's (its `columns`, from keyColumns), of the fuel and gearbox
   * asked for, within ±30% of a mileage when one is given (mileageWindow). The key's columns are ascending by price, so
   * the kept prices come out sorted. The result is a view of a buffer the next call reuses.
   */
  private valuationPrices(
    columns: ListingColumns | undefined,
    mileage: number | null,
    fuel: number,
    gearbox: number,
  ): Float64Array {
    if (columns === undefined) return this.kept.subarray(0, 0)
    if (mileage === null && fuel === UNKNOWN && gearbox === UNKNOWN) return columns.price
    if (this.kept.length < columns.count) this.kept = new Float64Array(grownSize(columns.count))
    // Without a window every mileage is kept, the unknown ones (-1) too.
    const { from, to } = mileage === null ? { from: -1, to: Infinity } : mileageWindow(mileage)
    let n = 0
    for (let i = 0; i < columns.count; i++) {
      const m = columns.mileage[i]!
      if (m < from || m > to) continue
      if (fuel !== UNKNOWN && columns.fuel[i] !== fuel) continue
      if (gearbox !== UNKNOWN && columns.gearbox[i] !== gearbox) continue
      this.kept[n++] = columns.price[i]!
    }
    return this.kept.subarray(0, n)
  }

  /** How many of the key's listings of the fuel and gearbox asked for have a known mileage, and its range. */
  private knownMileages(key: KeyTarget, year: number, fuel: number, gearbox: number): KnownMileages {
    const known = { count: 0, min: Infinity, max: -Infinity }
    const columns = this.keyColumns(key, year)
    if (columns === undefined) return known
    for (let i = 0; i < columns.count; i++) {
      if (columns.mileage[i]! < 0) continue
      if (fuel !== UNKNOWN && columns.fuel[i] !== fuel) continue
      if (gearbox !== UNKNOWN && columns.gearbox[i] !== gearbox) continue
      known.count++
      known.min = Math.min(known.min, columns.mileage[i]!)
      known.max = Math.max(known.max, columns.mileage[i]!)
    }
    return known
  }
}

/** The start of an answer's JSON object: the request's names and year (when it has one) and what they matched. */
function head(
  params: { readonly make: string; readonly model: string; readonly year?: number },
  resolution: Resolution,
  narrowing: Narrowing,
): string {
  const year = params.year === undefined ? '' : `,"year":${params.year}`
  return `{"make":${JSON.stringify(params.make)},"model":${JSON.stringify(params.model)}${year},"matched":${matchedJson(resolution, narrowing)}`
}

/** The names a message gives of the key answering: the resolved make and the key's own name. */
function describedAs(resolution: Resolution, key: KeyTarget): Described {
  return { makes: resolution.makes, target: key.target }
}

/** A filter's code as its canonical value, null for none. */
function valueOf<T extends string>(code: number, values: readonly T[]): T | null {
  return code === UNKNOWN ? null : values[code]!
}

function grownSize(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(bytes))
}
