import { createWriteStream } from 'node:fs'
import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { CURATED_ALIASES, loadAliasTable } from '../build/alias-table.js'
import { dayNumber, isoDate, yearOfDay } from '../format/calendar.js'
import { COLUMNS } from '../format/export-columns.js'
import { GEARBOXES } from '../format/vocabulary.js'
import { CATALOGUE } from './catalogue.js'
import { Dirt, INVALID_KINDS, type InvalidKind } from './dirt.js'
import { ModelDraw, ageWeight } from './market-model.js'
import { Random } from './random.js'

export interface GenerateOptions {
  /** A file path, or `-` for standard output. */
  readonly out: string
  readonly listings?: number
  readonly seed?: string
  /** YYYY-MM-DD: the export day; listings are first seen over the 24 months before it. SAMPLE_AS_OF by default. */
  readonly asOf?: string
  readonly format?: 'csv' | 'ndjson'
  readonly gzip?: boolean
  readonly onProgress?: (done: number, total: number) => void
}

export interface GenerateSummary {
  readonly out: string
  readonly as_of: string
  readonly listings: number
  readonly rows: number
  readonly duplicate_rows: number
  readonly invalid_rows: number
  readonly eur_rows: number
}

export const DEFAULT_LISTINGS = 1_400_000
export const DEFAULT_SEED = 'carmarket'
/**
 * The export day of the sample unless one is asked for: a fixed day, not today's, so that
 * the same seed gives the same export, and the same answers, on any day (the documented
 * examples are the sample's real answers, and a test holds them to it).
 */
export const SAMPLE_AS_OF = '2026-09-30'
/** The rate the sample's few EUR-priced rows are written with; build them with `--fx EUR=4.30`. */
export const SAMPLE_EUR_RATE = 4.3

/** The contract's columns, and a free-text title as real exports carry (the build ignores it). */
const HEADER = [...COLUMNS, 'title'] as const
type Row = Record<(typeof HEADER)[number], string | number>

const SHARE_DUPLICATED = 0.02
const SHARE_INVALID = 0.005
const SHARE_EUR = 0.004
const SHARE_ACTIVE = 1 / 3
const HISTORY_DAYS = 730

/**
 * Writes a deterministic sample listings export in the data contract's format: the
 * same options give the same bytes. See market-model.ts for how figures are drawn and
 * dirt.ts for the untidiness it adds.
 */
export async function generateExport(options: GenerateOptions): Promise<GenerateSummary> {
  const total = options.listings ?? DEFAULT_LISTINGS
  const asOfText = options.asOf ?? SAMPLE_AS_OF
  const asOf = /^\d{4}-\d{2}-\d{2}$/.test(asOfText) ? dayNumber(asOfText) : undefined
  if (asOf === undefined) throw new RangeError(`as-of must be a date YYYY-MM-DD, not ${JSON.stringify(asOfText)}`)
  const random = new Random(options.seed ?? DEFAULT_SEED)
  const dirt = new Dirt(random, loadAliasTable(CURATED_ALIASES))
  const format = options.format ?? 'csv'
  const { draws, slots } = plan(random, total, yearOfDay(asOf))

  const file = options.out === '-' ? process.stdout : createWriteStream(options.out)
  const gzip = (options.gzip ?? true) ? createGzip({ level: 5 }) : undefined
  if (gzip !== undefined) gzip.pipe(file)
  const sink: Writable = gzip ?? file
  const writer = new BufferedWriter(sink)
  const encode = format === 'csv' ? csvLine : (row: Row) => `${JSON.stringify(ndjsonValues(row))}\n`
  if (format === 'csv') await writer.write(`${HEADER.join(',')}\n`)

  let rows = 0
  let duplicates = 0
  let invalid = 0
  let eur = 0
  for (let i = 0; i < slots.length; i++) {
    const { draw, year } = draws[slots[i]!]!
    const age = Math.max(0, yearOfDay(asOf) - year)
    const active = random.chance(SHARE_ACTIVE)
    const firstSeen = active
      ? asOf - Math.min(HISTORY_DAYS, Math.round(random.logNormal(45, 1)))
      : asOf - 1 - random.int(HISTORY_DAYS)
    const lastSeen = active ? asOf : Math.min(asOf - 1, firstSeen + Math.round(random.logNormal(30, 0.9)))
    const fuel = draw.fuel(random)
    const automatic = random.chance(draw.model.automatic)
    const imported = draw.imported(random, age)
    const region = draw.region(random)
    const mileage = draw.mileage(random, age)
    const price = draw.price(random, {
      age,
      fuel,
      automatic,
      imported,
      region,
      mileage,
      monthsAgo: (asOf - firstSeen) / 30.4,
    })
    const row: Row = {
      listing_id: `OTM${60_000_000 + i}`,
      make: dirt.make(draw.make.name),
      model: dirt.model(draw.make.name, draw.model.name),
      year,
      price,
      currency: '',
      mileage_km: random.chance(0.03) ? '' : mileage,
      fuel_type: random.chance(0.01) ? '' : dirt.fuel(fuel),
      gearbox: random.chance(0.02) ? '' : dirt.gearbox(GEARBOXES[automatic ? 1 : 0]),
      imported: random.chance(0.1) ? '' : dirt.boolean(imported),
      voivodeship: random.chance(0.02) ? '' : dirt.voivodeship(region),
      first_seen: dirt.date(isoDate(firstSeen)),
      last_seen: dirt.date(isoDate(lastSeen)),
      active: dirt.boolean(active),
      title: title(random, draw.make.name, draw.model.name, fuel),
    }
    if (random.chance(SHARE_EUR)) {
      row.price = Math.round(price / SAMPLE_EUR_RATE / 10) * 10
      row.currency = 'EUR'
      eur++
    }
    // A listing scraped twice: an earlier sighting, which the build must merge away.
    // Only a listing scraped once is spoiled, so every duplicate is one to merge.
    const scrapedTwice = random.chance(SHARE_DUPLICATED) && lastSeen > firstSeen
    if (!scrapedTwice && random.chance(SHARE_INVALID)) {
      spoil(row, random.pick(INVALID_KINDS))
      invalid++
    }
    const earlier = scrapedTwice
      ? encode({
          ...row,
          last_seen: isoDate(firstSeen + random.int(lastSeen - firstSeen)),
          active: 'true',
          price: typeof row.price === 'number' ? Math.round(row.price * 1.03) : row.price,
        })
      : undefined
    const earlierFirst = earlier !== undefined && random.chance(0.5)
    if (earlierFirst) await writer.write(earlier)
    await writer.write(encode(row))
    if (earlier !== undefined && !earlierFirst) await writer.write(earlier)
    if (earlier !== undefined) duplicates++
    rows += earlier === undefined ? 1 : 2
    if ((i & 0x3fff) === 0) options.onProgress?.(i, slots.length)
  }
  await writer.end()
  if (file !== process.stdout) await finished(file)
  options.onProgress?.(slots.length, slots.length)
  return {
    out: options.out,
    as_of: isoDate(asOf),
    listings: slots.length,
    rows,
    duplicate_rows: duplicates,
    invalid_rows: invalid,
    eur_rows: eur,
  }
}

/**
 * How many listings each model-year gets: the model's share of the market spread over
 * its production years by age (with a per-year wobble, as real counts have), or the
 * published count for the years the market reference gives, rounded
 * by largest remainder so the total is exactly `total`; then shuffled into file order.
 */
function plan(random: Random, total: number, asOfYear: number) {
  const draws: { draw: ModelDraw; year: number }[] = []
  const wanted: number[] = []
  const market = CATALOGUE.reduce((s, make) => s + make.models.reduce((m, model) => m + model.listings, 0), 0)
  for (const make of CATALOGUE) {
    for (const model of make.models) {
      const draw = new ModelDraw(make, model)
      const years: number[] = []
      for (let y = model.years[0]; y <= Math.min(model.years[1], asOfYear); y++) years.push(y)
      // Years with a published count get it; the model's other listings spread by age.
      const reference = model.reference ?? {}
      const fixed = years.reduce((s, y) => s + (reference[y] ?? 0), 0)
      const weights = years.map((y) =>
        y in reference ? 0 : ageWeight(asOfYear - y, make.premium) * Math.exp(0.35 * random.normal()),
      )
      const sum = weights.reduce((s, w) => s + w, 0)
      const scale = total / market
      years.forEach((year, i) => {
        draws.push({ draw, year })
        wanted.push(
          scale * (reference[year] ?? (sum === 0 ? 0 : Math.max(0, model.listings - fixed) * (weights[i]! / sum))),
        )
      })
    }
  }
  const counts = wanted.map(Math.floor)
  let missing = total - counts.reduce((s, c) => s + c, 0)
  const byRemainder = wanted.map((w, i) => ({ i, r: w - Math.floor(w) })).sort((a, b) => b.r - a.r || a.i - b.i)
  for (let k = 0; missing > 0; k = (k + 1) % byRemainder.length, missing--) counts[byRemainder[k]!.i]!++
  const slots = new Uint32Array(total)
  let at = 0
  counts.forEach((count, index) => slots.fill(index, at, (at += count)))
  for (let i = slots.length - 1; i > 0; i--) {
    const j = random.int(i + 1)
    const t = slots[i]!
    slots[i] = slots[j]!
    slots[j] = t
  }
  return { draws, slots }
}

/** Makes a row unusable in one of the ways real exports are. */
function spoil(row: Row, kind: InvalidKind): void {
  switch (kind) {
    case 'price_zero':
      row.price = 0
      return
    case 'price_text':
      row.price = 'do negocjacji'
      return
    case 'year_too_old':
      row.year = 1850
      return
    case 'mileage_negative':
      row.mileage_km = -5
      return
    case 'unknown_fuel':
      row.fuel_type = 'Parowy'
      return
    case 'unknown_gearbox':
      row.gearbox = 'Półautomatyczna'
      return
    case 'unknown_voivodeship':
      row.voivodeship = 'Bawaria'
      return
    case 'unknown_currency':
      row.currency = 'USD'
      return
    case 'last_before_first':
      ;[row.first_seen, row.last_seen] = [row.last_seen, row.first_seen]
      if (row.first_seen === row.last_seen) row.first_seen = '2099-01-01'
      return
    case 'missing_model':
      row.model = ''
      return
    case 'imported_maybe':
      row.imported = 'maybe'
  }
}

const TRIMS = ['1.6 TDI', '2.0 TDI', '1.4 TSI', '1.5', '2.0', '1.2 benzyna', '3.0d', 'hybrid', 'EV']
const WORDS = [
  'Salon Polska',
  'bezwypadkowy',
  'serwisowany w ASO',
  'pierwszy właściciel',
  'full opcja',
  'zadbany',
  '"igła"',
  'FV 23%',
]

/** A listing title, the kind of free text with commas and quotes that exports carry. */
function title(random: Random, make: string, model: string, fuel: string): string {
  const extra = random.chance(0.001) ? '\nokazja' : ''
  return `${make} ${model} ${random.pick(TRIMS)} ${fuel}, ${random.pick(WORDS)}${extra}`
}

function csvLine(row: Row): string {
  let line = ''
  for (let i = 0; i < HEADER.length; i++) {
    if (i > 0) line += ','
    line += csvField(String(row[HEADER[i]!]))
  }
  return `${line}\n`
}

/** RFC 4180 quoting where a field needs it. */
function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

/** NDJSON carries numbers as numbers and booleans as booleans, where the row has them so. */
function ndjsonValues(row: Row): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {}
  for (const key of HEADER) {
    const value = row[key]
    out[key] = value === '' ? null : value === 'true' ? true : value === 'false' ? false : value
  }
  return out
}

/** Collects small writes into large ones and honours back-pressure. */
class BufferedWriter {
  private pending = ''

  constructor(private readonly sink: Writable) {}

  async write(text: string): Promise<void> {
    this.pending += text
    if (this.pending.length < 1 << 16) return
    const chunk = this.pending
    this.pending = ''
    if (!this.sink.write(chunk)) await new Promise<void>((resolve) => this.sink.once('drain', resolve))
  }

  async end(): Promise<void> {
    if (this.pending.length > 0) this.sink.write(this.pending)
    this.pending = ''
    this.sink.end()
    await finished(this.sink)
  }
}
