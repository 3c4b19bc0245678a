import t from 'tap'
import {
  account,
  build,
  freshDir,
  names,
  reference,
  rows,
  serve,
  toCsv,
  toNdjson,
  vehicle,
  type Row,
  filtersOf,
  NOT_NARROWED,
} from './support.js'

/**
 * The car the caller means (data contract 1.1, 3.1, 4.1): the detail columns of an export,
 * the words after a model, engines and generations that name a model, body variants and
 * renamed models, and a re-sighted listing's first sighting.
 */

const golf = (n: number, fields: Partial<Row>, base: number) =>
  rows(n, (i) => ({
    make: 'Volkswagen',
    model: 'Golf',
    year: 2017,
    price: base + i * 500,
    mileage_km: 60_000 + i * 3000,
    fuel_type: 'Benzyna',
    generation: 'VII (2012-2019)',
    body_type: 'Kompakt',
    ...fields,
  }))

const GTI = golf(30, { version: '2.0 TSI GTI', power_hp: 230 }, 75_000)
const COMFORTLINE = golf(40, { version: '1.5 TSI Comfortline', power_hp: 130 }, 50_000)
const HIGHLINE = golf(
  40,
  { version: '2.0 TDI Highline', fuel_type: 'Diesel', power_hp: 150, gearbox: 'Automatyczna' },
  55_000,
).map((r, i) => ({ ...r, body_type: i < 20 ? 'Kombi' : 'Kompakt' }))
const R = golf(5, { version: '2.0 TSI R 4Motion', power_hp: 300 }, 120_000)
const NO_VERSION = golf(20, { version: '', power_hp: '' }, 45_000)
const GOLFS = [...GTI, ...COMFORTLINE, ...HIGHLINE, ...R, ...NO_VERSION]

const car = (make: string, model: string, year: number, n: number, fields: Partial<Row> = {}, base = 40_000) =>
  rows(n, (i) => ({ make, model, year, price: base + i * 700, mileage_km: 50_000 + i * 4000, ...fields }))

function market(): Row[] {
  return [
    ...GOLFS,
    // No listing of these says its version: words that would narrow by it cannot be told (rule 3).
    ...car('Toyota', 'Corolla', 2019, 20, { fuel_type: 'Hybryda' }, 80_000),
    ...car('Toyota', 'Corolla', 2019, 20, { fuel_type: 'Benzyna' }, 60_000),
    ...car('BMW', 'Seria 3', 2018, 15, { version: '320d xDrive M Sport', generation: 'F30/F31 (2012-2020)' }, 90_000),
    ...car('BMW', 'Seria 3', 2018, 12, { version: '318d', generation: 'F30/F31 (2012-2020)' }, 70_000),
    ...car('BMW', 'Seria 3', 2018, 12, { version: '320i', fuel_type: 'Benzyna', generation: 'F30/F31' }, 75_000),
    ...car('Mercedes-Benz', 'Klasa E', 2014, 12, { generation: 'W212 (2009-2016)', version: '220 CDI Avantgarde' }),
    ...car('Mercedes-Benz', 'Klasa E', 2014, 3, { generation: 'W211 (2002-2009)' }),
    // Today's marketplace names a body variant on its own (A4 Avant), an older export writes the base model and its body.
    ...car('Audi', 'A4 Avant', 2019, 12, { body_type: 'Kombi' }, 90_000),
    ...car('Audi', 'A4 Limousine', 2019, 11, { body_type: 'Sedan' }, 85_000),
    ...car('Audi', 'A4', 2019, 10, { body_type: 'Kombi' }, 91_000),
    ...car('Audi', 'A4', 2019, 5, { body_type: 'Sedan' }, 84_000),
    ...car('Audi', 'A4 Allroad', 2019, 10, { body_type: 'Kombi' }, 120_000),
    ...car('Audi', 'S4 Avant', 2019, 3, { body_type: 'Kombi' }, 180_000),
    ...car('Audi', 'RS4 Avant', 2019, 2, { body_type: 'Kombi' }, 300_000),
    ...car('Audi', 'TT Coupé', 2016, 10, { body_type: 'Coupe' }, 90_000),
    ...car('Audi', 'TT S Coupé', 2016, 10, { body_type: 'Coupe' }, 130_000),
    // A pool whose base the catalogue does not list: only one of its variants is in the data.
    ...car('Audi', 'R8 Coupé', 2015, 10, { body_type: 'Coupe' }, 400_000),
    // Named as a model and a body word, and another car all the same: the table keeps it apart.
    ...car('Hyundai', 'Genesis', 2012, 10, { body_type: 'Sedan' }, 40_000),
    ...car('Hyundai', 'Genesis Coupe', 2012, 10, { body_type: 'Coupe' }, 30_000),
    ...car('Volkswagen', 'Golf Sportsvan', 2017, 10, {}, 55_000),
    // A renamed model: one car under both names.
    ...car('Opel', 'Grandland X', 2019, 12, {}, 70_000),
    ...car('Opel', 'Grandland', 2022, 10, {}, 100_000),
  ]
}

const prices = (data: readonly Row[]) => data.map((r) => Number(r.price))

t.test('detail words after a model narrow its listings, never dropped in silence (4.1)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const gti = snapshot.valuation(vehicle('VW', 'Golf GTI', 2017))
  t.equal(gti.sample_size, GTI.length, 'Golf GTI: the GTIs alone, not every Golf')
  t.same(gti.valuation, reference.quartiles(prices(GTI)))
  t.same(gti.matched, {
    makes: ['Volkswagen'],
    models: ['Golf'],
    match_type: 'alias',
    ...NOT_NARROWED,
    version_words: ['GTI'],
  })
  t.equal(gti.model, 'Golf GTI', 'the answer echoes the request as given')
  // A GTI at 60,000 PLN is cheap for a GTI, whatever it is against every Golf.
  const asked = snapshot.valuation({ ...vehicle('VW', 'Golf GTI', 2017), asking_price: 60_000 })
  t.equal(asked.asking_price?.verdict, 'below_market')

  const tdi = snapshot.valuation(vehicle('Volkswagen', 'Golf 2.0 TDI', 2017))
  t.equal(tdi.sample_size, HIGHLINE.length, 'a badge names the fuel, a displacement is a version word')
  t.equal(tdi.matched.fuel_type, 'Diesel')
  t.same(tdi.matched.version_words, ['2.0'])
  t.equal(tdi.filters.fuel_type, 'Diesel', 'filters name the fuel applied')

  const estate = snapshot.valuation(vehicle('Volkswagen', 'Golf Kombi', 2017))
  t.equal(estate.sample_size, 20, 'a body word narrows the body type')
  t.equal(estate.matched.body_type, 'Kombi')
  const dsg = snapshot.valuation(vehicle('Volkswagen', 'Golf DSG', 2017))
  t.equal(dsg.sample_size, HIGHLINE.length, 'a gearbox word narrows the gearbox')
  t.equal(dsg.matched.gearbox, 'Automatyczna')
  const hyphen = snapshot.valuation(vehicle('Volkswagen', 'Golf-GTI', 2017))
  t.equal(hyphen.sample_size, GTI.length, 'words joined by punctuation are words too')

  const generation = snapshot.valuation(vehicle('VW', 'Golf VII', 2017))
  t.equal(generation.sample_size, GOLFS.length, 'a generation word matches the generation')
  t.same(generation.matched.version_words, ['VII'])
  t.equal(snapshot.valuation(vehicle('VW', 'Golf 7', 2017)).sample_size, GOLFS.length, 'Golf 7 means the VII')
})

t.test('the versions too rare to answer are a 404 naming the most listed (4.1, rule 4)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  t.throws(() => snapshot.valuation(vehicle('VW', 'Golf R', 2017)), {
    code: 'INSUFFICIENT_DATA',
    extra: {
      sample_size: R.length,
      suggestions: ['1.5 TSI Comfortline', '2.0 TDI Highline', '2.0 TSI GTI', '2.0 TSI R 4Motion'],
    },
  })
  t.throws(() => snapshot.valuation(vehicle('VW', 'Golf GTI Kombi', 2017)), {
    code: 'INSUFFICIENT_DATA',
    extra: { sample_size: 0 },
  })
})

t.test('words the data cannot tell: the answer is broader and says which (4.1, rule 3)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const sport = snapshot.valuation(vehicle('Toyota', 'Corolla Comfort Plus', 2019))
  t.equal(sport.sample_size, 40, 'every Corolla: none of them tells its version')
  t.same(sport.matched.unresolved, ['Comfort', 'Plus'])
  t.same(sport.matched.version_words, [])
  t.equal(sport.matched.match_type, 'broader')
  const hybrid = snapshot.valuation(vehicle('Toyota', 'Corolla Hybrid', 2019))
  t.equal(hybrid.sample_size, 20, 'a fuel word is told by the fuel column')
  t.equal(hybrid.matched.match_type, 'exact')
  t.equal(hybrid.matched.fuel_type, 'Hybryda')
  t.same(hybrid.valuation, reference.quartiles(prices(market().filter((r) => r.fuel_type === 'Hybryda'))))
})

t.test('an engine or a generation that names a model is detail of it (4.1)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const engine = snapshot.valuation(vehicle('BMW', '320d', 2018))
  t.equal(engine.sample_size, 15, '320d: the 320d listings, not every Seria 3')
  t.same(names(engine.matched), { makes: ['BMW'], models: ['Seria 3'], match_type: 'alias' })
  t.equal(engine.matched.fuel_type, 'Diesel', 'd after a BMW number is a diesel')
  t.same(engine.matched.version_words, ['320d'])
  t.equal(snapshot.valuation(vehicle('BMW', '3 Series 318d', 2018)).sample_size, 12, 'a family with an engine after it')
  t.equal(snapshot.valuation(vehicle('BMW', 'F30', 2018)).sample_size, 39, 'a chassis code matches the generation')
  const w212 = snapshot.valuation(vehicle('Mercedes', 'W212', 2014))
  t.equal(w212.sample_size, 12)
  t.same(w212.matched.models, ['Klasa E'])
  const e220 = snapshot.valuation(vehicle('Mercedes', 'E220', 2014))
  t.equal(e220.sample_size, 12, 'E220: the 220s of the Klasa E')
  t.same(e220.matched.version_words, ['220'])
})

t.test('a typo in the words of a longer model is that model, not a version word (4, step 5)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const sportsvan = snapshot.valuation(vehicle('VW', 'Golf Sportvan', 2017))
  t.same(names(sportsvan.matched), { makes: ['Volkswagen'], models: ['Golf Sportsvan'], match_type: 'fuzzy' })
  t.equal(sportsvan.sample_size, 10)
  const gti = snapshot.valuation(vehicle('VW', 'Golf Sportvan GTI', 2017))
  t.same(gti.matched.models, ['Golf Sportsvan'])
  t.same(gti.matched.unresolved, ['GTI'], 'the words after it are still detail')
  t.throws(
    () => snapshot.valuation(vehicle('VW', 'Golf Plux', 2017)),
    { code: 'INSUFFICIENT_DATA' },
    'none is near: a version word',
  )
})

t.test('a parameter that contradicts the words of the model is refused (4.1, rule 1)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  t.throws(() => snapshot.valuation({ ...vehicle('Toyota', 'Corolla Hybrid', 2019), fuel_type: 'diesel' }), {
    code: 'INVALID_PARAMETER',
    extra: { parameter: 'fuel_type' },
  })
  t.throws(() => snapshot.valuation({ ...vehicle('VW', 'Golf Kombi', 2017), body_type: 'Sedan' }), {
    code: 'INVALID_PARAMETER',
    extra: { parameter: 'body_type' },
  })
  t.throws(() => snapshot.valuation({ ...vehicle('Audi', 'A4 Avant', 2019), body_type: 'SUV' }), {
    code: 'INVALID_PARAMETER',
    extra: { parameter: 'body_type' },
  })
  t.throws(() => snapshot.valuation(vehicle('VW', 'Golf TDI TSI', 2017)), {
    code: 'INVALID_PARAMETER',
    extra: { parameter: 'model' },
  })
  t.throws(() => snapshot.valuation(vehicle('VW', 'Golf TDI LPG', 2017)), {
    code: 'INVALID_PARAMETER',
    extra: { parameter: 'model' },
  })
  // A petrol engine may run on gas: the gas word wins, and no Golf of the data does.
  t.throws(() => snapshot.valuation(vehicle('VW', 'Golf TSI LPG', 2017)), { code: 'INSUFFICIENT_DATA' })
  const same = snapshot.valuation({ ...vehicle('Toyota', 'Corolla Hybrid', 2019), fuel_type: 'hybrid' })
  t.equal(same.sample_size, 20, 'a parameter that agrees is welcome')
})

t.test('version, body_type and power_hp narrow every figure of a valuation and a depreciation (4.1)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const q = { ...vehicle('Volkswagen', 'Golf', 2017), version: 'TDI Highline', body_type: 'estate', power_hp: 140 }
  const kept = HIGHLINE.filter((r) => r.body_type === 'Kombi')
  const answer = snapshot.valuation({ ...q, mileage: 100_000, asking_price: 60_000 })
  t.same(answer.filters, filtersOf({ body_type: 'Kombi', version: 'TDI Highline', power_hp: 140, mileage: 100_000 }))
  const window = kept.filter((r) => Number(r.mileage_km) >= 70_000 && Number(r.mileage_km) <= 130_000)
  t.equal(answer.sample_size, window.length)
  t.same(answer.valuation, reference.quartiles(prices(window)))
  t.equal(answer.mileage_effect?.sample_size, kept.length, 'the fit takes the narrowed listings, every mileage')
  t.equal(answer.adjusted?.sample_size, kept.length)
  const below = window.filter((r) => Number(r.price) < 60_000).length
  const equal = window.filter((r) => Number(r.price) === 60_000).length
  t.equal(answer.asking_price?.percentile, reference.round((100 * (below + equal / 2)) / window.length, 1))
  t.same(answer.matched.version_words, ['TDI', 'Highline'])
  // ±10 %: 150 KM is within 140's 126-154, 230 is not.
  t.throws(() => snapshot.valuation({ ...q, power_hp: 300 }), { code: 'INSUFFICIENT_DATA', extra: { sample_size: 0 } })

  const curve = snapshot.depreciation({ make: 'VW', model: 'Golf GTI' })
  t.same(curve.curve, [
    { year: 2017, median: reference.round(reference.percentile(prices(GTI), 0.5)), sample_size: 30 },
  ])
  t.same(curve.matched.version_words, ['GTI'])
  const powered = snapshot.depreciation({ make: 'VW', model: 'Golf', power_hp: 130 })
  t.equal(powered.curve[0]?.sample_size, COMFORTLINE.length)
  t.throws(() => snapshot.depreciation({ make: 'VW', model: 'Golf R' }), { code: 'INSUFFICIENT_DATA' })
  const geared = snapshot.depreciation({ make: 'VW', model: 'Golf', gearbox: 'automatic' })
  t.equal(geared.curve[0]?.sample_size, HIGHLINE.length, 'depreciation takes a gearbox too')
})

t.test('a body variant stands for its body, the bare name for the base and every body variant (3.1)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const a4 = snapshot.valuation(vehicle('Audi', 'A4', 2019))
  t.equal(a4.sample_size, 12 + 11 + 10 + 5, 'A4: A4, A4 Avant and A4 Limousine; never Allroad, S4 or RS4')
  t.same(names(a4.matched), { makes: ['Audi'], models: ['A4', 'A4 Avant', 'A4 Limousine'], match_type: 'family' })
  const avant = snapshot.valuation(vehicle('Audi', 'A4 Avant', 2019))
  t.equal(avant.sample_size, 12 + 10, "A4 Avant: its own listings and the A4's estates")
  t.same(avant.matched.models, ['A4 Avant', 'A4'])
  t.equal(avant.matched.body_type, 'Kombi')
  t.same(avant.valuation, snapshot.valuation({ ...vehicle('Audi', 'A4', 2019), body_type: 'Kombi' }).valuation)
  t.same(avant.valuation, snapshot.valuation(vehicle('Audi', 'A4 Kombi', 2019)).valuation, 'whichever way it is named')
  t.equal(snapshot.valuation(vehicle('Audi', 'A4 Limousine', 2019)).sample_size, 16)
  t.equal(snapshot.valuation(vehicle('Audi', 'A4 Allroad', 2019)).sample_size, 10, 'an Allroad is another car')
  t.equal(snapshot.regional(vehicle('Audi', 'A4 Avant', 2019)).total_sample_size, 22, 'every operation knows a variant')

  const tt = snapshot.valuation(vehicle('Audi', 'TT', 2016))
  t.same(tt.matched.models, ['TT Coupé'], 'TT S stays apart from TT')
  const tts = snapshot.valuation(vehicle('Audi', 'TTS', 2016))
  t.same(tts.matched.models, ['TT S Coupé'])
  const r8 = snapshot.valuation(vehicle('Audi', 'R8', 2015))
  t.same(
    names(r8.matched),
    { makes: ['Audi'], models: ['R8 Coupé'], match_type: 'family' },
    'R8: its one listed variant',
  )
  const genesis = snapshot.valuation(vehicle('Hyundai', 'Genesis', 2012))
  t.same(names(genesis.matched).models, ['Genesis'], 'a Genesis Coupe is another car than a Genesis')
  t.equal(genesis.sample_size, 10)

  const catalogue = snapshot.catalogModels({ make: 'Audi' })
  const families = Object.fromEntries(catalogue.models.map((m) => [m.model, m.families]))
  t.same(families['A4 Avant'], ['A4'], 'the catalogue lists the families')
  t.same(families['A4 Allroad'], [])
})

t.test('a renamed model is one family under each of its names (3.1)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const old = snapshot.valuation(vehicle('Opel', 'Grandland', 2019))
  t.equal(old.sample_size, 12, 'Grandland 2019 answers from the Grandland X listings of 2019')
  t.same(names(old.matched), { makes: ['Opel'], models: ['Grandland', 'Grandland X'], match_type: 'family' })
  t.equal(snapshot.valuation(vehicle('Opel', 'Grandland X', 2022)).sample_size, 10, 'and the other way')
  t.same(
    snapshot.depreciation({ make: 'Opel', model: 'Grandland X' }).curve.map((p) => p.year),
    [2019, 2022],
  )
})

t.test('the other operations take the names only: their detail words are unresolved (4.1)', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const regional = snapshot.regional(vehicle('VW', 'Golf GTI', 2017))
  t.equal(regional.total_sample_size, GOLFS.length)
  t.same(regional.matched.unresolved, ['GTI'])
  t.equal(regional.matched.match_type, 'broader')
  t.same(snapshot.liquidity(vehicle('Toyota', 'Corolla Hybrid', 2019)).matched.unresolved, ['Hybrid'])
  t.same(snapshot.priceHistory(vehicle('VW', 'Golf', 2017)).matched.unresolved, [], 'none without detail')
})

t.test('the detail columns are read leniently: a bad value is set aside and counted, its row kept (1.1)', async (t) => {
  const odd = [
    ...golf(4, { body_type: 'Pick-up', power_hp: 0, engine_capacity_cm3: 19683 }, 40_000),
    ...golf(3, { body_type: 'kombi', power_hp: '150 KM', engine_capacity_cm3: 0 }, 40_000),
    ...golf(3, { version: ` ${'x'.repeat(130)}\u0007 `, power_hp: 1e9, engine_capacity_cm3: 'abc' }, 40_000),
  ]
  const { snapshot, report } = await build(t, toCsv(odd))
  t.equal(report.listings_kept, 10, 'every listing kept')
  t.same(report.values_ignored, { body_type: 4, power_hp: 10, engine_capacity_cm3: 7 })
  t.throws(() => snapshot.valuation({ ...vehicle('VW', 'Golf', 2017), body_type: 'Kombi' }), {
    code: 'INSUFFICIENT_DATA',
    extra: { sample_size: 3 },
  })
  // A version is kept as written, trimmed, its control characters spaces, cut at 120 characters.
  t.throws(() => snapshot.valuation({ ...vehicle('VW', 'Golf', 2017), version: 'nothing' }), {
    code: 'INSUFFICIENT_DATA',
    extra: { suggestions: ['x'.repeat(120)] },
  })
})

t.test('an NDJSON version or generation that is no text is set aside and counted, its row kept (1.1)', async (t) => {
  const rows = golf(10, { version: '2.0 TSI GTI' }, 40_000).map((r, i) =>
    i < 3 ? { ...r, version: { name: 'GTI' } } : i < 5 ? { ...r, generation: ['VII'] } : r,
  )
  const { snapshot, report } = await build(t, toNdjson(rows as unknown as Row[]))
  t.equal(report.listings_kept, 10, 'every listing kept')
  t.same(report.values_ignored, { version: 3, generation: 2 })
  const versions = snapshot.catalogVersions(vehicle('VW', 'Golf', 2017))
  t.same(
    versions.versions.map((v) => v.version),
    ['2.0 TSI GTI'],
    "no version of the object's text",
  )
  t.same(
    versions.generations.map((g) => g.generation),
    ['VII (2012-2019)'],
  )
})

t.test('a listing seen on several days was first seen on the first of them (1.1)', async (t) => {
  // A daily tracker appends a sighting a day: the later rows repeat the listing with a later first_seen.
  const first = car('Skoda', 'Octavia', 2016, 10, { first_seen: '2026-03-10', last_seen: '2026-03-12' })
  const later = first.map((r) => ({ ...r, first_seen: '2026-06-05', last_seen: '2026-06-20' }))
  const { snapshot, report } = await build(t, toCsv([...first, ...later]))
  t.equal(report.duplicates_dropped, 10)
  const history = snapshot.priceHistory({ ...vehicle('Skoda', 'Octavia', 2016), months: 12 })
  t.same(
    history.trend.map((p) => [p.month, p.sample_size]),
    [['2026-03', 10]],
    'counted in the month of its first sighting',
  )
  t.equal(snapshot.liquidity(vehicle('Skoda', 'Octavia', 2016)).observed_listing_span, 102, 'from March 10 to June 20')
})

t.test('bad detail parameters are 400 INVALID_PARAMETER, never charged, never a 500', async (t) => {
  const { snapshots } = await build(t, toCsv(market()))
  const ledger = freshDir(t)
  const { key } = await account(ledger, 'detail@example.com', 1000)
  const { get } = await serve(t, { snapshots, ledger })
  const base = '/v1/market/valuation?make=VW&model=Golf&year=2017'
  for (const [query, parameter] of [
    [`version=${'a'.repeat(500)}`, 'version'],
    ['version=GTI%00', 'version'],
    ['version=%20', 'version'],
    ['version=...', 'version'],
    ['power_hp=0', 'power_hp'],
    ['power_hp=1000000000', 'power_hp'],
    ['power_hp=150.5', 'power_hp'],
    ['body_type=Pickup', 'body_type'],
    ['body_type=', 'body_type'],
  ] as const) {
    const answer = await get(`${base}&${query}`, { key })
    t.equal(answer.status, 400, query)
    t.equal(answer.body.error.code, 'INVALID_PARAMETER')
    t.equal(answer.body.error.parameter, parameter)
    if (parameter === 'body_type') t.ok('accepted' in answer.body.error, 'the accepted values are listed')
  }
  const contradiction = await get(
    `/v1/market/valuation?make=Toyota&model=Corolla%20Hybrid&year=2019&fuel_type=diesel`,
    {
      key,
    },
  )
  t.equal(contradiction.status, 400)
  const me = await get('/v1/account/me', { key })
  t.equal(me.body.data.credits_remaining, 1000, 'no failed call was charged')
  const ok = await get(`/v1/market/valuation?make=VW&model=Golf%20GTI&year=2017`, { key })
  t.equal(ok.status, 200)
  t.same(ok.body.data.matched.version_words, ['GTI'])
  t.equal(ok.body.data.credits_remaining, 992)
  const depreciation = await get('/v1/market/depreciation?make=VW&model=Golf&version=GTI&body_type=Kompakt', { key })
  t.equal(depreciation.status, 200)
  t.equal(depreciation.body.data.curve[0].sample_size, 30)
  const unknown = await get('/v1/market/regional?make=VW&model=Golf&year=2017&version=GTI', { key })
  t.equal(unknown.status, 400, 'the other operations take no detail parameter')
})
