import { readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { open } from 'lmdb'
import t from 'tap'
import { curatedTable } from '../../build/alias-table.js'
import { runBuild } from '../../build/run-build.js'
import { NEW_CAR_BELOW_KM } from '../../format/bounds.js'
import { CURRENT_LINK, META_DB, SNAPSHOT_FILE, type NameIndex } from '../../format/schema.js'
import { NEW, UNKNOWN, conditionCode } from '../../format/vocabulary.js'
import { Snapshot } from '../../query/snapshot.js'
import { CATALOGUE } from '../../sample/catalogue.js'
import { SAMPLE_AS_OF, SAMPLE_FX, generateExport } from '../../sample/generate.js'
import { freshDir, vehicle } from '../support.js'

t.test('the same seed and date give the same bytes; another seed does not', async (t) => {
  const dir = freshDir(t)
  const make = (name: string, seed: string) =>
    generateExport({ out: join(dir, name), listings: 3000, seed, asOf: '2026-09-30', gzip: false })
  const a = await make('a.csv', 'one')
  await make('b.csv', 'one')
  await make('c.csv', 'two')
  t.equal(readFileSync(join(dir, 'a.csv'), 'utf8'), readFileSync(join(dir, 'b.csv'), 'utf8'))
  t.not(readFileSync(join(dir, 'a.csv'), 'utf8'), readFileSync(join(dir, 'c.csv'), 'utf8'))
  t.equal(a.listings, 3000)
  const lines = readFileSync(join(dir, 'a.csv'), 'utf8').split('\n')
  t.match(
    lines[0],
    /^listing_id,make,model,year,price,currency,mileage_km,fuel_type,gearbox,imported,voivodeship,first_seen,last_seen,active,condition,version,generation,body_type,power_hp,engine_capacity_cm3,title$/,
  )
})

t.test(
  'without an as-of date the export is as of the fixed SAMPLE_AS_OF, not today: the same on any day',
  async (t) => {
    const dir = freshDir(t)
    const common = { listings: 3000, gzip: false }
    const unset = await generateExport({ ...common, out: join(dir, 'unset.csv') })
    await generateExport({ ...common, out: join(dir, 'fixed.csv'), asOf: SAMPLE_AS_OF })
    t.equal(unset.as_of, SAMPLE_AS_OF)
    t.equal(readFileSync(join(dir, 'unset.csv'), 'utf8'), readFileSync(join(dir, 'fixed.csv'), 'utf8'))
    const other = await generateExport({ ...common, out: join(dir, 'other.csv'), asOf: '2026-10-31' })
    t.equal(other.as_of, '2026-10-31', 'a given as-of date still wins')
  },
)

t.test('CSV and NDJSON of one seed hold the same listings', async (t) => {
  const dir = freshDir(t)
  const common = { listings: 20_000, seed: 'formats', asOf: '2026-09-30' }
  await generateExport({ ...common, out: join(dir, 'sample.csv.gz') })
  const ndjson = await generateExport({ ...common, out: join(dir, 'sample.ndjson'), format: 'ndjson', gzip: false })
  const fx = SAMPLE_FX
  const csvReport = await runBuild({ input: join(dir, 'sample.csv.gz'), snapshots: join(dir, 'csv'), fx })
  const jsonReport = await runBuild({ input: join(dir, 'sample.ndjson'), snapshots: join(dir, 'json'), fx })
  for (const field of [
    'rows_read',
    'rows_rejected',
    'duplicates_dropped',
    'listings_kept',
    'keys_written',
    'as_of',
  ] as const) {
    t.equal(jsonReport[field], csvReport[field], field)
  }
  t.same(jsonReport.rejected_by_reason, csvReport.rejected_by_reason)
  t.equal(csvReport.rows_read, ndjson.rows)
  t.equal(csvReport.duplicates_dropped, ndjson.duplicate_rows, 'every earlier sighting is merged')
  t.equal(csvReport.rows_rejected, ndjson.invalid_rows, 'the rows spoiled, and only they, are rejected')
  t.equal(csvReport.new_listings, ndjson.new_listings, 'new cars, and only they, are set apart')
  const newShare = csvReport.new_listings / (csvReport.new_listings + csvReport.listings_kept)
  t.ok(newShare > 0.1 && newShare < 0.15, `about 12% new cars, as on Otomoto (${newShare.toFixed(3)})`)
  t.ok(csvReport.values_ignored.voivodeship! > 0, 'regions outside Poland are kept, their region unknown')

  const listings = readFileSync(join(dir, 'sample.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Listing)

  // Mileage grows with age: compare the median mileage of old and young used cars.
  const used = listings.filter((l) => !isNew(l))
  const medianMileage = (from: number, to: number) =>
    median(
      used.filter((l) => l.year >= from && l.year <= to && typeof l.mileage_km === 'number').map((l) => l.mileage_km!),
    )
  t.ok(medianMileage(2023, 2025) < medianMileage(2016, 2018), 'younger cars have driven less')
  t.ok(medianMileage(2016, 2018) < medianMileage(2008, 2010), 'older cars have driven more')
  const active =
    listings.filter((l) => l.active === true || l.active === '1' || l.active === 'tak').length / listings.length
  t.ok(active > 0.28 && active < 0.4, `about a third active (${active.toFixed(3)})`)
  const firstSeen = listings.map((l) => l.first_seen.slice(0, 10)).sort()
  t.ok(firstSeen[0]! >= '2024-09-30' && firstSeen.at(-1)! <= '2026-09-30', 'first sightings over the last 24 months')

  const imports = listings.filter((l) => l.imported === true || l.imported === '1' || l.imported === 'tak').length
  const domestic = listings.filter((l) => l.imported === false || l.imported === '0' || l.imported === 'nie').length
  const importShare = imports / (imports + domestic)
  t.ok(importShare > 0.4 && importShare < 0.5, `40-50% imported (${importShare.toFixed(3)})`)

  // New cars: this year's or last year's, at delivery kilometres and dealer prices, half of them saying so.
  const fresh = listings.filter(isNew)
  // Spoiled rows aside (a year of 1850, an odometer of 9,999,999 km), and old cars whose odometer reads 1 km.
  const odd = fresh.filter((l) => (l.year < 2025 && l.mileage_km !== 1) || (l.mileage_km ?? 0) > 100).length
  t.ok(odd / fresh.length < 0.01, `new cars are of this year or the last, at 100 km at most (${odd} are not)`)
  const unsaid = fresh.filter((l) => l.condition === null).length / fresh.length
  t.ok(unsaid > 0.4 && unsaid < 0.6, `about half of the new cars leave their condition empty (${unsaid.toFixed(3)})`)
  const newPrice = new Map(CATALOGUE.flatMap((make) => make.models.map((m) => [`${make.name} ${m.name}`, m.newPrice])))
  const priceLevel = (of: readonly Listing[]) =>
    median(
      of
        .filter((l) => l.currency === null && typeof l.price === 'number' && newPrice.has(`${l.make} ${l.model}`))
        .map((l) => (l.price as number) / newPrice.get(`${l.make} ${l.model}`)!),
    )
  const dealer = priceLevel(fresh)
  const oneYearOld = priceLevel(used.filter((l) => l.year === 2025))
  t.ok(
    dealer > 1.1 && dealer < 1.35 && oneYearOld > 0.85 && oneYearOld < 1.1,
    `new cars at dealer prices (${dealer.toFixed(2)} of a one-year-old's), not on the used curve (${oneYearOld.toFixed(2)})`,
  )

  // Names as real exports write them: display names, slugs (and the 2021 form of Mercedes classes), other
  // cases, catch-alls; regions outside Poland.
  const makes = new Set(listings.map((l) => l.make))
  const written = new Set(listings.map((l) => l.model))
  for (const make of ['Škoda', 'mercedes-benz', 'MERCEDES-BENZ', 'Inne', 'other'])
    t.ok(makes.has(make), `a make written ${make}`)
  for (const model of ['Klasa E', 'RAPID', 'Inny']) t.ok(written.has(model), `a model written ${model}`)
  t.ok([...written].filter((m) => /^[a-z\d]+(-[a-z\d]+)+$/.test(m)).length > 20, 'models written as slugs')
  t.ok(
    [...written].some((m) => /^[a-z]-klasa$/.test(m)),
    'Mercedes classes slugged the 2021 way',
  )
  t.ok(
    listings.some((l) => l.voivodeship === 'Berlin'),
    'a car standing in Berlin',
  )

  // One ad filed under several models: an earlier sighting of a listing under another model of its make.
  const models = new Map<string, Set<string>>()
  for (const l of listings) models.set(l.listing_id, (models.get(l.listing_id) ?? new Set()).add(l.model))
  t.ok([...models.values()].filter((m) => m.size > 1).length > 20, 'some listings are filed under two models')
})

t.test('the default sample looks like the Polish market', async (t) => {
  const dir = freshDir(t)
  const summary = await generateExport({ out: join(dir, 'market.csv.gz'), asOf: '2026-09-30' })
  t.equal(summary.listings, 1_400_000)
  const report = await runBuild({
    input: join(dir, 'market.csv.gz'),
    snapshots: join(dir, 'snapshots'),
    fx: SAMPLE_FX,
  })
  t.ok(report.makes >= 120, `${report.makes} makes`)
  t.ok(report.models >= 1500, `${report.models} models`)
  t.equal(report.duplicates_dropped, summary.duplicate_rows)
  for (const reason of [
    'invalid_price',
    'price_out_of_range',
    'invalid_fuel_type',
    'invalid_gearbox',
    'invalid_imported',
    'year_out_of_range',
    'mileage_km_out_of_range',
    'missing_model',
    'last_seen_before_first_seen',
    'unspecified_make',
    'unspecified_model',
  ]) {
    t.ok(
      (report.rejected_by_reason as Record<string, number>)[reason]! > 0,
      `the sample has rows rejected as ${reason}`,
    )
  }
  t.notOk('invalid_voivodeship' in report.rejected_by_reason, 'a region outside Poland rejects no row')
  t.ok(report.rows_rejected / report.rows_read < 0.02, 'under 2% of rows are rejected')
  // Built as `npm start` builds it, the sample's own data asks its user to fix nothing.
  t.same(report.warnings, [], 'no warning')
  for (const code of SAMPLE_FX.keys())
    t.ok((report.currency_conversions[code] ?? 0) > 0, `its rows priced in ${code} are converted`)

  // The long tail: most make/model/year keys have fewer than 10 listings (21-37% have more in real exports).
  const names = nameIndex(join(dir, 'snapshots'))
  const table = new Map(curatedTable().makes.map((m) => [m.name, new Set(m.models.map((model) => model.name))]))
  let keys = 0
  let figured = 0
  const unknown: string[] = []
  for (const make of names.makes) {
    for (const model of make.models) {
      keys += model.years.length
      figured += model.figure_years.length
      if (table.get(make.name)?.has(model.name) !== true) unknown.push(`${make.name} ${model.name}`)
    }
  }
  t.ok(figured / keys > 0.21 && figured / keys < 0.37, `${figured} of ${keys} keys have 10 listings or more`)
  t.same(unknown, [], "every spelling of the export resolves to a name of the build's table")

  const snapshot = Snapshot.open(join(dir, 'snapshots'))
  t.teardown(() => snapshot.close())

  // Reference: BMW X6 2015 asks a median 104,000 PLN (p25 89,900, p75 119,900) over 203 listings.
  const x6 = snapshot.valuation(vehicle('BMW', 'X6', 2015))
  t.ok(Math.abs(x6.valuation.median / 104_000 - 1) < 0.1, `X6 2015 median ${x6.valuation.median} near 104,000`)
  const spread = (x6.valuation.p75 - x6.valuation.p25) / x6.valuation.median
  t.ok(
    spread > 0.15 && spread < 0.4,
    `X6 2015 interquartile range ${(spread * 100).toFixed(0)}% of the median (reference 29%)`,
  )
  t.ok(Math.abs(x6.sample_size / 203 - 1) < 0.1, `X6 2015 listings ${x6.sample_size} near 203`)

  for (const [make, model] of [
    ['Volkswagen', 'Golf'],
    ['Skoda', 'Octavia'],
    ['Opel', 'Astra'],
    ['Toyota', 'Corolla'],
  ] as const) {
    const n = snapshot.valuation(vehicle(make, model, 2017)).sample_size
    t.ok(n >= 1000, `${make} ${model} 2017 has thousands of listings (${n})`)
  }
  // Mass-market models lose 11-17% a year over their first decade, each at a rate of its own.
  const losses: number[] = []
  for (const [make, model] of [
    ['Volkswagen', 'Golf'],
    ['Skoda', 'Octavia'],
    ['Opel', 'Astra'],
    ['Toyota', 'Corolla'],
    ['Ford', 'Focus'],
    ['Volkswagen', 'Passat'],
    ['Renault', 'Clio'],
  ] as const) {
    const curve = snapshot.depreciation({ make, model }).curve.filter((p) => p.year >= 2016 && p.year <= 2025)
    const loss = 1 - Math.exp(-slope(curve.map((p) => [p.year, Math.log(p.median)])))
    t.ok(loss > 0.11 && loss < 0.175, `${make} ${model} loses ${(loss * 100).toFixed(1)}% a year over 2016-2025`)
    losses.push(loss)
  }
  t.ok(Math.max(...losses) - Math.min(...losses) > 0.015, 'models lose value at rates of their own')
  t.ok(
    snapshot.valuation(vehicle('VW', 'Golf', 2017)).valuation.median >
      snapshot.valuation(vehicle('VW', 'Golf', 2010)).valuation.median,
    'a younger Golf costs more',
  )
  t.ok(snapshot.liquidity(vehicle('VW', 'Golf', 2017)).active_listings > 300, 'many Golfs are still online')
  t.throws(
    () => snapshot.valuation(vehicle('Toyota', 'Mirai', 2017)),
    { code: 'INSUFFICIENT_DATA' },
    'rare model-years fall under the threshold',
  )
  // The dirt resolves: aliases and English names in the export end up on canonical names.
  t.same(snapshot.valuation(vehicle('VW', 'Golf', 2017)).matched.makes, ['Volkswagen'])
  t.ok(snapshot.valuationFactors(vehicle('Skoda', 'Octavia', 2017)).factors.length >= 3)
  t.equal(snapshot.regional(vehicle('Skoda', 'Octavia', 2017)).regions.length, 16)
  t.equal(
    gunzipSync(readFileSync(join(dir, 'market.csv.gz')))
      .subarray(0, 10)
      .toString(),
    'listing_id',
  )
})

/** The current snapshot's name index: every model with the years it has listings in, and those with 10 or more. */
function nameIndex(snapshots: string): NameIndex {
  const root = open({
    path: join(realpathSync(join(snapshots, CURRENT_LINK)), SNAPSHOT_FILE),
    readOnly: true,
    maxDbs: 4,
  })
  try {
    return root.openDB({ name: META_DB }).get('names') as NameIndex
  } finally {
    void root.close()
  }
}

/** Least-squares slope of y on x. */
function slope(points: readonly (readonly [number, number])[]): number {
  const mx = points.reduce((s, [x]) => s + x, 0) / points.length
  const my = points.reduce((s, [, y]) => s + y, 0) / points.length
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  return sxy / points.reduce((s, [x]) => s + (x - mx) ** 2, 0)
}

interface Listing {
  listing_id: string
  make: string
  model: string
  year: number
  price: number | string
  currency: string | null
  mileage_km: number | null
  imported: boolean | string | null
  active: boolean | string
  first_seen: string
  voivodeship: string | null
  condition: string | null
}

/** New as the build tells it (contract 1.2). */
function isNew(l: Listing): boolean {
  const condition = l.condition === null ? UNKNOWN : conditionCode(l.condition)
  return condition === NEW || (condition === UNKNOWN && l.mileage_km !== null && l.mileage_km < NEW_CAR_BELOW_KM)
}

function median(values: number[]): number {
  return values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
}
