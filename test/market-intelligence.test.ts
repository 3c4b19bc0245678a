import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import t, { type Test } from 'tap'
import { runBuild } from '../build/run-build.js'
import { DuckReference, type Ask } from './duckdb-reference.js'
import {
  account,
  freshDir,
  names,
  reference,
  row,
  rows,
  serve,
  toCsv,
  writeExport,
  type Row,
  type Served,
} from './support.js'

// Data contract section 5 over real HTTP, every figure compared with DuckDB's for the same export file.

let seed = 11
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648

/** Polo 2017: exactly 10 listings, not in price order; sorted 36,000 38,000 39,500 41,000 ... 49,999 52,000. */
const POLO_PRICES = [41_000, 39_500, 45_250, 38_000, 52_000, 47_800, 43_100, 49_999, 36_000, 44_000]
const polo = POLO_PRICES.map((price, i) => row({ model: 'Polo', price, mileage_km: 60_000 + ((i * 7) % 10) * 15_000 }))

const FUELS = ['Benzyna', 'Diesel', 'Diesel', 'Hybryda', '']
const GEARS = ['Manualna', 'Automatyczna', 'Manualna', '']
/** Golf 2017: 1,000 listings on a 250 PLN grid (many ties, a few half złoty), cheaper with mileage, every field mixed. */
const golf2017 = rows(1000, (i) => {
  const mileage = 20_000 + Math.round(next() * 230_000)
  return {
    price: 25_000 + Math.round((60_000 - 0.12 * mileage + next() * 30_000) / 250) * 250 + (i % 97 === 0 ? 0.5 : 0),
    mileage_km: i % 11 === 0 ? '' : mileage,
    fuel_type: FUELS[Math.floor(next() * FUELS.length)]!,
    gearbox: GEARS[Math.floor(next() * GEARS.length)]!,
  }
})
/** Golf 2018: an odd number of listings, 1,001 (k = 470, level 95.0). */
const golf2018 = rows(1001, () => ({
  year: 2018,
  price: 30_000 + Math.round(next() * 40_000),
  mileage_km: 10_000 + Math.round(next() * 150_000),
}))
/**
 * Caddy 2017: 40 listings priced at half a złoty but the cheapest, 30,000 exactly: the interval's ends round half away
 * from zero, and asking 30,000 sits at 100 x 0.5 / 40 = 1.25, which rounds to 1.3.
 */
const caddy = rows(40, (i) => ({
  model: 'Caddy',
  price: i === 0 ? 30_000 : 30_000.5 + i * 250,
  mileage_km: 200_000 - i * 3_000 + Math.round(next() * 20_000),
}))
/** Passat 2016: every price and every mileage the same. */
const passat = rows(15, () => ({ model: 'Passat', year: 2016, price: 45_000, mileage_km: 150_000 }))
/** Tiguan 2019: 17 known mileages of 20; of its 12 Diesels only 9 are known. */
const tiguan = rows(20, (i) => ({
  model: 'Tiguan',
  year: 2019,
  fuel_type: i < 12 ? 'Diesel' : 'Benzyna',
  mileage_km: i < 3 ? '' : 40_000 + i * 6_000,
  price: 110_000 - i * 1_300 + Math.round(next() * 4_000),
}))
/** Touran 2019: 12 listings, 9 known mileages. */
const touran = rows(12, (i) => ({
  model: 'Touran',
  year: 2019,
  mileage_km: i < 3 ? '' : 50_000 + i * 9_000,
  price: 70_000 - i * 800,
}))
/** Octavia listings per production year: [year, Diesel, Benzyna]. 2012 has 9 (left out), 2013 exactly 10. */
const OCTAVIA: [number, number, number][] = [
  [2012, 9, 0],
  [2013, 10, 0],
  [2014, 10, 4],
  [2015, 8, 4],
  [2016, 11, 9],
  [2018, 5, 5],
]
const octavia = OCTAVIA.flatMap(([year, diesel, petrol]) =>
  rows(diesel + petrol, (i) => ({
    make: 'Skoda',
    model: 'Octavia',
    year,
    fuel_type: i < diesel ? 'Diesel' : 'Benzyna',
    price: 20_000 + (year - 2010) * 6_500 + Math.round(next() * 9_000),
  })),
)
/** BMW: Seria 3 and 3GT (the 3 Series family); 2015 reaches 10 listings only when they are pooled. */
const BMW: [string, number, number][] = [
  ['Seria 3', 2015, 6],
  ['3GT', 2015, 5],
  ['Seria 3', 2016, 10],
  ['3GT', 2016, 2],
  ['Seria 3', 2017, 10],
]
const bmw = BMW.flatMap(([model, year, n]) =>
  rows(n, () => ({ make: 'BMW', model, year, price: 40_000 + (year - 2015) * 9_000 + Math.round(next() * 12_000) })),
)
/**
 * Fox: 10 listings a year, 2008 to 2011, with medians of 100.5, 106.5, 152.5 and 195.5: the trend of these is 26.6 % a
 * year, of the medians rounded (101, 107, 153, 196) 26.4 %.
 */
const fox = [100.5, 106.5, 152.5, 195.5].flatMap((median, y) =>
  rows(10, (i) => ({
    model: 'Fox',
    year: 2008 + y,
    price: i < 5 ? Math.max(100, median - 0.5 - 3 * i) : median + 0.5 + 3 * (i - 5),
  })),
)
/** Makes with equal counts (MG before Maserati in code-point order) and small Volkswagen models. */
const others = [
  ...rows(7, () => ({ make: 'Audi', model: 'A4' })),
  ...rows(7, () => ({ make: 'Maserati', model: 'Ghibli' })),
  ...rows(7, () => ({ make: 'MG', model: 'ZS' })),
  ...rows(3, () => ({ model: 'Golf Plus' })),
  ...rows(3, () => ({ model: 'up!' })),
]
const MARKET: Row[] = [
  ...golf2017.slice(0, 500),
  ...polo,
  ...golf2018,
  ...octavia,
  ...passat,
  ...golf2017.slice(500),
  ...tiguan,
  ...bmw,
  ...touran,
  ...caddy,
  ...fox,
  ...others,
]

/** The export written to a file, the snapshot built from that file, DuckDB over the same file. */
async function published(t: Test, data: readonly Row[]): Promise<{ duck: DuckReference; snapshots: string }> {
  const path = writeExport(t, 'export.csv', toCsv(data))
  const snapshots = join(dirname(path), 'snapshots')
  const report = await runBuild({ input: path, snapshots, asOf: '2026-09-30' })
  t.equal(report.listings_kept, data.length, 'the build keeps every row DuckDB reads')
  return { duck: await DuckReference.open(t, path), snapshots }
}

/** A server on the snapshot and an account with credits for every call here. */
async function market(t: Test, snapshots: string, demoQuota = 1000): Promise<Served & { key: string }> {
  const ledger = freshDir(t)
  const { key } = await account(ledger, 'analityk@example.pl', 1_000_000)
  return { ...(await serve(t, { snapshots, ledger, demoQuota })), key }
}

function valuationPath(ask: Ask, askingPrice?: number | string): string {
  const query = new URLSearchParams({ make: ask.make, model: ask.models[0]!, year: String(ask.year) })
  if (ask.fuel_type !== undefined) query.set('fuel_type', ask.fuel_type)
  if (ask.gearbox !== undefined) query.set('gearbox', ask.gearbox)
  if (ask.mileage !== undefined) query.set('mileage', String(ask.mileage))
  if (askingPrice !== undefined) query.set('asking_price', String(askingPrice))
  return `/v1/market/valuation?${query}`
}

const golf: Ask = { make: 'Volkswagen', models: ['Golf'], year: 2017 }
const poloKey: Ask = { make: 'Volkswagen', models: ['Polo'], year: 2017 }
const passatKey: Ask = { make: 'Volkswagen', models: ['Passat'], year: 2016 }
const tiguanKey: Ask = { make: 'Volkswagen', models: ['Tiguan'], year: 2019 }
const caddyKey: Ask = { make: 'Volkswagen', models: ['Caddy'], year: 2017 }

/** Every valuation case: a name, the listings asked about, the asking prices tried on it. */
const VALUATIONS: [string, Ask, number[]][] = [
  ['Polo 2017, n = 10', poloKey, [44_000, 39_875, 39_874, 47_162, 47_163, 36_000]],
  ['Golf 2017, n = 1,000', golf, [1, 10_000_000, 76_000, 84_000, 92_000]],
  ['Golf 2017, Diesel', { ...golf, fuel_type: 'Diesel' }, [85_000, 95_000]],
  ['Golf 2017, automatic', { ...golf, gearbox: 'Automatyczna' }, [78_000, 86_000]],
  ['Golf 2017, Diesel manual', { ...golf, fuel_type: 'Diesel', gearbox: 'Manualna' }, [80_000, 90_000]],
  ['Golf 2017 around 120,000 km', { ...golf, mileage: 120_000 }, [80_000, 86_000]],
  ['Golf 2017, Benzyna around 80,000 km', { ...golf, fuel_type: 'Benzyna', mileage: 80_000 }, [88_000, 100_000]],
  ['Golf 2017, automatic around 200,000 km', { ...golf, gearbox: 'Automatyczna', mileage: 200_000 }, [70_000, 76_000]],
  ['Golf 2018, n = 1,001', { ...golf, year: 2018 }, [40_000, 50_000, 60_000]],
  ['Caddy 2017, prices of half a złoty', caddyKey, [30_000, 30_001, 35_000]],
  ['Caddy 2017 around 150,000 km', { ...caddyKey, mileage: 150_000 }, [30_000, 36_000]],
  ['Passat 2016, every price and mileage equal', passatKey, [45_000, 44_999, 45_001]],
  ['Passat 2016 at its one mileage', { ...passatKey, mileage: 150_000 }, [45_000]],
  ['Tiguan 2019, 17 known mileages of 20', tiguanKey, [100_000]],
  ['Tiguan 2019 Diesel, 9 known mileages of 12', { ...tiguanKey, fuel_type: 'Diesel' }, [100_000]],
  ['Tiguan 2019 Benzyna, 8 listings', { ...tiguanKey, fuel_type: 'Benzyna' }, []],
  ['Touran 2019, 9 known mileages of 12', { make: 'Volkswagen', models: ['Touran'], year: 2019 }, [65_000]],
]

t.test('the DuckDB reference agrees with the figures worked out by hand', async (t) => {
  const { duck } = await published(t, MARKET)
  t.strictSame(
    await duck.confidence(poloKey),
    { n: 10, k: 2, median_low: 38_000, median_high: 49_999, level_pct: 97.9 },
    'n = 10: [x(2), x(9)] at 100 (1 - 2 x 11/1024) %',
  )
  // n = 15: B(3) = 576/32768 <= 0.025 < B(4) = 1941/32768, so k = 4 and the level is 96.48 %.
  t.strictSame(
    await duck.confidence(passatKey),
    {
      n: 15,
      k: 4,
      median_low: 45_000,
      median_high: 45_000,
      level_pct: 96.5,
    },
    'n = 15, every price equal',
  )
  t.match(await duck.confidence({ ...golf, year: 2018 }), { n: 1001, k: 470, level_pct: 95 }, 'n = 1,001')
  t.match(await duck.confidence(golf), { n: 1000, k: 469, level_pct: 95.4 }, 'n = 1,000')
  // Polo: p25 = 39,500 + 0.25 x 1,500 = 39,875; p75 = 45,250 + 0.75 x 2,550 = 47,162.5.
  const asking = async (a: number) => duck.askingPrice(poloKey, a)
  t.strictSame(await asking(44_000), { price: 44_000, percentile: 55, verdict: 'fair' }, 'a listed price counts half')
  t.strictSame(await asking(39_875), { price: 39_875, percentile: 30, verdict: 'fair' }, 'exactly p25 is fair')
  t.strictSame(await asking(39_874), { price: 39_874, percentile: 30, verdict: 'below_market' }, 'under p25')
  t.strictSame(await asking(47_162), { price: 47_162, percentile: 70, verdict: 'fair' }, 'under the unrounded p75')
  t.strictSame(
    await asking(47_163),
    { price: 47_163, percentile: 70, verdict: 'above_market' },
    'over the unrounded p75',
  )
  t.strictSame(await asking(36_000), { price: 36_000, percentile: 5, verdict: 'below_market' }, 'the lowest price')
  t.strictSame(
    await duck.askingPrice(passatKey, 45_000),
    { price: 45_000, percentile: 50, verdict: 'fair' },
    'all tied',
  )
  t.equal(await duck.mileageEffect(passatKey), null, 'all mileages equal')
  t.equal(await duck.mileageEffect({ ...tiguanKey, fuel_type: 'Diesel' }), null, '9 known mileages')
  t.equal((await duck.mileageEffect(tiguanKey))?.sample_size, 17, 'Tiguan: 17 known mileages')
  const golfEffect = await duck.mileageEffect(golf)
  t.equal(golfEffect?.sample_size, 1000 - 91, 'every 11th Golf has no mileage')
  t.ok(golfEffect!.pct_per_10000_km < 0, 'the Golf loses value with mileage')
  // The same two Golf figures the plain way: sorted prices, and the textbook least-squares slope.
  const sorted = golf2017.map((r) => Number(r.price)).sort((a, b) => a - b)
  t.match(
    await duck.confidence(golf),
    { median_low: reference.round(sorted[468]!), median_high: reference.round(sorted[531]!) },
    'n = 1,000: [x(469), x(532)]',
  )
  const known = golf2017.filter((r) => r.mileage_km !== '')
  const x = known.map((r) => Number(r.mileage_km))
  const y = known.map((r) => Math.log(Number(r.price)))
  const [mx, my] = [reference.mean(x), reference.mean(y)]
  const slope = x.reduce((s, xi, i) => s + (xi - mx) * (y[i]! - my), 0) / x.reduce((s, xi) => s + (xi - mx) ** 2, 0)
  t.equal(golfEffect!.pct_per_10000_km, reference.round(100 * (Math.exp(10_000 * slope) - 1), 1), 'Golf slope')
  t.strictSame(
    (await duck.depreciation('Skoda', ['Octavia'])).curve.map((p) => [p.year, p.sample_size]),
    [
      [2013, 10],
      [2014, 14],
      [2015, 12],
      [2016, 20],
      [2018, 10],
    ],
    'Octavia: the years with 10 listings',
  )
  t.strictSame(
    (await duck.depreciation('BMW', ['Seria 3', '3GT'])).curve.map((p) => [p.year, p.sample_size]),
    [
      [2015, 11],
      [2016, 12],
      [2017, 10],
    ],
    'BMW 3 Series: the pooled years',
  )
  t.equal((await duck.depreciation('BMW', ['Seria 3'])).annual_change_pct, null, 'two points')
  t.strictSame(
    await duck.depreciation('Volkswagen', ['Fox']),
    {
      curve: [
        { year: 2008, median: 101, sample_size: 10 },
        { year: 2009, median: 107, sample_size: 10 },
        { year: 2010, median: 153, sample_size: 10 },
        { year: 2011, median: 196, sample_size: 10 },
      ],
      annual_change_pct: 26.6,
    },
    'Fox: medians rounded half away from zero, the trend from the unrounded ones',
  )
  const caddyInterval = await duck.confidence(caddyKey)
  t.equal(caddyInterval.median_low % 250, 1, 'Caddy: x(k) of half a złoty rounds up')
  t.strictSame(
    await duck.askingPrice(caddyKey, 30_000),
    { price: 30_000, percentile: 1.3, verdict: 'below_market' },
    'Caddy: 1.25 rounds half away from zero',
  )
})

t.test('valuation: confidence, mileage effect, adjusted value and asking price against DuckDB', async (t) => {
  const { duck, snapshots } = await published(t, MARKET)
  const { get, key } = await market(t, snapshots)
  for (const [name, ask, askingPrices] of VALUATIONS) {
    const n = await duck.sampleSize(ask)
    const plain = await get(valuationPath(ask), { key })
    if (n < 10) {
      t.equal(plain.status, 404, `${name}: fewer than 10 listings`)
      t.equal(plain.body.error?.code, 'INSUFFICIENT_DATA', name)
      continue
    }
    t.equal(plain.status, 200, name)
    const data = plain.body.data ?? {}
    t.equal(data.sample_size, n, `${name}: sample_size`)
    const { median_low, median_high, level_pct } = await duck.confidence(ask)
    t.strictSame(data.confidence, { median_low, median_high, level_pct }, `${name}: confidence`)
    t.strictSame(data.mileage_effect, await duck.mileageEffect(ask), `${name}: mileage_effect`)
    t.strictSame(data.adjusted, await duck.adjusted(ask), `${name}: adjusted`)
    t.equal(data.asking_price, null, `${name}: asking_price without one asked`)
    for (const price of askingPrices) {
      const asked = await get(valuationPath(ask, price), { key })
      t.equal(asked.status, 200, `${name}, asking ${price}`)
      t.strictSame(asked.body.data?.asking_price, await duck.askingPrice(ask, price), `${name}: asking_price ${price}`)
      t.strictSame(asked.body.data?.confidence, data.confidence, `${name}, asking ${price}: the same confidence`)
    }
  }
})

t.test('valuation: the cases the figures are built to tell apart', async (t) => {
  const { duck, snapshots } = await published(t, MARKET)
  const { get, key } = await market(t, snapshots)
  const data = async (ask: Ask, askingPrice?: number) => {
    const answer = await get(valuationPath(ask, askingPrice), { key })
    t.equal(answer.status, 200, valuationPath(ask, askingPrice))
    return answer.body.data ?? {}
  }

  const polo = await data(poloKey)
  t.strictSame(
    polo.confidence,
    { median_low: 38_000, median_high: 49_999, level_pct: 97.9 },
    'Polo n = 10: [x(2), x(9)]',
  )

  // A price many listings share: the half count of ties.
  for (const ask of [golf, { ...golf, fuel_type: 'Diesel', gearbox: 'Manualna' }, { ...golf, mileage: 150_000 }]) {
    const tied = await duck.sharedPrice(ask)
    t.ok(tied.listings >= 3, `${valuationPath(ask)}: a price shared by ${tied.listings} listings`)
    t.strictSame(
      (await data(ask, tied.price)).asking_price,
      await duck.askingPrice(ask, tied.price),
      `${valuationPath(ask)}: asking a price ${tied.listings} listings share`,
    )
  }

  const fit = await duck.mileageEffect(golf)
  t.strictSame((await data(golf)).mileage_effect, fit, 'Golf: the fit over every known mileage')
  for (const mileage of [60_000, 120_000, 200_000]) {
    const windowed = await data({ ...golf, mileage })
    t.strictSame(windowed.mileage_effect, fit, `Golf around ${mileage} km: the window does not narrow the fit`)
    t.strictSame(windowed.adjusted, await duck.adjusted({ ...golf, mileage }), `Golf adjusted to ${mileage} km`)
    t.ok(windowed.sample_size < fit!.sample_size, `Golf around ${mileage} km: the window is narrower than the fit`)
  }
  t.not(
    (await data({ ...golf, fuel_type: 'Diesel' })).mileage_effect?.sample_size,
    fit!.sample_size,
    'Golf Diesel: the fuel filter narrows the fit',
  )

  const tiguanDiesel = await data({ ...tiguanKey, fuel_type: 'Diesel' })
  t.equal(tiguanDiesel.sample_size, 12, 'Tiguan Diesel: 12 listings value it')
  t.equal(tiguanDiesel.mileage_effect, null, 'Tiguan Diesel: 9 known mileages fit nothing')
  t.not((await data(tiguanKey)).mileage_effect, null, 'Tiguan: 17 known mileages fit')

  const flat = await data({ ...passatKey, mileage: 150_000 })
  t.equal(flat.mileage_effect, null, 'Passat: equal mileages have no slope')
  t.equal(flat.adjusted, null, 'Passat: no adjusted value without a slope')
  t.strictSame(
    flat.confidence,
    { median_low: 45_000, median_high: 45_000, level_pct: 96.5 },
    'Passat: all prices equal',
  )
  t.equal((await data(golf)).adjusted, null, 'no adjusted value without a mileage')

  const thin = await get(valuationPath({ ...golf, mileage: 3_000 }), { key })
  t.equal(thin.status, 404, 'a window under 10 listings stays a 404 though the fit has hundreds')
  t.equal(thin.body.error?.code, 'INSUFFICIENT_DATA', 'Golf around 3,000 km: the code')

  const full = await data(poloKey, 44_000)
  t.strictSame(
    Object.keys(full),
    [
      'make',
      'model',
      'year',
      'matched',
      'currency',
      'filters',
      'valuation',
      'sample_size',
      'confidence',
      'mileage_effect',
      'adjusted',
      'asking_price',
      'credits_used',
      'credits_remaining',
    ],
    'the members in the documented order',
  )
})

t.test('valuation: asking_price is an integer PLN from 1 to 10,000,000', async (t) => {
  const { snapshots } = await published(t, MARKET)
  const { get, key } = await market(t, snapshots)
  for (const value of ['0', '10000001', '1.5', 'abc', '', '-5', '1e3']) {
    const answer = await get(`${valuationPath(poloKey)}&asking_price=${encodeURIComponent(value)}`, { key })
    t.equal(answer.status, 400, `asking_price=${value}`)
    t.equal(answer.body.error?.code, 'INVALID_PARAMETER', `asking_price=${value}`)
    t.equal(answer.body.error?.parameter, 'asking_price', `asking_price=${value}`)
  }
  for (const value of [1, 10_000_000]) {
    t.equal((await get(valuationPath(poloKey, value), { key })).status, 200, `asking_price=${value}`)
  }
})

/** Depreciation cases: a name, the make and model asked, the canonical models pooled, the fuel filter. */
const DEPRECIATION: [string, string, string, string[], string | undefined][] = [
  ['Octavia: 2012 with 9 listings out, 2013 with 10 in', 'Skoda', 'Octavia', ['Octavia'], undefined],
  ['Octavia Diesel: three years reach 10', 'Skoda', 'Octavia', ['Octavia'], 'Diesel'],
  ['BMW 3 Series: Seria 3 and 3GT pooled', 'BMW', '3 Series', ['Seria 3', '3GT'], undefined],
  ['BMW Seria 3 alone: two points', 'BMW', 'Seria 3', ['Seria 3'], undefined],
  ['Fox: the trend of the unrounded medians', 'Volkswagen', 'Fox', ['Fox'], undefined],
  ['Golf: two points', 'Volkswagen', 'Golf', ['Golf'], undefined],
  ['Golf Diesel', 'Volkswagen', 'Golf', ['Golf'], 'Diesel'],
]

t.test('depreciation: yearly medians and the trend against DuckDB', async (t) => {
  const { duck, snapshots } = await published(t, MARKET)
  const { get, key } = await market(t, snapshots)
  let remaining: number | undefined
  for (const [name, make, model, models, fuel] of DEPRECIATION) {
    const query = new URLSearchParams({ make, model, ...(fuel === undefined ? {} : { fuel_type: fuel }) })
    const answer = await get(`/v1/market/depreciation?${query}`, { key })
    t.equal(answer.status, 200, name)
    const expected = await duck.depreciation(make, models, fuel)
    t.strictSame(answer.body.data?.curve, expected.curve, `${name}: curve`)
    t.equal(answer.body.data?.annual_change_pct, expected.annual_change_pct, `${name}: annual_change_pct`)
    t.strictSame(
      answer.body.data && Object.keys(answer.body.data),
      ['make', 'model', 'matched', 'currency', 'curve', 'annual_change_pct', 'credits_used', 'credits_remaining'],
      `${name}: members`,
    )
    t.equal(answer.body.data?.make, make, name)
    t.equal(answer.body.data?.model, model, name)
    t.strictSame(answer.body.data?.matched.models, models, `${name}: matched models`)
    t.equal(answer.body.data?.currency, 'PLN', name)
    t.equal(answer.body.data?.credits_used, 10, `${name}: credits_used`)
    if (remaining !== undefined) t.equal(answer.body.data?.credits_remaining, remaining - 10, `${name}: charged 10`)
    remaining = answer.body.data?.credits_remaining
  }
  const family = await get('/v1/market/depreciation?make=BMW&model=3%20Series', { key })
  t.strictSame(
    names(family.body.data!.matched),
    { makes: ['BMW'], models: ['Seria 3', '3GT'], match_type: 'family' },
    'BMW 3 Series: matched',
  )
  t.not(family.body.data?.annual_change_pct, null, 'the family has three points')

  for (const [name, path] of [
    ['3GT alone: no year with 10', '/v1/market/depreciation?make=BMW&model=3GT'],
    ['Octavia Benzyna: 9 at most in a year', '/v1/market/depreciation?make=Skoda&model=Octavia&fuel_type=Benzyna'],
    ['Octavia electric: none', '/v1/market/depreciation?make=Skoda&model=Octavia&fuel_type=Elektryczny'],
  ] as const) {
    const answer = await get(path, { key })
    t.equal(answer.status, 404, name)
    t.equal(answer.body.error?.code, 'INSUFFICIENT_DATA', name)
  }
  const withYear = await get('/v1/market/depreciation?make=Skoda&model=Octavia&year=2016', { key })
  t.equal(withYear.status, 400, 'a year is not a parameter of depreciation')
  t.equal(withYear.body.error?.code, 'INVALID_PARAMETER', 'depreciation with a year: the code')
  t.equal(withYear.body.error?.parameter, 'year', 'depreciation with a year: the parameter')
  const demo = await get('/v1/market/depreciation?make=Skoda&model=Octavia')
  t.equal(demo.status, 200, 'the demo tier answers depreciation')
  t.strictSame(
    demo.body.data?.curve,
    (await duck.depreciation('Skoda', ['Octavia'])).curve,
    'demo tier: the same curve',
  )
})

const ALIASES = JSON.parse(readFileSync(new URL('../../build/aliases.json', import.meta.url), 'utf8')) as {
  makes: { name: string; families?: { name: string; models: string[] }[] }[]
}
/** The families of the curated alias table that stand for a model. */
const familiesOf = (make: string, model: string) =>
  (ALIASES.makes.find((m) => m.name === make)?.families ?? [])
    .filter((f) => f.models.includes(model))
    .map((f) => f.name)

t.test('catalogue: makes and models with their listings, years and families against DuckDB', async (t) => {
  const { duck, snapshots } = await published(t, MARKET)
  const { get, key } = await market(t, snapshots)
  const makes = await get('/v1/catalog/makes')
  t.equal(makes.status, 200, 'makes')
  t.strictSame(makes.body.data, { makes: await duck.makes() }, 'makes: counts, most first, then code-point order')
  t.strictSame(
    (await duck.makes()).slice(-3).map((m) => m.make),
    ['Audi', 'MG', 'Maserati'],
    'the fixture ties three makes',
  )

  for (const [asked, make, matchType] of [
    ['Volkswagen', 'Volkswagen', 'exact'],
    ['VW', 'Volkswagen', 'alias'],
    ['BMW', 'BMW', 'exact'],
    ['skoda', 'Skoda', 'normalized'],
  ] as const) {
    const answer = await get(`/v1/catalog/models?make=${encodeURIComponent(asked)}`)
    t.equal(answer.status, 200, `models of ${asked}`)
    const models = (await duck.models(make)).map((m) => ({ ...m, families: familiesOf(make, m.model) }))
    t.strictSame(
      answer.body.data,
      { make: asked, matched: { makes: [make], match_type: matchType }, models },
      `models of ${asked}`,
    )
  }
  const vw = await duck.models('Volkswagen')
  t.strictSame(
    vw.find((m) => m.model === 'Golf'),
    { model: 'Golf', listings: 2001, years: [2017, 2018] },
    'the Golf in the reference',
  )
  t.strictSame(familiesOf('BMW', '3GT'), ['3 Series'], 'the curated table puts 3GT in the 3 Series')

  const unknown = await get('/v1/catalog/models?make=Zzyzx')
  t.equal(unknown.status, 404, 'an unknown make')
  t.equal(unknown.body.error?.code, 'INSUFFICIENT_DATA', 'an unknown make: the code')
  t.ok(Array.isArray(unknown.body.error?.suggestions), 'an unknown make is offered suggestions')
  const missing = await get('/v1/catalog/models')
  t.equal(missing.status, 400, 'models without a make')
  t.equal(missing.body.error?.code, 'INVALID_PARAMETER', 'models without a make: the code')
  t.equal(missing.body.error?.parameter, 'make', 'models without a make: the parameter')

  const balance = async () => (await get('/v1/account/me', { key })).body.data?.credits_remaining as number
  const before = await balance()
  t.strictSame((await get('/v1/catalog/makes', { key })).body.data?.makes, await duck.makes(), 'makes with a key')
  t.equal((await get('/v1/catalog/models?make=VW', { key })).status, 200, 'models with a key')
  t.equal(await balance(), before, 'the catalogue is free')
})

t.test('catalogue: keyless calls do not use the demo quota', async (t) => {
  const { snapshots } = await published(t, MARKET)
  const { get } = await market(t, snapshots, 2)
  for (let i = 0; i < 4; i++) {
    t.equal((await get('/v1/catalog/makes')).status, 200, `keyless makes ${i + 1}`)
    t.equal((await get('/v1/catalog/models?make=VW')).status, 200, `keyless models ${i + 1}`)
  }
  t.equal((await get(valuationPath(poloKey))).status, 200, 'the first demo call after the catalogue')
  t.equal((await get(valuationPath(poloKey))).status, 200, 'the second demo call')
  const over = await get(valuationPath(poloKey))
  t.equal(over.status, 429, 'the third demo call is over a quota of 2')
  t.equal(over.body.error?.code, 'DEMO_LIMIT_REACHED', 'the third demo call: the code')
  t.equal((await get('/v1/catalog/makes')).status, 200, 'the catalogue still answers past the demo quota')
})
