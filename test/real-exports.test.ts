import t from 'tap'
import { BuildError } from '../build/build-error.js'
import { MARKETPLACE_CATALOGUE, curatedTable, loadCatalogue } from '../build/alias-table.js'
import { makeLookup, modelLookup } from '../build/name-mapping.js'
import { checkedAnswer } from '../build/parallel-statistics.js'
import { adjustedMember } from '../format/mileage-fit.js'
import { account, build, freshDir, names, reference, row, rows, serve, toCsv, vehicle, type Row } from './support.js'

/**
 * What real marketplace exports hold that a generated one easily misses (data contract
 * 1.1, 1.2, 2, 3.1, 4, 5.2): new cars beside used ones, slugs and display names, other
 * spacing, case and word order, models that share a prefix, catch-all names, regions
 * outside Poland, and keys whose mileage fit has nothing to go on.
 */

const GOLF_2017 = rows(20, (i) => ({
  price: 40_000 + i * 1000,
  mileage_km: 100_000 + i * 5000,
  condition: ['', 'used', 'Używane', 'UŻYWANY'][i % 4]!,
}))
/** New Golfs of 2017 do not exist; these are what an export files under a used year by mistake, at dealer prices. */
const NEW_GOLFS = [
  ...rows(6, (i) => ({ price: 120_000, mileage_km: 10, condition: ['Nowe', 'new', 'NOWY'][i % 3]! })),
  // No condition, a known odometer under 1,000 km: new by the contract's rule.
  ...rows(4, (i) => ({ price: 125_000, mileage_km: i * 300, condition: '' })),
]
/** Used, as it says, whatever its odometer reads. */
const USED_AT_5_KM = row({ price: 39_000, mileage_km: 5, condition: 'used' })

const car = (make: string, model: string, year: number, price: number, n = 10, fields: Partial<Row> = {}) =>
  rows(n, (i) => ({ make, model, year, price: price + i * 100, mileage_km: 60_000 + i * 4000, ...fields }))

function market(): Row[] {
  return [
    ...GOLF_2017,
    ...NEW_GOLFS,
    USED_AT_5_KM,
    // A model only ever listed new: nothing of it reaches the market or the catalogue.
    ...car('Volkswagen', 'ID.7', 2026, 250_000, 12, { mileage_km: 5, condition: 'Nowe' }),
    // Otomoto's slugs (the 2021 form and today's) beside its display names: one model.
    ...car('mercedes-benz', 'e-klasa', 2018, 150_000, 4),
    ...car('mercedes-benz', 'klasa-e', 2018, 151_000, 3),
    ...car('Mercedes-Benz', 'Klasa E', 2018, 152_000, 5),
    ...car('Mercedes-Benz', 'Klasa V', 2018, 362_900),
    // Models the marketplace keeps apart, each beside the one its name starts with.
    ...car('BMW', 'X5', 2018, 150_000),
    ...car('BMW', 'X5 M', 2018, 320_000),
    ...car('Hyundai', 'i30', 2019, 55_000, 6),
    ...car('Hyundai', 'I30', 2019, 55_500, 4),
    ...car('Hyundai', 'i30 N', 2019, 110_000),
    ...car('Peugeot', '206', 2005, 6000),
    ...car('Peugeot', '206 CC', 2005, 9000),
    ...car('Fiat', 'Punto', 2012, 15_000),
    ...car('Fiat', 'Punto Evo', 2012, 18_000),
    ...car('Kia', 'Ceed', 2019, 60_000),
    ...car('Kia', 'ProCeed', 2019, 80_000),
    ...car('Mitsubishi', 'Lancer', 2008, 20_000),
    ...car('Mitsubishi', 'Lancer Evolution', 2008, 120_000),
    ...car('Mercedes-Benz', 'GLS', 2020, 350_000),
    ...car('Mercedes-Benz', 'Maybach GLS', 2020, 800_000),
    // Other spacing and case.
    ...car('Nissan', '370Z', 2012, 70_000, 5),
    ...car('Nissan', '370 Z', 2012, 71_000, 5),
    ...car('Skoda', 'RAPID', 2016, 35_000, 5),
    ...car('Škoda', 'Rapid', 2016, 35_500, 5),
    // Catch-alls name no make or model.
    ...car('Volkswagen', 'Inny', 2015, 30_000, 3),
    ...car('other', 'Seria 3', 2015, 30_000, 2),
    // A make no table knows, written only in lower case.
    ...car('zhong-hua', 'zunjue', 2010, 8000, 6),
    ...car('zhong hua', 'zunjue', 2010, 8100, 4),
    // Ethanol.
    ...car('Ford', 'Focus', 2014, 25_000, 10, { fuel_type: 'E85' }),
    ...car('Ford', 'Focus', 2014, 24_000, 10, { fuel_type: 'Benzyna' }),
  ]
}

/** Regions a scrape of Otomoto holds besides the 16: the listing stays, its region unknown. */
const ABROAD = ['Berlin', 'Moravian-Silesian Region', 'Bawaria']

t.test('new cars are set apart: condition, the under-1,000 km rule, new_listings', async (t) => {
  const data = market()
  const { snapshot, report } = await build(t, toCsv(data))
  t.equal(report.new_listings, NEW_GOLFS.length + 12, 'new Golfs and the ID.7s')
  const used = data.length - 5 - NEW_GOLFS.length - 12
  t.equal(report.listings_kept, used, 'listings_kept counts used listings only')
  const golf = snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017))
  const prices = [...GOLF_2017, USED_AT_5_KM].map((r) => Number(r.price))
  t.equal(golf.sample_size, prices.length, 'used at 5 km when the listing says so')
  t.same(golf.valuation, reference.quartiles(prices), 'no new car in any figure')
  t.throws(() => snapshot.valuation(vehicle('Volkswagen', 'ID.7', 2026)), { code: 'INSUFFICIENT_DATA' })
  const models = snapshot.catalogModels({ make: 'Volkswagen' }).models
  t.same(
    models.map((m) => [m.model, m.listings]),
    [['Golf', prices.length]],
    'the catalogue counts used listings only',
  )
  t.equal(snapshot.catalogMakes().makes.find((m) => m.make === 'Volkswagen')?.listings, prices.length)

  const unknownCondition = await build(t, toCsv([...GOLF_2017, row({ condition: 'damaged' })]))
  t.same(unknownCondition.report.rejected_by_reason, { invalid_condition: 1 }, 'a condition no export means')
})

t.test('an export of nothing but new cars publishes nothing', async (t) => {
  await t.rejects(build(t, toCsv(NEW_GOLFS)), { code: 'no_used_listings' })
})

t.test('a voivodeship outside the 16 keeps its listing, its region unknown, counted in values_ignored', async (t) => {
  const data = [...GOLF_2017, ...ABROAD.map((voivodeship) => row({ voivodeship, price: 99_000, mileage_km: 150_000 }))]
  const { snapshot, report } = await build(t, toCsv(data))
  t.same(report.rejected_by_reason, {})
  t.same(report.values_ignored, { voivodeship: ABROAD.length })
  t.equal(snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017)).sample_size, GOLF_2017.length + ABROAD.length)
  const regional = snapshot.regional(vehicle('Volkswagen', 'Golf', 2017))
  t.equal(regional.total_sample_size, GOLF_2017.length, 'the regions hold the listings that name one of the 16')
  t.equal(regional.national_average, reference.round(reference.mean(GOLF_2017.map((r) => Number(r.price)))))
  const clean = await build(t, toCsv(GOLF_2017))
  t.same(clean.report.values_ignored, {}, 'nothing ignored: an empty object')
})

t.test('names as marketplaces write them resolve to the right car', async (t) => {
  const { snapshot, report } = await build(t, toCsv(market()))
  const answer = (make: string, model: string, year: number) => snapshot.valuation(vehicle(make, model, year))
  const klasaE = answer('Mercedes-Benz', 'Klasa E', 2018)
  t.equal(klasaE.sample_size, 12, 'e-klasa, klasa-e and Klasa E rows are one model')
  t.same(names(klasaE.matched), { makes: ['Mercedes-Benz'], models: ['Klasa E'], match_type: 'exact' })
  t.same(names(answer('mercedes-benz', 'e-klasa', 2018).matched), {
    makes: ['Mercedes-Benz'],
    models: ['Klasa E'],
    match_type: 'normalized',
  })
  t.same(answer('Mercedes', 'klasa-e', 2018).matched.models, ['Klasa E'], 'a slug')
  t.same(names(answer('Mercedes', 'E-Class', 2018).matched), {
    makes: ['Mercedes-Benz'],
    models: ['Klasa E'],
    match_type: 'family',
  })
  // A name the table knows is never corrected into another: no Klasa S listings is not a Klasa V answer.
  t.throws(() => answer('Mercedes-Benz', 'Klasa S', 2018), {
    code: 'INSUFFICIENT_DATA',
    message: /No listings of Mercedes-Benz Klasa S/,
  })
  t.throws(() => answer('Mercedes-Benz', 'klasa-s', 2018), { code: 'INSUFFICIENT_DATA' })
  t.throws(() => answer('Mercedes-Benz', 'S-Class', 2018), { code: 'INSUFFICIENT_DATA' })
  t.throws(() => answer('Aston Martin', 'DB11', 2018), { code: 'INSUFFICIENT_DATA', message: /No listings of Aston/ })
  t.same(answer('Mercedes-Benz', 'Klsa V', 2018).matched.models, ['Klasa V'], 'an unknown name may be a typo')

  t.equal(answer('Nissan', '370Z', 2012).sample_size, 10, '370Z and 370 Z are one model')
  // The catalogue's display name is canonical, whatever spelling the curated table or the export uses (contract 3.1).
  t.same(answer('Nissan', '370Z', 2012).matched.models, ['370 Z'], 'one canonical name, as the marketplace writes it')
  t.same(answer('Skoda', 'Rapid', 2016).matched.models, ['RAPID'])
  t.equal(answer('Skoda', 'Rapid', 2016).sample_size, 10, 'RAPID and Rapid are one model')
  t.same(names(answer('Hyundai', 'I30', 2019).matched), {
    makes: ['Hyundai'],
    models: ['i30'],
    match_type: 'normalized',
  })
  t.same(names(answer('Zhong-Hua', 'Zunjue', 2010).matched), {
    makes: ['Zhong-Hua'],
    models: ['Zunjue'],
    match_type: 'exact',
  })
  t.equal(answer('zhong hua', 'zunjue', 2010).sample_size, 10, 'an unknown make in lower case gets a readable name')
  t.same(report.rejected_by_reason, { unspecified_model: 3, unspecified_make: 2 })
  t.throws(() => answer('Volkswagen', 'Inny', 2015), { code: 'INSUFFICIENT_DATA', message: /names no model/ })
  t.throws(() => answer('other', 'Seria 3', 2015), { code: 'INSUFFICIENT_DATA', message: /names no make/ })

  t.same(names(answer('VW Golf', 'Golf', 2017).matched), {
    makes: ['Volkswagen'],
    models: ['Golf'],
    match_type: 'alias',
  })
  t.same(answer('Volkswagen Golf', 'Volkswagen Golf', 2017).matched.models, ['Golf'], 'the whole name repeated')
  t.throws(() => answer('VW Golf', 'Passat', 2017), { code: 'INSUFFICIENT_DATA', extra: { suggestions: ['Golf'] } })
  t.throws(() => answer('VW Gofl', 'Gofl', 2017), { code: 'INSUFFICIENT_DATA' })

  const focus = snapshot.valuation({ ...vehicle('Ford', 'Focus', 2014), fuel_type: 'ethanol' })
  t.equal(focus.sample_size, 10)
  t.equal(focus.filters.fuel_type, 'Etanol')
})

t.test('models the marketplace keeps apart stay apart', async (t) => {
  const data = market()
  const { snapshot } = await build(t, toCsv(data))
  for (const [make, model, other, year] of [
    ['BMW', 'X5', 'X5 M', 2018],
    ['Hyundai', 'i30', 'i30 N', 2019],
    ['Peugeot', '206', '206 CC', 2005],
    ['Fiat', 'Punto', 'Punto Evo', 2012],
    ['Kia', 'Ceed', 'ProCeed', 2019],
    ['Mitsubishi', 'Lancer', 'Lancer Evolution', 2008],
    ['Mercedes-Benz', 'GLS', 'Maybach GLS', 2020],
  ] as const) {
    for (const name of [model, other]) {
      const prices = data
        .filter((r) => r.make === make && r.model.toLowerCase() === name.toLowerCase() && r.year === year)
        .map((r) => Number(r.price))
      const answer = snapshot.valuation(vehicle(make, name, year))
      t.same(answer.matched.models, [name], `${make} ${name}: itself`)
      t.same(answer.valuation, reference.quartiles(prices), `${make} ${name}: its own listings only`)
    }
  }
})

t.test('the mileage fit is null where it has nothing to go on, and never beyond ±20 %', async (t) => {
  // Used cars (as they say) at 1 and 2 km, priced from 1,000 to 9,000,000 PLN: the slope
  // before the guards made exp(10,000 b) overflow, and the answer read `Infinity`.
  const overflow = rows(10, (i) => ({
    make: 'Audi',
    model: 'A4',
    year: 2015,
    mileage_km: 1 + (i % 2),
    price: i % 2 === 0 ? 1000 : 9_000_000,
    condition: 'used',
  }))
  // Mileages 100,000-104,500 km: an interquartile range under 10,000 km.
  const narrow = rows(10, (i) => ({
    make: 'Audi',
    model: 'A6',
    year: 2015,
    mileage_km: 100_000 + i * 500,
    price: 60_000 - i * 2000,
  }))
  // Spread enough, but losing 63 % per 10,000 km: noise, not a market.
  const steep = rows(10, (i) => ({
    make: 'Audi',
    model: 'A3',
    year: 2015,
    mileage_km: 50_000 + i * 10_000,
    price: Math.round(1_000_000 * Math.exp(-0.0001 * i * 10_000)),
  }))
  // Twelve listings, nine with a known mileage: too few for a fit.
  const unknown = rows(12, (i) => ({
    make: 'Audi',
    model: 'Q5',
    year: 2015,
    mileage_km: i < 9 ? 50_000 + i * 20_000 : '',
    price: 90_000 - i * 1000,
  }))
  const { snapshot, snapshots } = await build(t, toCsv([...GOLF_2017, ...overflow, ...narrow, ...steep, ...unknown]))
  for (const model of ['A4', 'A6', 'A3', 'Q5']) {
    t.equal(snapshot.valuation(vehicle('Audi', model, 2015)).mileage_effect, null, `${model}: no mileage effect`)
  }
  const a6 = snapshot.valuation({ ...vehicle('Audi', 'A6', 2015), mileage: 102_000 })
  t.equal(a6.adjusted, null, 'no adjusted value either')
  const golf = snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), mileage: 150_000 })
  t.ok(Math.abs(golf.mileage_effect!.pct_per_10000_km) <= 20, 'a real slope stays')
  t.not(golf.adjusted, null)

  // Over HTTP the answer is JSON a client can parse, and charged as any answer.
  const ledger = freshDir(t)
  const { get } = await serve(t, { snapshots, ledger })
  const { key } = await account(ledger, 'fit@example.com', 100)
  const reply = await get('/v1/market/valuation?make=Audi&model=A4&year=2015', { key })
  t.equal(reply.status, 200)
  t.equal(reply.body.data.mileage_effect, null)
  t.equal(reply.body.data.credits_used, 8)
})

t.test('an answer is checked as it is written: a figure gone wrong fails the build, naming its key', async (t) => {
  const target = { kind: 'model', make: 'Audi', name: 'A4' } as const
  const figures = { average: 50_000, median: 50_000, p25: 40_000, p75: 60_000, sample_size: 10 }
  const confidence = { median_low: 45_000, median_high: 55_000, level_pct: 97.9 }
  const fit = { slope: 1, size: 10, lowPrice: 1000, lowMileage: 1, highPrice: 1000, highMileage: 1 }
  const record = { all: { ...figures, confidence, fit }, filtered: [] }
  t.throws(() => checkedAnswer('valuation', record, target, 2015), {
    name: 'BuildError',
    code: 'unsound_snapshot',
    message: /valuation answer of Audi A4 2015/,
  })
  const steep = { ...fit, slope: Math.log(1.25) / 10_000 }
  t.throws(
    () => checkedAnswer('valuation', { all: { ...figures, confidence, fit: steep }, filtered: [] }, target, 2015),
    {
      code: 'unsound_snapshot',
    },
  )
  const history = {
    first_month: '2024-10',
    avg_price: [Infinity, ...Array(23).fill(0)],
    sample_size: [10, ...Array(23).fill(0)],
  }
  t.throws(() => checkedAnswer('price-history', history, target, 2015), BuildError)
  t.doesNotThrow(() =>
    checkedAnswer('valuation', { all: { ...figures, confidence, fit: null }, filtered: [] }, target, 2015),
  )
  // What a request decides is never Infinity either: a moved median that overflows is null.
  t.equal(adjustedMember({ ...fit, slope: 0.5 }, 3_000_000), '"adjusted":null')
})

t.test(
  "the curated table covers Otomoto's catalogue: every display name and slug, distinct models apart",
  async (t) => {
    const catalogue = loadCatalogue(MARKETPLACE_CATALOGUE)
    const makes = makeLookup(curatedTable())
    let models = 0
    for (const entry of catalogue.makes) {
      const make = makes.find(entry.name)?.value
      t.equal(makes.find(entry.slug)?.value, make, `${entry.name}: its slug ${entry.slug}`)
      if (make === undefined) {
        t.fail(`${entry.name} is not in the table`)
        continue
      }
      const lookup = modelLookup(make)
      const canonical = new Set<string>()
      for (const model of entry.models) {
        const byName = lookup.find(model.name)?.value
        const bySlug = lookup.find(model.slug)?.value
        if (byName === undefined || byName !== bySlug)
          t.fail(`${entry.name} ${model.name} (${model.slug}): ${byName}, ${bySlug}`)
        canonical.add(byName!)
        models++
      }
      if (canonical.size !== entry.models.length)
        t.fail(`${entry.name}: ${entry.models.length} models, ${canonical.size} names`)
    }
    t.equal(catalogue.makes.length, 179)
    t.equal(models, 2275, 'every model of the catalogue resolved')
  },
)
