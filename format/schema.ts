/**
 * The snapshot format: what the build writes and the reader reads. This module (with
 * columns.ts, figures.ts and vocabulary.ts) is the only code that build/ and query/
 * share, and the module that other tools import to embed a snapshot.
 *
 * A snapshot is a folder `snapshots/<build_id>/` holding one LMDB file `snapshot.mdb`
 * with three databases:
 * - `meta`: `manifest` -> Manifest, `names` -> NameIndex
 * - `answers`: [kind, make, name, year, operation] -> the precomputed answer of that
 *   operation, rendered (rendered.ts; money rounded to whole PLN, percentages to one
 *   decimal, as the contract says); a depreciation, which spans the years, under year
 *   ALL_YEARS
 * - `columns`: [kind, make, name, year] -> raw bytes (columns.ts) of the key's listings
 *   and mileage fits, for the figures that depend on a number or a detail of the request:
 *   a mileage window, an asking price, a target mileage, a version, a body type, a power.
 *
 * Beside it, `manifest.json` holds the manifest again with the size and SHA-256 of the
 * folder's other files (PublishedManifest), which a reader verifies before mapping them,
 * and, from a build given a signing key, `manifest.sig`: the Ed25519 signature of
 * manifest.json's bytes (manifest-signature.ts).
 */

export const SCHEMA_VERSION = 5
export const SNAPSHOT_FILE = 'snapshot.mdb'
export const MANIFEST_FILE = 'manifest.json'
export const SIGNATURE_FILE = 'manifest.sig'
/** LMDB's lock file beside the data file: every reader writes to it, so it is no part of the content. */
export const SNAPSHOT_LOCK_FILE = `${SNAPSHOT_FILE}-lock`
/** The link in a snapshots folder naming the snapshot to serve; switched atomically by a build. */
export const CURRENT_LINK = 'current'
/**
 * The name of a published snapshot's folder: its build id (UTC time to the millisecond and a random suffix), so names
 * sort by age.
 */
export const BUILD_ID_PATTERN = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/
export const META_DB = 'meta'
export const ANSWERS_DB = 'answers'
export const COLUMNS_DB = 'columns'
/** The answers database holds rendered answers (rendered.ts) as raw bytes. */
export const ANSWERS_OPTIONS = { name: ANSWERS_DB, encoding: 'binary' } as const

/** The fewest listings behind any figure; fewer is INSUFFICIENT_DATA (contract 2). */
export const MIN_LISTINGS = 10
/**
 * The guards of the mileage fit (contract 5.2): its mileages must spread over at least this
 * interquartile range, in km, for a slope to mean anything, and the effect it gives must
 * lie within ±MAX_MILEAGE_EFFECT_PCT per 10,000 km (no used-car market loses or gains a
 * fifth of its price over 10,000 km: such a slope is noise, new cars or odd odometers).
 */
export const MIN_MILEAGE_IQR_KM = 10_000
export const MAX_MILEAGE_EFFECT_PCT = 20
/** Months of history kept per key, ending with the as-of month (contract 2.2). */
export const HISTORY_MONTHS = 24
/** Days added to the observed span for the delay before a listing is first detected (contract 2.3). */
export const DETECTION_DELAY_DAYS = 13

export interface BuildCounts {
  readonly rows_read: number
  readonly rows_rejected: number
  readonly duplicates_dropped: number
  /** Used listings after de-duplication: the market every figure describes. */
  readonly listings_kept: number
  /** New cars (contract 1.2), set apart from every figure. */
  readonly new_listings: number
  readonly keys_written: number
  readonly makes: number
  readonly models: number
  readonly families: number
  /** Body variants with keys of their own (contract 3.1). */
  readonly variants: number
}

export interface Manifest {
  readonly schema_version: number
  readonly build_id: string
  /** YYYY-MM-DD: the day the figures describe. */
  readonly as_of: string
  /** Where the export came from (a path or a URL without credentials or query string). */
  readonly source: string
  readonly created_at: string
  /** Version of the code that built it. */
  readonly code_version: string
  readonly counts: BuildCounts
}

/** A file of a snapshot folder as the build left it. */
export interface FileDigest {
  readonly bytes: number
  /** Lower-case hex. */
  readonly sha256: string
}

/**
 * `manifest.json`: the manifest, and a digest of every other file of the folder (the
 * lock file aside), taken once the build had written and synced them. The digests
 * cannot be in the LMDB file they describe, so this file is where they are kept.
 */
export interface PublishedManifest extends Manifest {
  /** By file name. */
  readonly files: Readonly<Record<string, FileDigest>>
}

/** What the runtime needs to resolve the names of a request (contract section 4). */
export interface NameIndex {
  /** The makes with listings. */
  readonly makes: readonly MakeNames[]
  /**
   * The alias table's makes without a listing: a name the table knows is never corrected
   * into another (contract 4, step 5), so a request for one is told the data has none.
   */
  readonly unlisted_makes: readonly UnlistedMake[]
  /** The words of a model name that narrow a filter rather than a version (contract 4.1, rule 1). */
  readonly detail_words: DetailWordIndex
}
/** Each filter's words, as the table writes them, with the code of the value they name (vocabulary.ts). */
export interface DetailWordIndex {
  readonly fuel_type: readonly (readonly [string, number])[]
  readonly gearbox: readonly (readonly [string, number])[]
  readonly body_type: readonly (readonly [string, number])[]
  /** Body words that name no body type (`Sportback`). */
  readonly body_variants: readonly string[]
}
export interface UnlistedMake {
  readonly name: string
  /** As the table writes them. */
  readonly aliases: readonly string[]
}
export interface MakeNames {
  readonly name: string
  /** Aliases of the make, as the table writes them (the look-up ignores case and compares normalized forms). */
  readonly aliases: readonly string[]
  /** The models with listings. */
  readonly models: readonly ModelNames[]
  /** [alias as written, canonical model] pairs of every model the table knows, listed or not. */
  readonly model_aliases: readonly (readonly [string, string])[]
  /**
   * [alias as written, canonical model, the detail it means] of every engine or generation
   * that names a model of the table (contract 4.1: `320d`, `W212`), listed or not.
   */
  readonly detail_aliases: readonly (readonly [string, string, string])[]
  /** Families with listings: the table's, and the pools' (below) of two or more models. */
  readonly families: readonly FamilyNames[]
  /** Model names that stand for several models (contract 3.1), with listings. */
  readonly pools: readonly PoolNames[]
  /** The table's models and families of the make without a listing. */
  readonly unlisted: readonly string[]
}
/**
 * A model name that stands for several models of its make (contract 3.1): a base model and
 * its body variants (`A4` for `A4`, `A4 Avant`, `A4 Limousine`, `A4 Cabrio`), or a model
 * under each of its names (`Grandland` and `Grandland X`). Answered from the family of its
 * name when two or more of its models have listings, else from its one model with listings.
 */
export interface PoolNames {
  /** The base name, which is also the name of its family. */
  readonly name: string
  /** The model names that stand for the whole pool: the base's and, for a rename, each name. */
  readonly names: readonly string[]
  /** Its models with listings. */
  readonly models: readonly string[]
  readonly years: readonly number[]
  readonly variants: readonly VariantNames[]
}
/**
 * A body variant of a pool named by a body word with a body type (`A4 Avant`: Kombi). It
 * stands for its own listings and its base model's listings of that body type, so it
 * means the same car whichever way an export names it.
 */
export interface VariantNames {
  readonly name: string
  /** The body type's code (vocabulary.ts). */
  readonly body: number
  /** Its models with listings: itself, and the base when the base has listings of that body type. */
  readonly models: readonly string[]
  readonly years: readonly number[]
  /** True when the base's listings are pooled in: then it has keys of its own (kind `variant`). */
  readonly pooled: boolean
}
export interface ModelNames {
  readonly name: string
  /** Production years with at least one listing, ascending. */
  readonly years: readonly number[]
  /** Its listings, all years. */
  readonly listings: number
  /** Production years with at least MIN_LISTINGS listings, ascending: the years it has figures for. */
  readonly figure_years: readonly number[]
}
export interface FamilyNames {
  readonly name: string
  readonly models: readonly string[]
  readonly years: readonly number[]
}

/**
 * A model, a model family, or a body variant pooling its base's listings of its body type,
 * of a make: what a statistic is computed for.
 */
export interface Target {
  readonly kind: 'model' | 'family' | 'variant'
  readonly make: string
  readonly name: string
}

/** The market operations, by the last part of their paths. */
export const OPERATIONS = [
  'valuation',
  'price-history',
  'liquidity',
  'valuation-factors',
  'regional',
  'depreciation',
] as const
export type Operation = (typeof OPERATIONS)[number]
/** The operations answered per production year: each key holds one answer of each. */
export const KEY_OPERATIONS = ['valuation', 'price-history', 'liquidity', 'valuation-factors', 'regional'] as const
export type KeyOperation = (typeof KEY_OPERATIONS)[number]
/** The year under which an answer spanning every production year (a depreciation) is stored. */
export const ALL_YEARS = 0

export type StatKey = [kind: Target['kind'], make: string, name: string, year: number]
export type AnswerKey = [...StatKey, operation: Operation]

export function statKey(target: Target, year: number): StatKey {
  return [target.kind, target.make, target.name, year]
}
export function answerKey(target: Target, year: number, operation: Operation): AnswerKey {
  return [target.kind, target.make, target.name, year, operation]
}

export interface Quartiles {
  readonly average: number
  readonly median: number
  readonly p25: number
  readonly p75: number
}
export interface PriceFigures extends Quartiles {
  readonly sample_size: number
}

/** The distribution-free interval of a median (contract 5.1), prices rounded. */
export interface Confidence {
  readonly median_low: number
  readonly median_high: number
  readonly level_pct: number
}

/**
 * What mileage does to a price (contract 5.2 and 5.3; computed in mileage-fit.ts): the least-squares slope of
 * ln(price) on mileage_km, and the listings at the middle of the order of their prices moved to any one mileage.
 */
export interface MileageFit {
  /** b, per km. */
  readonly slope: number
  /** Listings in the fit. */
  readonly size: number
  /** The price and mileage of the listings at the middle of the moved order (the same one when size is odd). */
  readonly lowPrice: number
  readonly lowMileage: number
  readonly highPrice: number
  readonly highMileage: number
}

/** A valuation's figures: the spec's, the median's interval and what mileage does to the price. */
export interface ValuationFigures extends PriceFigures {
  readonly confidence: Confidence
  /** Null where contract 5.2 says so. */
  readonly fit: MileageFit | null
}

/** The listings of a key with one fuel type, one gearbox, or both. */
export interface FilteredFigures {
  /** A fuel code, or UNKNOWN for any fuel. */
  readonly fuel: number
  /** A gearbox code, or UNKNOWN for any gearbox. */
  readonly gearbox: number
  readonly sample_size: number
  /** Null below MIN_LISTINGS. */
  readonly figures: ValuationFigures | null
}

/** Valuation figures for the key and for each fuel/gearbox filter. */
export interface ValuationRecord {
  readonly all: ValuationFigures
  /** Every filter that keeps at least one listing. */
  readonly filtered: readonly FilteredFigures[]
}

/** One production year of a depreciation curve: its median unrounded, as the slope is fitted on. */
export interface CurvePoint {
  readonly year: number
  readonly median: number
  readonly sample_size: number
}
/** A model's or family's curves (contract 5.5): over every fuel, and for each fuel with listings. */
export interface DepreciationRecord {
  readonly curves: readonly {
    /** A fuel code, or UNKNOWN for any fuel. */
    readonly fuel: number
    /** Listings of that fuel in all years. */
    readonly listings: number
    /** The years with at least MIN_LISTINGS listings, ascending. */
    readonly points: readonly CurvePoint[]
    /** 100 (exp(s) - 1), one decimal, s the slope of ln(median) on year; null below three points. */
    readonly annual_change_pct: number | null
  }[]
}

/** Monthly points of the HISTORY_MONTHS months ending with the as-of month, oldest first. */
export interface PriceHistoryRecord {
  /** First month of the series, YYYY-MM. */
  readonly first_month: string
  /** Rounded mean price per month, 0 for a month without listings. */
  readonly avg_price: readonly number[]
  readonly sample_size: readonly number[]
}

export interface LiquidityRecord {
  readonly estimated_days_on_market: number
  readonly observed_listing_span: number
  readonly active_listings: number
  /** Closed listings behind the span. */
  readonly sample_size: number
}

export interface FactorSide {
  readonly label: string
  readonly avg_price: number
  readonly sample_size: number
}
export interface FactorEntry {
  readonly dimension: 'import_status' | 'gearbox' | 'fuel_type'
  readonly baseline: FactorSide
  readonly comparison: FactorSide
  readonly price_diff_percent: number
}
export interface ValuationFactorsRecord {
  readonly total_sample_size: number
  readonly factors: readonly FactorEntry[]
}

export interface RegionEntry {
  readonly region: string
  readonly avg_price: number
  readonly sample_size: number
  readonly vs_national_pct: number
}
export interface RegionalRecord {
  readonly national_average: number
  readonly total_sample_size: number
  readonly regions: readonly RegionEntry[]
}

export interface AnswerRecords {
  readonly valuation: ValuationRecord
  readonly 'price-history': PriceHistoryRecord
  readonly liquidity: LiquidityRecord
  readonly 'valuation-factors': ValuationFactorsRecord
  readonly regional: RegionalRecord
  readonly depreciation: DepreciationRecord
}
