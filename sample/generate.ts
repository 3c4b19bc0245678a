import { createWriteStream } from 'node:fs'
import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { curatedTable } from '../build/alias-table.js'
import { dayNumber, isoDate, yearOfDay } from '../format/calendar.js'
import { GEARBOXES } from '../format/vocabulary.js'
import { CATALOGUE } from './catalogue.js'
import { Details, type CarDetail } from './detail.js'
import { Dirt } from './dirt.js'
import { BufferedWriter, HEADER, WITHOUT_DETAIL, csvHeader, csvLine, ndjsonLine, type Row } from './export-writer.js'
import { longTail } from './long-tail.js'
import { askingPrice, type ModelDraw } from './market-model.js'
import { MarketNames } from './market-names.js'
import { plan } from './plan.js'
import { Random } from './random.js'
import { Spellings } from './spellings.js'
import { spoil, spoilage } from './spoilage.js'

export interface GenerateOptions {
  /** A file path, or `-` for standard output. */
  readonly out: string
  readonly listings?: number
  readonly seed?: string
  /** YYYY-MM-DD: the export day; listings are first seen over the 24 months before it. SAMPLE_AS_OF by default. */
  readonly asOf?: string
  readonly format?: 'csv' | 'ndjson'
  readonly gzip?: boolean
  /**
   * False: the same market written without the detail columns (version, generation, body type, power, displacement),
   * as exports were before them; a benchmark's measure of what reading them costs.
   */
  readonly detail?: boolean
  readonly onProgress?: (done: number, total: number) => void
}

export interface GenerateSummary {
  readonly out: string
  readonly as_of: string
  readonly listings: number
  readonly rows: number
  readonly duplicate_rows: number
  /** Rows no build may keep (spoilage.ts). */
  readonly invalid_rows: number
  /** Rows priced in each currency of SAMPLE_CURRENCIES. */
  readonly foreign_rows: Readonly<Record<SampleCurrency, number>>
  /** Listings the build sets apart as new cars: those drawn new, and old ones whose odometer reads 1 km. */
  readonly new_listings: number
}

export const DEFAULT_LISTINGS = 1_400_000
export const DEFAULT_SEED = 'carmarket'
/**
 * The export day of the sample unless one is asked for: a fixed day, not today's, so that
 * the same seed gives the same export, and the same answers, on any day (the documented
 * examples are the sample's real answers, and a test holds them to it).
 */
export const SAMPLE_AS_OF = '2026-09-30'
/**
 * The currencies besides PLN that a few of the sample's listings are priced in, as some
 * dealers price theirs, each with the rate its prices are written at and its share of the
 * listings. The sample is built with these rates (`--fx EUR=4.30 --fx USD=3.70`), so that
 * its first build converts them rather than asking for them.
 */
export const SAMPLE_CURRENCIES = [
  { code: 'EUR', rate: 4.3, share: 0.004 },
  { code: 'USD', rate: 3.7, share: 0.0004 },
] as const
export const SAMPLE_FX: ReadonlyMap<string, number> = new Map(SAMPLE_CURRENCIES.map((c) => [c.code, c.rate]))
type SampleCurrency = (typeof SAMPLE_CURRENCIES)[number]['code']

/** The currency a listing is priced in for a uniform draw `r` (each with its share), undefined for PLN. */
function foreignCurrency(r: number): (typeof SAMPLE_CURRENCIES)[number] | undefined {
  for (const currency of SAMPLE_CURRENCIES) {
    if (r < currency.share) return currency
    r -= currency.share
  }
  return undefined
}

const SHARE_DUPLICATED = 0.02
/** Of the listings scraped twice, those whose earlier sighting files them under another model of the make. */
const SHARE_OTHER_MODEL = 0.2
const SHARE_ACTIVE = 1 / 3
const HISTORY_DAYS = 730

/**
 * Writes a deterministic sample listings export in the data contract's format: the
 * same options give the same bytes. See plan.ts for how many listings each model-year
 * gets, market-model.ts for how their figures are drawn, detail.ts for their versions,
 * generations and bodies, market-names.ts for the names today's marketplace gives some
 * models, spellings.ts, dirt.ts and spoilage.ts for the untidiness of a real
 * marketplace's export. The detail is drawn from a stream of its own, so the draws of
 * everything else are those of an export without it.
 */
export async function generateExport(options: GenerateOptions): Promise<GenerateSummary> {
  const total = options.listings ?? DEFAULT_LISTINGS
  const asOfText = options.asOf ?? SAMPLE_AS_OF
  const asOf = /^\d{4}-\d{2}-\d{2}$/.test(asOfText) ? dayNumber(asOfText) : undefined
  if (asOf === undefined) throw new RangeError(`as-of must be a date YYYY-MM-DD, not ${JSON.stringify(asOfText)}`)
  const asOfYear = yearOfDay(asOf)
  const seed = options.seed ?? DEFAULT_SEED
  const random = new Random(seed)
  const table = curatedTable()
  const spellings = new Spellings(random, table)
  const dirt = new Dirt(random)
  const detailRandom = new Random(`${seed}\u0000detail`)
  const details = new Details(detailRandom)
  const detailDirt = new Dirt(detailRandom)
  const names = new MarketNames(detailRandom, spellings)
  const format = options.format ?? 'csv'
  const { entries, slots } = plan(random, total, asOfYear, CATALOGUE, longTail(table, asOfYear))
  const modelYears = entries.map(({ draw, year }) => details.of(draw.make, draw.model, year))
  const isoDay = dayWriter()

  const file = options.out === '-' ? process.stdout : createWriteStream(options.out)
  const gzip = (options.gzip ?? true) ? createGzip({ level: 5 }) : undefined
  if (gzip !== undefined) gzip.pipe(file)
  const sink: Writable = gzip ?? file
  const writer = new BufferedWriter(sink)
  const header = (options.detail ?? true) ? HEADER : WITHOUT_DETAIL
  const write = format === 'csv' ? csvLine : ndjsonLine
  const encode = (row: Row) => write(row, header)
  if (format === 'csv') await writer.write(csvHeader(header))

  let rows = 0
  let duplicates = 0
  let invalid = 0
  const foreign = Object.fromEntries(SAMPLE_CURRENCIES.map((c) => [c.code, 0])) as Record<SampleCurrency, number>
  let newListings = 0
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!
    const { draw, year, isNew } = entries[slot]!
    const age = Math.max(0, asOfYear - year)
    const active = random.chance(SHARE_ACTIVE)
    const firstSeen = active
      ? asOf - Math.min(HISTORY_DAYS, Math.round(random.logNormal(45, 1)))
      : asOf - 1 - random.int(HISTORY_DAYS)
    const lastSeen = active ? asOf : Math.min(asOf - 1, firstSeen + Math.round(random.logNormal(30, 0.9)))
    const fuel = draw.fuel(random)
    const automatic = random.chance(draw.model.automatic)
    const imported = draw.imported(random, age, isNew)
    const region = draw.region(random)
    const mileage = isNew ? draw.newMileage(random) : draw.mileage(random, age)
    const car = modelYears[slot]?.draw(fuel, automatic)
    const modelPrice = isNew
      ? draw.dealerPrice(random, { fuel, automatic, region })
      : draw.price(random, { age, fuel, automatic, imported, region, mileage, monthsAgo: (asOf - firstSeen) / 30.4 })
    // A version asks its own price, against the mean of the versions the listing could have been,
    // so that the model-year's median stays where the market model puts it.
    const price =
      car === undefined || car.priceFactor === 1 ? modelPrice : askingPrice(detailRandom, modelPrice * car.priceFactor)
    const condition = dirt.condition(isNew)
    // A new car that does not say so is told by its odometer (contract 1.2), which it then always gives.
    const mileageGiven = (isNew && condition === '') || !random.chance(0.03)
    const row: Row = {
      listing_id: `OTM${60_000_000 + i}`,
      make: spellings.make(draw.make.name),
      model: names.model(
        draw.make.name,
        draw.model.name,
        year,
        car?.body,
        spellings.model(draw.make.name, draw.model.name),
      ),
      year,
      price,
      currency: '',
      mileage_km: mileageGiven ? mileage : '',
      fuel_type: random.chance(0.01) ? '' : dirt.fuel(fuel),
      gearbox: random.chance(0.02) ? '' : dirt.gearbox(GEARBOXES[automatic ? 1 : 0]),
      imported: random.chance(0.1) ? '' : dirt.boolean(imported),
      voivodeship: random.chance(0.02) ? '' : dirt.voivodeship(region, imported),
      first_seen: dirt.date(isoDay(firstSeen)),
      last_seen: dirt.date(isoDay(lastSeen)),
      active: dirt.boolean(active),
      condition,
      version: '',
      generation: '',
      body_type: '',
      power_hp: '',
      engine_capacity_cm3: '',
      title: title(random, draw.make.name, draw.model.name, fuel),
    }
    if (car !== undefined) describe(row, car, detailRandom, detailDirt)
    // An odometer swapped or misread: an old used car at 1 km, which the build, told nothing of its
    // condition, takes for new, as it would in a real export.
    const oneKm = !isNew && condition === '' && age >= 10 && random.chance(0.0005)
    if (oneKm) row.mileage_km = 1
    const currency = foreignCurrency(random.next())
    if (currency !== undefined) {
      row.price = Math.round(price / currency.rate / 10) * 10
      row.currency = currency.code
      foreign[currency.code]++
    }
    // A listing scraped twice: an earlier sighting, which the build must merge away, sometimes filed
    // under another model of the make (one ad in several categories). Only a listing scraped once is
    // spoiled, so every duplicate is one to merge.
    const scrapedTwice = random.chance(SHARE_DUPLICATED) && lastSeen > firstSeen
    const spoiled = scrapedTwice ? undefined : spoilage(random)
    if (spoiled !== undefined) {
      spoil(row, spoiled, random)
      invalid++
    } else if (isNew || oneKm) newListings++
    const earlier = scrapedTwice
      ? encode({
          ...row,
          model: random.chance(SHARE_OTHER_MODEL) ? otherModel(random, spellings, draw) : row.model,
          last_seen: isoDay(firstSeen + random.int(lastSeen - firstSeen)),
          active: 'true',
          price: Math.round(Number(row.price) * 1.03),
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
    foreign_rows: foreign,
    new_listings: newListings,
  }
}

/** isoDate, each day formatted once: a sample's few hundred days are written millions of times. */
function dayWriter(): (day: number) => string {
  const written = new Map<number, string>()
  return (day) => {
    let text = written.get(day)
    if (text === undefined) written.set(day, (text = isoDate(day)))
    return text
  }
}

/** Another model of the listing's make, as the export would write it; its own when the make has no other. */
function otherModel(random: Random, spellings: Spellings, draw: ModelDraw): string {
  const others = draw.make.models.filter((m) => m !== draw.model)
  return spellings.model(draw.make.name, others.length === 0 ? draw.model.name : random.pick(others).name)
}

type DetailColumn = 'version' | 'generation' | 'body_type' | 'power_hp' | 'engine_capacity_cm3'
/**
 * Shares of the listings that leave out a detail they could give, so that about as many
 * say nothing as real Otomoto rows do (../shared/realdata: 29% give no version, 20% no
 * generation). The 5% whose year and fuel no version of the table fits (a Corolla hybrid
 * of 2015, which Toyota never made) give no version, power or displacement at all.
 */
const UNSAID: Readonly<Record<DetailColumn, number>> = {
  version: 0.25,
  generation: 0.2,
  body_type: 0.03,
  power_hp: 0.01,
  engine_capacity_cm3: 0.01,
}

/** Fills the detail columns of a listing with what it says of its car, as a scrape has it. */
function describe(row: Row, car: CarDetail, random: Random, dirt: Dirt): void {
  const { version, generation, body } = car
  const says = (column: DetailColumn) => !random.chance(UNSAID[column])
  if (version !== undefined && says('version')) row.version = dirt.version(version.text)
  if (generation !== undefined && says('generation')) row.generation = generation
  if (body !== undefined && says('body_type')) row.body_type = dirt.bodyType(body)
  if (version !== undefined && says('power_hp')) row.power_hp = dirt.power(version.hp)
  if (version !== undefined && says('engine_capacity_cm3')) row.engine_capacity_cm3 = dirt.displacement(version.cm3)
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
