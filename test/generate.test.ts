import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import t from 'tap'
import { runBuild } from '../build/run-build.js'
import { Snapshot } from '../query/snapshot.js'
import { SAMPLE_AS_OF, SAMPLE_EUR_RATE, generateExport } from '../sample/generate.js'
import { freshDir, vehicle } from './support.js'

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
    /^listing_id,make,model,year,price,currency,mileage_km,fuel_type,gearbox,imported,voivodeship,first_seen,last_seen,active,title$/,
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
  const fx = new Map([['EUR', SAMPLE_EUR_RATE]])
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

  // Mileage grows with age: compare the median mileage of old and young cars.
  const listings = readFileSync(join(dir, 'sample.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) => JSON.parse(l) as { year: number; mileage_km: number | null; active: boolean | string; first_seen: string },
    )
  const medianMileage = (from: number, to: number) => {
    const m = listings
      .filter((l) => l.year >= from && l.year <= to && typeof l.mileage_km === 'number')
      .map((l) => l.mileage_km!)
    return m.sort((a, b) => a - b)[Math.floor(m.length / 2)]!
  }
  t.ok(medianMileage(2023, 2025) < medianMileage(2016, 2018), 'younger cars have driven less')
  t.ok(medianMileage(2016, 2018) < medianMileage(2008, 2010), 'older cars have driven more')
  const active =
    listings.filter((l) => l.active === true || l.active === '1' || l.active === 'tak').length / listings.length
  t.ok(active > 0.28 && active < 0.4, `about a third active (${active.toFixed(3)})`)
  const firstSeen = listings.map((l) => l.first_seen.slice(0, 10)).sort()
  t.ok(firstSeen[0]! >= '2024-09-30' && firstSeen.at(-1)! <= '2026-09-30', 'first sightings over the last 24 months')
})

t.test('the default sample looks like the Polish market', async (t) => {
  const dir = freshDir(t)
  const summary = await generateExport({ out: join(dir, 'market.csv.gz'), asOf: '2026-09-30' })
  t.equal(summary.listings, 1_400_000)
  const report = await runBuild({
    input: join(dir, 'market.csv.gz'),
    snapshots: join(dir, 'snapshots'),
    fx: new Map([['EUR', SAMPLE_EUR_RATE]]),
  })
  t.ok(report.makes >= 40, `${report.makes} makes`)
  t.ok(report.models >= 300, `${report.models} models`)
  t.equal(report.duplicates_dropped, summary.duplicate_rows)
  for (const reason of [
    'invalid_price',
    'invalid_fuel_type',
    'invalid_gearbox',
    'invalid_voivodeship',
    'invalid_imported',
    'unsupported_currency',
    'year_out_of_range',
    'missing_model',
    'last_seen_before_first_seen',
  ]) {
    t.ok(
      (report.rejected_by_reason as Record<string, number>)[reason]! > 0,
      `the sample has rows rejected as ${reason}`,
    )
  }
  t.ok(report.rows_rejected / report.rows_read < 0.01, 'under 1% of rows are rejected')
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
