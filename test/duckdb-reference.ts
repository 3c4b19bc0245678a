import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import type { Test } from 'tap'

/**
 * The figures of data contract section 5 computed by DuckDB in SQL over an export file,
 * independently of the code under test. The export must use canonical names and values
 * (makes, models, fuel types, gearboxes, body types) and unique listing ids, so the SQL needs
 * no name mapping and no de-duplication; its versions and generations must be ASCII, so that
 * normalize() (contract 4) is lower case and runs of other characters than [a-z0-9] made one
 * space. DuckDB's round() of a DOUBLE is half away from zero, as the contract rounds, and its
 * default (empty) collation orders text by the bytes of UTF-8, which is code-point order.
 */

/** What narrows a key's listings (contract 2.1 and 4.1); a filter left out narrows nothing. */
export interface Filters {
  readonly fuel_type?: string
  readonly gearbox?: string
  /** A canonical body type (contract 3.4). */
  readonly body_type?: string
  /** Keeps 0.9p <= power <= 1.1p. */
  readonly power_hp?: number
  /** Normalized phrases (asciiPhrases), each to be found as whole words in the version or the generation. */
  readonly phrases?: readonly string[]
}

/** The listings a valuation asks about: a key (a family is several models) and its filters. */
export interface Ask extends Filters {
  readonly make: string
  readonly models: readonly string[]
  readonly year: number
  readonly mileage?: number
}

/**
 * The phrases of a version parameter (contract 4.1): its words split at white space, each
 * normalized; words that normalize to nothing are no phrase, a repeated phrase counts once.
 * ASCII only, as the SQL's normalization is.
 */
export function asciiPhrases(version: string): string[] {
  if (/[^\x20-\x7e\s]/.test(version)) throw new Error(`not ASCII: ${JSON.stringify(version)}`)
  const phrases = version
    .split(/\s+/)
    .map((word) =>
      word
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, ' ')
        .trim(),
    )
    .filter((phrase) => phrase !== '')
  return [...new Set(phrases)]
}

/** The body types of contract 3.4, as the export's canonical spelling. */
const BODY_TYPES = ['Auta małe', 'Auta miejskie', 'Coupe', 'Kabriolet', 'Kombi', 'Kompakt', 'Minivan', 'Sedan', 'SUV']

export interface Confidence {
  readonly median_low: number
  readonly median_high: number
  readonly level_pct: number
}
export interface MileageEffect {
  readonly pct_per_10000_km: number
  readonly sample_size: number
}
export interface Adjusted {
  readonly mileage: number
  readonly median: number
  readonly sample_size: number
}
export interface AskingPrice {
  readonly price: number
  readonly percentile: number
  readonly verdict: 'below_market' | 'fair' | 'above_market'
}
export interface Depreciation {
  readonly curve: { year: number; median: number; sample_size: number }[]
  readonly annual_change_pct: number | null
}
export interface CatalogueModel {
  readonly model: string
  readonly listings: number
  readonly years: number[]
}

const text = (s: string) => `'${s.replace(/'/g, "''")}'`
const integer = (x: number) => {
  if (!Number.isSafeInteger(x)) throw new Error(`not an integer: ${x}`)
  return String(x)
}

/** The terms of the filters; an unknown value never equals one asked for, so its listing drops out. */
function filterTerms(filters: Filters): string[] {
  const terms: string[] = []
  if (filters.fuel_type !== undefined) terms.push(`fuel_type = ${text(filters.fuel_type)}`)
  if (filters.gearbox !== undefined) terms.push(`gearbox = ${text(filters.gearbox)}`)
  if (filters.body_type !== undefined) terms.push(`body_type = ${text(filters.body_type)}`)
  // 0.9p <= power <= 1.1p, in integers as the mileage window is.
  if (filters.power_hp !== undefined)
    terms.push(`10 * power_hp BETWEEN 9 * ${integer(filters.power_hp)} AND 11 * ${integer(filters.power_hp)}`)
  for (const phrase of filters.phrases ?? []) {
    if (!/^[a-z0-9]+( [a-z0-9]+)*$/.test(phrase)) throw new Error(`not a normalized phrase: ${JSON.stringify(phrase)}`)
    // Padded with spaces, a phrase inside a text is found only as whole words; each phrase may be in either text.
    const padded = text(` ${phrase} `)
    terms.push(
      `(contains(' ' || version_norm || ' ', ${padded}) OR contains(' ' || generation_norm || ' ', ${padded}))`,
    )
  }
  return terms
}

/** The make and its model(s), and the year when one is given. */
function keyTerms(make: string, models: readonly string[], year?: number): string[] {
  const terms = [`make = ${text(make)}`, `model IN (${models.map(text).join(', ')})`]
  if (year !== undefined) terms.push(`year = ${integer(year)}`)
  return terms
}

/** The WHERE clause of a key and the filters that narrow it; the mileage window only when `window`. */
function where(ask: Ask, window: boolean): string {
  const terms = [...keyTerms(ask.make, ask.models, ask.year), ...filterTerms(ask)]
  // 0.7m <= km <= 1.3m, in integers so that a listing on the edge is kept whatever the float error.
  if (window && ask.mileage !== undefined)
    terms.push(`10 * mileage_km BETWEEN 7 * ${integer(ask.mileage)} AND 13 * ${integer(ask.mileage)}`)
  return terms.join(' AND ')
}

/** The SQL normalize() of an ASCII text (contract 4): NULL stays NULL. */
const normalized = (column: string) => `trim(regexp_replace(lower(${column}), '[^a-z0-9]+', ' ', 'g'))`

export class DuckReference {
  private constructor(private readonly connection: DuckDBConnection) {}

  /** DuckDB over the CSV export at `path`, closed when the test ends. */
  static async open(t: Test, path: string): Promise<DuckReference> {
    const { reference, close } = await DuckReference.load(path)
    t.teardown(close)
    return reference
  }

  /**
   * DuckDB over the CSV export at `path`, and how to close it: for a test that reads many exports in turn. A body type
   * that is not canonical and a power outside 10-2,000 are unknown (NULL), as the build sets them aside (contract 1.1).
   */
  static async load(path: string): Promise<{ reference: DuckReference; close: () => void }> {
    const instance = await DuckDBInstance.create(':memory:')
    const connection = await instance.connect()
    const close = () => {
      connection.closeSync()
      instance.closeSync()
    }
    try {
      await connection.run(`
        CREATE TABLE listings AS
        SELECT *, ${normalized('version')} AS version_norm, ${normalized('generation')} AS generation_norm
        FROM (
          SELECT make, model, CAST(year AS INTEGER) AS year, CAST(price AS DOUBLE) AS price,
                 CAST(NULLIF(mileage_km, '') AS BIGINT) AS mileage_km,
                 NULLIF(fuel_type, '') AS fuel_type, NULLIF(gearbox, '') AS gearbox,
                 CASE WHEN body_type IN (${BODY_TYPES.map(text).join(', ')}) THEN body_type END AS body_type,
                 CASE WHEN CAST(NULLIF(power_hp, '') AS INTEGER) BETWEEN 10 AND 2000
                      THEN CAST(power_hp AS INTEGER) END AS power_hp,
                 NULLIF(trim(version), '') AS version, NULLIF(trim(generation), '') AS generation
          FROM read_csv(${text(path)}, header = true, all_varchar = true))`)
    } catch (error) {
      close()
      throw error
    }
    return { reference: new DuckReference(connection), close }
  }

  private async all(sql: string): Promise<Record<string, unknown>[]> {
    return (await this.connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[]
  }

  private async one(sql: string): Promise<Record<string, unknown>> {
    const [row] = await this.all(sql)
    if (row === undefined) throw new Error(`no row from ${sql}`)
    return row
  }

  /** Listings behind the valuation: after its filters and the mileage window. */
  async sampleSize(ask: Ask): Promise<number> {
    return (await this.one(`SELECT count(*)::INTEGER AS n FROM listings WHERE ${where(ask, true)}`)).n as number
  }

  /** 2.1: average, median, p25 and p75 of the valuation's listings, rounded to whole PLN. */
  async quartiles(ask: Ask): Promise<{ average: number; median: number; p25: number; p75: number }> {
    return (await this.one(`
      SELECT round(avg(price)) AS average, round(quantile_cont(price, 0.5)) AS median,
             round(quantile_cont(price, 0.25)) AS p25, round(quantile_cont(price, 0.75)) AS p75
      FROM listings WHERE ${where(ask, true)}`)) as { average: number; median: number; p25: number; p75: number }
  }

  /**
   * Listings of the make and model(s), of the year when one is given, that have a version or a generation: none, and
   * version words cannot be told (contract 4.1, rule 3).
   */
  async withDetail(make: string, models: readonly string[], year?: number): Promise<number> {
    const terms = [...keyTerms(make, models, year), '(version IS NOT NULL OR generation IS NOT NULL)']
    return (await this.one(`SELECT count(*)::INTEGER AS n FROM listings WHERE ${terms.join(' AND ')}`)).n as number
  }

  /**
   * 5.1: B(j) summed in SQL from lgamma (checked against exact binomial sums for every n up to 3,000: the same k
   * and the same rounded level), k the largest integer >= 1 with B(k - 1) <= 0.025, the interval [x(k), x(n - k + 1)].
   */
  async confidence(ask: Ask): Promise<Confidence & { k: number; n: number }> {
    const row = await this.one(`
      WITH v AS (SELECT price, row_number() OVER (ORDER BY price) AS r FROM listings WHERE ${where(ask, true)}),
      size AS (SELECT count(*) AS n FROM v),
      cdf AS (
        SELECT j, sum(exp(lgamma(n + 1) - lgamma(j + 1) - lgamma(n - j + 1) - n * ln(2))) OVER (ORDER BY j) AS b
        FROM size, range(0, n + 1) AS g(j)),
      rank AS (SELECT greatest(coalesce(max(j) FILTER (WHERE b <= 0.025), -1) + 1, 1) AS k FROM cdf)
      SELECT size.n::INTEGER AS n, rank.k::INTEGER AS k,
             round((SELECT price FROM v WHERE r = rank.k)) AS median_low,
             round((SELECT price FROM v WHERE r = size.n - rank.k + 1)) AS median_high,
             round(100 * (1 - 2 * (SELECT b FROM cdf WHERE j = rank.k - 1)), 1) AS level_pct
      FROM size, rank`)
    return row as unknown as Confidence & { k: number; n: number }
  }

  /** 5.2: slope b of ln(price) on mileage over the key's listings with known mileage, filters but no window. */
  private fit(ask: Ask): string {
    return `SELECT price, mileage_km FROM listings WHERE ${where(ask, false)} AND mileage_km IS NOT NULL`
  }

  /**
   * Null with fewer than 10 listings in the fit, an interquartile range of their mileages under 10,000 km, or an
   * unrounded effect that is not finite or lies outside [-20, +20] % per 10,000 km.
   */
  async mileageEffect(ask: Ask): Promise<MileageEffect | null> {
    const row = await this.one(`
      SELECT count(*)::INTEGER AS sample_size, min(mileage_km) < max(mileage_km) AS varied,
             quantile_cont(mileage_km, 0.75) - quantile_cont(mileage_km, 0.25) AS iqr,
             100 * (exp(10000 * regr_slope(ln(price), mileage_km)) - 1) AS pct,
             round(pct, 1) AS pct_per_10000_km
      FROM (${this.fit(ask)})`)
    // regr_slope gives NaN, not NULL, when every x is equal.
    if ((row.sample_size as number) < 10 || row.varied !== true || (row.iqr as number) < 10_000) return null
    const pct = row.pct as number
    if (!Number.isFinite(pct) || Math.abs(pct) > 20) return null
    // + 0: an answer is JSON, which has no -0 (a slope that rounds to -0.0 reads 0).
    return { pct_per_10000_km: (row.pct_per_10000_km as number) + 0, sample_size: row.sample_size as number }
  }

  /** 5.3: the median of every fit listing moved to `ask.mileage` along the 5.2 slope. */
  async adjusted(ask: Ask): Promise<Adjusted | null> {
    if (ask.mileage === undefined || (await this.mileageEffect(ask)) === null) return null
    const row = await this.one(`
      WITH fit AS (${this.fit(ask)}), slope AS (SELECT regr_slope(ln(price), mileage_km) AS b FROM fit)
      SELECT count(*)::INTEGER AS sample_size,
             round(quantile_cont(price * exp(b * (${integer(ask.mileage)} - mileage_km)), 0.5)) AS median
      FROM fit, slope`)
    return { mileage: ask.mileage, median: row.median as number, sample_size: row.sample_size as number }
  }

  /** 5.4: where `price` falls among the valuation's listings, against the unrounded quartiles. */
  async askingPrice(ask: Ask, price: number): Promise<AskingPrice> {
    const a = integer(price)
    return (await this.one(`
      SELECT ${a} AS price,
             round(100 * (count(*) FILTER (WHERE price < ${a}) + 0.5 * count(*) FILTER (WHERE price = ${a})) / count(*), 1)
               AS percentile,
             CASE WHEN ${a} < quantile_cont(price, 0.25) THEN 'below_market'
                  WHEN ${a} > quantile_cont(price, 0.75) THEN 'above_market'
                  ELSE 'fair' END AS verdict
      FROM listings WHERE ${where(ask, true)}`)) as unknown as AskingPrice
  }

  /** The whole-PLN price the most of the valuation's listings share (the lowest such), for asking a tied price. */
  async sharedPrice(ask: Ask): Promise<{ price: number; listings: number }> {
    return (await this.one(`
      SELECT price::INTEGER AS price, count(*)::INTEGER AS listings
      FROM listings WHERE ${where(ask, true)} AND price = floor(price)
      GROUP BY price ORDER BY listings DESC, price LIMIT 1`)) as { price: number; listings: number }
  }

  /**
   * 5.5: the yearly medians of the model(s) for years with at least 10 listings, and the log-linear trend; `filters`
   * narrow every year's listings first (a text is a fuel_type).
   */
  async depreciation(make: string, models: readonly string[], filters: string | Filters = {}): Promise<Depreciation> {
    const narrowing = typeof filters === 'string' ? { fuel_type: filters } : filters
    const terms = [...keyTerms(make, models), ...filterTerms(narrowing)]
    const points = `
      SELECT year, quantile_cont(price, 0.5) AS median, count(*)::INTEGER AS sample_size
      FROM listings WHERE ${terms.join(' AND ')} GROUP BY year HAVING count(*) >= 10`
    const curve = (await this.all(
      `SELECT year, round(median) AS median, sample_size FROM (${points}) ORDER BY year`,
    )) as {
      year: number
      median: number
      sample_size: number
    }[]
    const trend = await this.one(`
      SELECT CASE WHEN count(*) >= 3 THEN round(100 * (exp(regr_slope(ln(median), year)) - 1), 1) END AS pct
      FROM (${points})`)
    return { curve, annual_change_pct: trend.pct === null ? null : (trend.pct as number) + 0 }
  }

  /** 5.6: every make with its listings, most listings first, then by name in code-point order. */
  async makes(): Promise<{ make: string; listings: number }[]> {
    return (await this.all(
      `SELECT make, count(*)::INTEGER AS listings FROM listings GROUP BY make ORDER BY listings DESC, make`,
    )) as { make: string; listings: number }[]
  }

  /** 5.6: the models of a canonical make with their listings and the years that have at least 10. */
  async models(make: string): Promise<CatalogueModel[]> {
    const rows = await this.all(`
      WITH per_year AS (
        SELECT model, year, count(*) AS n FROM listings WHERE make = ${text(make)} GROUP BY model, year)
      SELECT model, sum(n)::INTEGER AS listings,
             coalesce(list(year ORDER BY year) FILTER (WHERE n >= 10), []) AS years
      FROM per_year GROUP BY model ORDER BY listings DESC, model`)
    return rows.map((r) => ({ model: r.model as string, listings: r.listings as number, years: r.years as number[] }))
  }
}
