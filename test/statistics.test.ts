import t from 'tap'
import { build, reference, row, rows, toCsv, vehicle, type Row, filtersOf } from './support.js'

// A deterministic, varied key: 80 listings of a 2017 Golf with every attribute mixed.
let seed = 7
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
const FUELS = ['Benzyna', 'Diesel', 'Diesel', 'Benzyna+LPG', 'Hybryda', '']
const GEARS = ['Manualna', 'Automatyczna', 'manual', '']
const REGIONS = ['mazowieckie', 'śląskie', 'łódzkie', 'lubuskie', 'lubelskie', 'pomorskie', '']
const golf = rows(80, (i) => ({
  price: 30_000 + Math.round(next() * 40_000) + (i % 7 === 0 ? 0.5 : 0),
  mileage_km: i % 9 === 0 ? '' : 60_000 + Math.round(next() * 120_000),
  fuel_type: FUELS[Math.floor(next() * FUELS.length)]!,
  gearbox: GEARS[Math.floor(next() * GEARS.length)]!,
  imported: ['true', 'false', 'false', ''][i % 4]!,
  voivodeship: REGIONS[Math.floor(next() * REGIONS.length)]!,
  first_seen: `2026-0${1 + (i % 8)}-${String(1 + (i % 27)).padStart(2, '0')}`,
  last_seen: `2026-09-${String(1 + (i % 29)).padStart(2, '0')}`,
  active: i % 3 === 0 ? 'true' : 'false',
}))
// Listings of other years and models, which must never leak into the Golf 2017 figures.
const others = [
  ...rows(12, () => ({ year: 2018, price: 999_999 })),
  ...rows(12, () => ({ model: 'Passat', price: 5_000 })),
]

const prices = (list: readonly Row[]) => list.map((r) => Number(r.price))
const canonicalFuel = (f: string) => f
const canonicalGear = (g: string) => (g === 'manual' ? 'Manualna' : g)

t.test('valuation: quartiles of the key, unfiltered and with each filter', async (t) => {
  const { snapshot } = await build(t, toCsv([...golf, ...others]))
  const all = snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017))
  t.same(all.valuation, reference.quartiles(prices(golf)))
  t.equal(all.sample_size, 80)
  t.same(all.filters, filtersOf())
  t.equal(all.currency, 'PLN')

  const diesel = golf.filter((r) => canonicalFuel(r.fuel_type) === 'Diesel')
  const byFuel = snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), fuel_type: 'Diesel' })
  t.same(byFuel.valuation, reference.quartiles(prices(diesel)))
  t.equal(byFuel.sample_size, diesel.length)
  t.same(byFuel.filters, filtersOf({ fuel_type: 'Diesel' }))

  const manual = golf.filter((r) => canonicalGear(r.gearbox) === 'Manualna')
  const byGear = snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), gearbox: 'Manualna' })
  t.same(byGear.valuation, reference.quartiles(prices(manual)))
  t.equal(byGear.sample_size, manual.length)

  for (const mileage of [100_000, 150_000, 80_000]) {
    const window = golf.filter(
      (r) => r.mileage_km !== '' && 0.7 * mileage <= Number(r.mileage_km) && Number(r.mileage_km) <= 1.3 * mileage,
    )
    t.ok(window.length >= 10, `the fixture has enough listings around ${mileage} km`)
    const byMileage = snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), mileage })
    t.same(byMileage.valuation, reference.quartiles(prices(window)), `mileage ${mileage}`)
    t.equal(byMileage.sample_size, window.length)
  }

  const combined = golf.filter(
    (r) =>
      r.mileage_km !== '' &&
      Math.abs(Number(r.mileage_km) - 120_000) <= 36_000 &&
      canonicalFuel(r.fuel_type) !== '' &&
      canonicalFuel(r.fuel_type) === 'Diesel',
  )
  const both = () =>
    snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), mileage: 120_000, fuel_type: 'Diesel' })
  if (combined.length >= 10) t.same(both().valuation, reference.quartiles(prices(combined)))
  else t.throws(both, { code: 'INSUFFICIENT_DATA', extra: { sample_size: combined.length } })
})

t.test('valuation: fuel and gearbox together, and the 10-listing threshold of a filter', async (t) => {
  const data = [
    ...rows(10, (i) => ({ fuel_type: 'Hybryda', gearbox: 'Automatyczna', price: 60_000 + i * 1000 })),
    ...rows(9, (i) => ({ fuel_type: 'Hybryda', gearbox: 'Manualna', price: 40_000 + i * 1000 })),
    ...rows(5, () => ({ fuel_type: 'Diesel', gearbox: 'Automatyczna', price: 55_000 })),
  ]
  const { snapshot } = await build(t, toCsv(data))
  const hybridAuto = snapshot.valuation({
    ...vehicle('Volkswagen', 'Golf', 2017),
    fuel_type: 'Hybryda',
    gearbox: 'Automatyczna',
  })
  t.same(hybridAuto.valuation, reference.quartiles(prices(data.slice(0, 10))))
  t.equal(hybridAuto.sample_size, 10)
  t.throws(
    () => snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), fuel_type: 'Hybryda', gearbox: 'Manualna' }),
    {
      code: 'INSUFFICIENT_DATA',
      status: 404,
      extra: { sample_size: 9 },
    },
  )
  t.equal(snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), fuel_type: 'Hybryda' }).sample_size, 19)
  t.throws(() => snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), fuel_type: 'Elektryczny' }), {
    code: 'INSUFFICIENT_DATA',
    extra: { sample_size: 0 },
  })
  t.throws(
    () => snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), fuel_type: 'Diesel', gearbox: 'Automatyczna' }),
    {
      code: 'INSUFFICIENT_DATA',
      extra: { sample_size: 5 },
    },
  )
})

t.test('valuation: the mileage window is inclusive at ±30% and drops unknown mileage', async (t) => {
  const inside = [70_000, 70_000, 85_000, 100_000, 100_000, 110_000, 120_000, 129_999, 130_000, 130_000]
  const data = [
    ...inside.map((m, i) => row({ mileage_km: m, price: 40_000 + i * 1500 })),
    ...[69_999, 130_001, 20_000, 300_000].map((m) => row({ mileage_km: m, price: 1_000_000 })),
    ...rows(5, () => ({ mileage_km: '', price: 2_000_000 })),
  ]
  const { snapshot } = await build(t, toCsv(data))
  const answer = snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), mileage: 100_000 })
  t.equal(answer.sample_size, 10)
  t.same(answer.valuation, reference.quartiles(inside.map((_, i) => 40_000 + i * 1500)))
  t.same(answer.filters, filtersOf({ mileage: 100_000 }))
  t.throws(() => snapshot.valuation({ ...vehicle('Volkswagen', 'Golf', 2017), mileage: 99_000 }), {
    code: 'INSUFFICIENT_DATA',
  })
})

t.test('money rounds half away from zero from unrounded inputs', async (t) => {
  // Mean 40,000.5 and median 40,000.5: both round up to 40,001.
  const data = rows(10, (i) => ({ price: i < 5 ? 40_000 : 40_001 }))
  const { snapshot } = await build(t, toCsv(data))
  const { valuation } = snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017))
  t.equal(valuation.average, 40_001)
  t.equal(valuation.median, 40_001)
  t.equal(valuation.p25, 40_000)
  t.equal(valuation.p75, 40_001)
})

t.test('every operation says INSUFFICIENT_DATA below 10 listings and answers at 10', async (t) => {
  const nine = rows(9, (i) => ({ model: 'Polo', price: 20_000 + i }))
  const ten = rows(10, (i) => ({ model: 'Up', price: 20_000 + i, first_seen: '2026-09-01', last_seen: '2026-09-10' }))
  const { snapshot } = await build(t, toCsv([...nine, ...ten]))
  const polo = vehicle('Volkswagen', 'Polo', 2017)
  for (const ask of [
    () => snapshot.valuation(polo),
    () => snapshot.priceHistory({ ...polo, months: 24 }),
    () => snapshot.liquidity(polo),
    () => snapshot.valuationFactors(polo),
    () => snapshot.regional(polo),
  ]) {
    t.throws(ask, { code: 'INSUFFICIENT_DATA', status: 404, extra: { sample_size: 9 } })
  }
  const up = vehicle('Volkswagen', 'Up', 2017)
  t.equal(snapshot.valuation(up).sample_size, 10)
  t.equal(snapshot.priceHistory({ ...up, months: 1 }).trend.length, 1)
  t.equal(snapshot.liquidity(up).sample_size, 10)
  t.equal(snapshot.regional(up).total_sample_size, 10)
  t.throws(() => snapshot.valuation(vehicle('Volkswagen', 'Up', 2016)), {
    code: 'INSUFFICIENT_DATA',
    extra: { sample_size: 0 },
  })
})

t.test('price-history: calendar months ending with the as-of month, empty months left out', async (t) => {
  const month = (m: string, n: number, price: number) =>
    rows(n, (i) => ({
      first_seen: `${m}-${String(1 + i).padStart(2, '0')}`,
      last_seen: '2026-09-29',
      price: price + i,
    }))
  const data = [
    ...month('2024-09', 4, 90_000), // before the 24-month window
    ...month('2024-10', 3, 80_000), // first month of the 24
    ...month('2026-03', 5, 60_000),
    ...month('2026-05', 6, 55_000),
    ...month('2026-09', 4, 50_000),
    row({ first_seen: '2026-07-31T23:30:00-01:00', last_seen: '2026-09-29', price: 51_000 }), // 2026-08-01 in UTC
  ]
  const { snapshot } = await build(t, toCsv(data), { asOf: '2026-09-30' })
  const golf = vehicle('Volkswagen', 'Golf', 2017)
  const avg = (m: string) =>
    reference.round(
      reference.mean(
        prices(
          data.filter((r) => r.first_seen.startsWith(m) || (m === '2026-08' && r.first_seen.startsWith('2026-07-31'))),
        ),
      ),
    )

  const six = snapshot.priceHistory({ ...golf, months: 6 })
  t.equal(six.months_requested, 6)
  t.same(six.trend, [
    { month: '2026-05', avg_price: avg('2026-05'), sample_size: 6 },
    { month: '2026-08', avg_price: 51_000, sample_size: 1 },
    { month: '2026-09', avg_price: avg('2026-09'), sample_size: 4 },
  ])
  const all = snapshot.priceHistory({ ...golf, months: 24 })
  t.same(
    all.trend.map((p) => [p.month, p.sample_size]),
    [
      ['2024-10', 3],
      ['2026-03', 5],
      ['2026-05', 6],
      ['2026-08', 1],
      ['2026-09', 4],
    ],
  )
  t.equal(all.trend[0]!.avg_price, avg('2024-10'))
  t.throws(() => snapshot.priceHistory({ ...golf, months: 1 }), {
    code: 'INSUFFICIENT_DATA',
    extra: { sample_size: 4 },
  })
})

t.test('liquidity: median span of closed listings plus the 13-day detection delay', async (t) => {
  const closed = [3, 10, 10, 12, 20, 25, 31, 40, 41, 60, 90, 120]
  const data = [
    ...closed.map((days) =>
      row({
        first_seen: '2026-05-01',
        last_seen: new Date(Date.UTC(2026, 4, 1 + days)).toISOString().slice(0, 10),
        active: 'false',
      }),
    ),
    ...rows(7, () => ({ first_seen: '2026-01-01', last_seen: '2026-09-30', active: 'true' })),
  ]
  const { snapshot } = await build(t, toCsv(data))
  const answer = snapshot.liquidity(vehicle('Volkswagen', 'Golf', 2017))
  const span = reference.round(reference.percentile(closed, 0.5))
  t.equal(answer.observed_listing_span, span)
  t.equal(answer.estimated_days_on_market, span + 13)
  t.equal(answer.active_listings, 7)
  t.equal(answer.sample_size, closed.length)
  t.match(answer.note, /13 days/)
})

t.test('valuation-factors: entries with 10 on each side, in the contract order', async (t) => {
  const { snapshot } = await build(t, toCsv([...golf, ...others]))
  const answer = snapshot.valuationFactors(vehicle('Volkswagen', 'Golf', 2017))
  t.equal(answer.total_sample_size, 80)
  const side = (label: string, list: readonly Row[]) => ({
    label,
    avg_price: reference.round(reference.mean(prices(list))),
    sample_size: list.length,
  })
  const entry = (
    dimension: string,
    baseLabel: string,
    base: readonly Row[],
    label: string,
    comparison: readonly Row[],
  ) => ({
    dimension,
    baseline: side(baseLabel, base),
    comparison: side(label, comparison),
    price_diff_percent: reference.pct(reference.mean(prices(comparison)), reference.mean(prices(base))),
  })
  const expected = []
  const domestic = golf.filter((r) => r.imported === 'false')
  const imported = golf.filter((r) => r.imported === 'true')
  expected.push(entry('import_status', 'Krajowy', domestic, 'Sprowadzony', imported))
  const manual = golf.filter((r) => canonicalGear(r.gearbox) === 'Manualna')
  const automatic = golf.filter((r) => r.gearbox === 'Automatyczna')
  if (manual.length >= 10 && automatic.length >= 10)
    expected.push(entry('gearbox', 'Manualna', manual, 'Automatyczna', automatic))
  const petrol = golf.filter((r) => r.fuel_type === 'Benzyna')
  const fuels = ['Diesel', 'Hybryda', 'Benzyna+LPG']
    .map((f) => ({ f, list: golf.filter((r) => r.fuel_type === f) }))
    .filter(({ list }) => list.length >= 10 && petrol.length >= 10)
    .sort((a, b) => b.list.length - a.list.length)
  for (const { f, list } of fuels) expected.push(entry('fuel_type', 'Benzyna', petrol, f, list))
  t.same(answer.factors, expected)
  t.ok(answer.factors.length >= 2, 'the fixture yields several entries')
})

t.test('valuation-factors: 404 when no comparison has 10 listings on both sides', async (t) => {
  const data = rows(12, (i) => ({ imported: i < 3 ? 'true' : 'false', gearbox: 'Manualna', fuel_type: 'Diesel' }))
  const { snapshot } = await build(t, toCsv(data))
  t.throws(() => snapshot.valuationFactors(vehicle('Volkswagen', 'Golf', 2017)), {
    code: 'INSUFFICIENT_DATA',
    status: 404,
  })
})

t.test('regional: known voivodeships only, by sample size then Polish alphabetical order', async (t) => {
  const region = (name: string, n: number, price: number) =>
    rows(n, (i) => ({ voivodeship: name, price: price + i * 10 }))
  const data = [
    ...region('łódzkie', 3, 40_000),
    ...region('lubuskie', 3, 44_000),
    ...region('Lubelskie', 3, 41_000),
    ...region('województwo mazowieckie', 5, 52_000),
    ...region('slaskie', 2, 47_000),
    ...region('', 4, 1_000_000),
  ]
  const { snapshot } = await build(t, toCsv(data))
  const answer = snapshot.regional(vehicle('Volkswagen', 'Golf', 2017))
  const known = data.filter((r) => r.voivodeship !== '')
  const national = reference.mean(prices(known))
  t.equal(answer.total_sample_size, 16)
  t.equal(answer.national_average, reference.round(national))
  const expected = (name: string, list: readonly Row[]) => ({
    region: name,
    avg_price: reference.round(reference.mean(prices(list))),
    sample_size: list.length,
    vs_national_pct: reference.pct(reference.mean(prices(list)), national),
  })
  t.same(answer.regions, [
    expected('mazowieckie', data.slice(9, 14)),
    expected('lubelskie', data.slice(6, 9)),
    expected('lubuskie', data.slice(3, 6)),
    expected('łódzkie', data.slice(0, 3)),
    expected('śląskie', data.slice(14, 16)),
  ])
  t.ok(
    answer.regions.some((r) => r.vs_national_pct < 0),
    'regions below the national average are negative',
  )
})
