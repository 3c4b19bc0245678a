import t, { type Test } from 'tap'
import { request } from 'undici'
import { BODY_TYPES, FUEL_TYPES, GEARBOXES } from '../format/vocabulary.js'
import { REQUEST_VALUES } from '../query/value-aliases.js'
import { build, rows, serve, toCsv, filtersOf } from './support.js'

// Ten 2017 Golfs of every fuel and of every body type, those of every other fuel automatic: every spelling of every
// value has an answer.
const data = rows(Math.max(FUEL_TYPES.length, BODY_TYPES.length) * 10, (i) => ({
  price: 30_000 + i * 100,
  fuel_type: FUEL_TYPES[i % FUEL_TYPES.length]!,
  gearbox: GEARBOXES[(i % FUEL_TYPES.length) % 2]!,
  body_type: BODY_TYPES[i % BODY_TYPES.length]!,
}))

async function caller(t: Test): Promise<(query: string) => Promise<{ status: number; body: any }>> {
  const { snapshots } = await build(t, toCsv(data))
  const { base } = await serve(t, { snapshots, demoQuota: 100_000, publicUrl: 'https://example.test' })
  return async (query) => {
    const response = await request(`${base}/v1/market/valuation?make=VW&model=Golf&year=2017&${query}`)
    return { status: response.statusCode, body: await response.body.json() }
  }
}

t.test(
  'every spelling of fuel_type, gearbox and body_type, in any case, is answered with its canonical value',
  async (t) => {
    const valuation = await caller(t)
    for (const [parameter, vocabulary] of Object.entries(REQUEST_VALUES)) {
      for (const canonical of vocabulary.canonical as readonly string[]) {
        const spellings = [canonical, ...(vocabulary.aliases as Record<string, readonly string[]>)[canonical]!]
        for (const spelling of [
          ...spellings,
          ...spellings.map((s) => s.toUpperCase()),
          ...spellings.map((s) => ` ${s.toLowerCase()} `),
        ]) {
          const answer = await valuation(`${parameter}=${encodeURIComponent(spelling)}`)
          t.equal(answer.status, 200, `${parameter}=${spelling}`)
          t.equal(answer.body.data.filters[parameter], canonical, `${parameter}=${spelling} is ${canonical}`)
        }
      }
    }
  },
)

t.test('the spellings callers type most', async (t) => {
  const valuation = await caller(t)
  const expected: [string, string, string][] = [
    ['gearbox', 'auto', 'Automatyczna'],
    ['gearbox', 'automatic', 'Automatyczna'],
    ['gearbox', 'automat', 'Automatyczna'],
    ['gearbox', 'a', 'Automatyczna'],
    ['gearbox', 'AT', 'Automatyczna'],
    ['gearbox', 'automatyczna', 'Automatyczna'],
    ['gearbox', 'manual', 'Manualna'],
    ['gearbox', 'man', 'Manualna'],
    ['gearbox', 'M', 'Manualna'],
    ['gearbox', 'manualna', 'Manualna'],
    ['gearbox', 'ręczna', 'Manualna'],
    ['fuel_type', 'diesel', 'Diesel'],
    ['fuel_type', 'Diesel', 'Diesel'],
    ['fuel_type', 'ON', 'Diesel'],
    ['fuel_type', 'petrol', 'Benzyna'],
    ['fuel_type', 'benzyna', 'Benzyna'],
    ['fuel_type', 'gasoline', 'Benzyna'],
    ['fuel_type', 'Pb95', 'Benzyna'],
    ['fuel_type', 'lpg', 'Benzyna+LPG'],
    ['fuel_type', 'Benzyna + LPG', 'Benzyna+LPG'],
    ['fuel_type', 'hybrid', 'Hybryda'],
    ['fuel_type', 'plug-in hybrid', 'Hybryda Plug-in'],
    ['fuel_type', 'electric', 'Elektryczny'],
    ['fuel_type', 'ev', 'Elektryczny'],
    ['fuel_type', 'cng', 'Benzyna+CNG'],
    ['fuel_type', 'wodor', 'Wodór'],
  ]
  for (const [parameter, spelling, canonical] of expected) {
    const answer = await valuation(`${parameter}=${encodeURIComponent(spelling)}`)
    t.equal(answer.body.data?.filters[parameter], canonical, `${parameter}=${spelling}`)
    t.equal(
      answer.body.data?.sample_size,
      parameter === 'gearbox' ? data.filter((r) => r.gearbox === canonical).length : 10,
    )
  }
  const both = await valuation('fuel_type=on&gearbox=a')
  t.same(both.body.data.filters, filtersOf({ fuel_type: 'Diesel', gearbox: 'Automatyczna' }))
})

t.test('a value of none of them is a 400 that lists what is accepted', async (t) => {
  const valuation = await caller(t)
  for (const [parameter, value] of [
    ['gearbox', 'cvt'],
    ['gearbox', 'półautomatyczna'],
    ['fuel_type', 'steam'],
    ['fuel_type', 'gas'],
  ] as const) {
    const answer = await valuation(`${parameter}=${encodeURIComponent(value)}`)
    t.equal(answer.status, 400)
    t.equal(answer.body.error.code, 'INVALID_PARAMETER')
    t.equal(answer.body.error.parameter, parameter)
    const vocabulary = REQUEST_VALUES[parameter]
    t.same(answer.body.error.accepted, vocabulary.aliases, 'every canonical value with its aliases')
    for (const canonical of vocabulary.canonical as readonly string[]) {
      for (const spelling of [canonical, ...(vocabulary.aliases as Record<string, readonly string[]>)[canonical]!]) {
        t.ok(answer.body.error.message.includes(spelling), `the message names ${spelling}`)
      }
    }
  }
})
