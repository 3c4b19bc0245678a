import t, { type Test } from 'tap'
import { request } from 'undici'
import { build, rows, serve, toCsv, filtersOf } from './support.js'

// 24 Golfs 2017 from 80,000 to 195,000 km, every other one a diesel, every third automatic;
// two more diesels without a mileage; 9 Polos.
const data = [
  ...rows(24, (i) => ({
    price: 40_000 + i * 1_000,
    mileage_km: 80_000 + i * 5_000,
    fuel_type: i % 2 === 0 ? 'Diesel' : 'Benzyna',
    gearbox: i % 3 === 0 ? 'Automatyczna' : 'Manualna',
  })),
  ...rows(2, () => ({ mileage_km: '' })),
  ...rows(9, () => ({ model: 'Polo' })),
]

async function caller(t: Test): Promise<(path: string) => Promise<{ status: number; error: any }>> {
  const { snapshots } = await build(t, toCsv(data))
  const { base } = await serve(t, { snapshots, demoQuota: 1000, publicUrl: 'https://example.test' })
  return async (path) => {
    const response = await request(`${base}${path}`)
    return { status: response.statusCode, error: ((await response.body.json()) as { error: unknown }).error }
  }
}

t.test('a mileage far from every listing names the ±30 % window and where the mileages are', async (t) => {
  const get = await caller(t)
  const far = await get('/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=900000')
  t.equal(far.status, 404)
  t.equal(far.error.code, 'INSUFFICIENT_DATA')
  t.equal(far.error.sample_size, 0)
  t.same(far.error.mileage_window, { from: 630_000, to: 1_170_000 })
  t.same(far.error.filters, filtersOf({ mileage: 900_000 }))
  t.equal(
    far.error.message,
    'No listings of Volkswagen Golf 2017 are within ±30 % of 900,000 km (630,000–1,170,000 km); ' +
      'at least 10 are needed. ' +
      'Of its listings, 24 have a known mileage, from 80,000 km to 195,000 km.',
  )

  const narrowed = await get(
    '/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=100000&fuel_type=diesel&gearbox=auto',
  )
  t.equal(narrowed.error.sample_size, 2)
  t.same(narrowed.error.mileage_window, { from: 70_000, to: 130_000 })
  t.same(narrowed.error.filters, filtersOf({ fuel_type: 'Diesel', gearbox: 'Automatyczna', mileage: 100_000 }))
  t.equal(
    narrowed.error.message,
    'Only 2 listings of Volkswagen Golf 2017 with fuel_type Diesel and gearbox Automatyczna ' +
      'are within ±30 % of 100,000 km (70,000–130,000 km); at least 10 are needed. ' +
      'Of its listings with fuel_type Diesel and gearbox Automatyczna, 4 have a known mileage, ' +
      'from 80,000 km to 170,000 km.',
  )

  const unknown = await get('/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=100000&fuel_type=lpg')
  t.match(unknown.error.message, /None of its listings with fuel_type Benzyna\+LPG has a known mileage\.$/)
  // The window's bounds are the whole km it keeps: ±30 % of 1 km keeps 1 km only.
  t.same((await get('/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=1')).error.mileage_window, {
    from: 1,
    to: 1,
  })
})

t.test('filters that leave too few listings are named, with what each left', async (t) => {
  const get = await caller(t)
  const both = await get('/v1/market/valuation?make=VW&model=Golf&year=2017&fuel_type=ON&gearbox=a')
  t.equal(both.status, 404)
  t.equal(both.error.code, 'INSUFFICIENT_DATA')
  t.equal(both.error.sample_size, 4)
  t.same(both.error.filters, filtersOf({ fuel_type: 'Diesel', gearbox: 'Automatyczna' }))
  t.equal(
    both.error.message,
    'Only 4 of the 26 listings of Volkswagen Golf 2017 have fuel_type Diesel and gearbox Automatyczna ' +
      '(14 have fuel_type Diesel, 8 gearbox Automatyczna); at least 10 are needed.',
  )
  const one = await get('/v1/market/valuation?make=VW&model=Golf&year=2017&gearbox=automatic')
  t.equal(
    one.error.message,
    'Only 8 of the 26 listings of Volkswagen Golf 2017 have gearbox Automatyczna; at least 10 are needed.',
  )
  const none = await get('/v1/market/valuation?make=VW&model=Golf&year=2017&fuel_type=hydrogen')
  t.equal(
    none.error.message,
    'None of the 26 listings of Volkswagen Golf 2017 has fuel_type Wodór; at least 10 are needed.',
  )
  t.equal(none.error.sample_size, 0)

  const thin = await get('/v1/market/valuation?make=VW&model=Polo&year=2017')
  t.equal(thin.error.message, 'Only 9 listings of Volkswagen Polo 2017 are in the data; at least 10 are needed.')
  t.notOk('filters' in thin.error, 'no filters, none named')
})

t.test(
  'an asking price on a key with too few listings is the 404 every thin key gets, wherever it is asked',
  async (t) => {
    const { snapshots } = await build(t, toCsv(data))
    const { get, post, fetch } = await serve(t, { snapshots, demoQuota: 1000, publicUrl: 'https://example.test' })
    const polo = 'make=VW&model=Polo&year=2017&asking_price=30000'
    const answer = await get(`/v1/market/valuation?${polo}`)
    t.equal(answer.status, 404)
    t.equal(answer.body.error.code, 'INSUFFICIENT_DATA')
    t.equal(answer.body.error.sample_size, 9)
    const chart = await fetch(`/v1/chart/valuation.svg?${polo}`)
    t.equal(chart.status, 404, 'the chart')
    const batch = await post('/v1/market/batch', {
      requests: [{ operation: 'valuation', make: 'VW', model: 'Polo', year: 2017, asking_price: 30_000 }],
    })
    t.equal(batch.status, 200)
    t.equal(batch.body.data.results[0].error.code, 'INSUFFICIENT_DATA', 'a batch item')
  },
)
