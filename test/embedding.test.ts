import { execFile } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { request } from 'undici'
import { build, freshDir, rows, serve, toCsv } from './support.js'

// 24 Golfs 2017, every other one a diesel, every third automatic.
const data = rows(24, (i) => ({
  price: 40_000 + i * 1_000,
  mileage_km: 80_000 + i * 5_000,
  fuel_type: i % 2 === 0 ? 'Diesel' : 'Benzyna',
  gearbox: i % 3 === 0 ? 'Automatyczna' : 'Manualna',
  first_seen: `2026-0${(i % 6) + 4}-10`,
  last_seen: '2026-09-20',
}))

/**
 * Another program, in plain JavaScript: it imports the package by its name from a folder
 * of its own, where `node_modules/carmarket` links to this package as `npm install PATH`
 * makes it, and prints what each question gave: `data`, or the error as its fields.
 */
const PROGRAM = `
import { ApiError, Snapshot } from 'carmarket'

const golf = { make: 'VW', model: 'Golf', year: 2017 }
const questions = {
  'left out': (s) => s.valuation(golf),
  'undefined': (s) => s.valuation({ ...golf, fuel_type: undefined, gearbox: undefined, mileage: undefined }),
  'null': (s) => s.valuation({ ...golf, fuel_type: null, gearbox: null, mileage: null }),
  'diesel': (s) => s.valuation({ ...golf, fuel_type: 'diesel' }),
  'ON and A': (s) => s.valuation({ ...golf, fuel_type: 'ON', gearbox: 'A' }),
  'year as text': (s) => s.valuation({ ...golf, year: '2017' }),
  'mileage as text': (s) => s.valuation({ ...golf, mileage: ' 100000 ' }),
  'mileage': (s) => s.valuation({ ...golf, mileage: 100000 }),
  'price history': (s) => s.priceHistory(golf),
  'months as text': (s) => s.priceHistory({ ...golf, months: '3' }),
  'liquidity': (s) => s.liquidity({ ...golf, year: '2017' }),
  'factors': (s) => s.valuationFactors(golf),
  'regional': (s) => s.regional(golf),
  'filters null elsewhere': (s) => s.regional({ ...golf, fuel_type: null, gearbox: undefined, mileage: null }),

  'year 2017.0': (s) => s.valuation({ ...golf, year: '2017.0' }),
  'year abc': (s) => s.valuation({ ...golf, year: 'abc' }),
  'year 1899': (s) => s.valuation({ ...golf, year: 1899 }),
  'year missing': (s) => s.valuation({ make: 'VW', model: 'Golf' }),
  'model missing': (s) => s.valuation({ make: 'VW', year: 2017 }),
  'make empty': (s) => s.valuation({ ...golf, make: '' }),
  'mileage 0': (s) => s.valuation({ ...golf, mileage: 0 }),
  'months 25': (s) => s.priceHistory({ ...golf, months: 25 }),
  'fuel steam': (s) => s.valuation({ ...golf, fuel_type: 'steam' }),
  'gearbox cvt': (s) => s.valuation({ ...golf, gearbox: 'cvt' }),
  'colour': (s) => s.regional({ ...golf, colour: 'red' }),
  'far mileage': (s) => s.valuation({ ...golf, mileage: 900000 }),

  'year true': (s) => s.valuation({ ...golf, year: true }),
  'year in an array': (s) => s.valuation({ ...golf, year: [2017] }),
  'year 2017.5': (s) => s.valuation({ ...golf, year: 2017.5 }),
  'mileage NaN': (s) => s.valuation({ ...golf, mileage: NaN }),
  'mileage object': (s) => s.valuation({ ...golf, mileage: {} }),
  'make number': (s) => s.valuation({ ...golf, make: 42 }),
  'fuel number': (s) => s.valuation({ ...golf, fuel_type: 1 }),
  'no parameters': (s) => s.valuation(),
  'parameters text': (s) => s.valuation('make=VW&model=Golf&year=2017'),
}

const snapshot = Snapshot.open(process.argv[2])
const results = {}
for (const [label, ask] of Object.entries(questions)) {
  try {
    results[label] = { data: ask(snapshot) }
  } catch (error) {
    const refused = error instanceof ApiError
    results[label] = refused ? { error: { ...error.toJSON(), status: error.status } } : { thrown: String(error) }
  }
}
await snapshot.close()
process.stdout.write(JSON.stringify(results))
`

type Result = { data?: Record<string, unknown>; error?: Record<string, unknown>; thrown?: string }

function runProgram(dir: string, snapshots: string): Promise<Record<string, Result>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(dir, 'program.mjs'), snapshots],
      { cwd: dir, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error !== null) reject(new Error(`${error.message}\n${stderr}`))
        else resolve(JSON.parse(stdout) as Record<string, Result>)
      },
    )
  })
}

t.test('a plain JavaScript program gets what the HTTP API gives, refusals included', async (t) => {
  const { snapshots } = await build(t, toCsv(data))
  const program = freshDir(t)
  mkdirSync(join(program, 'node_modules'))
  symlinkSync(fileURLToPath(new URL('../../', import.meta.url)), join(program, 'node_modules', 'carmarket'), 'dir')
  writeFileSync(join(program, 'program.mjs'), PROGRAM)
  const results = await runProgram(program, snapshots)

  const { base } = await serve(t, { snapshots, demoQuota: 1000, publicUrl: 'https://example.test' })
  const http = async (path: string): Promise<Result> => {
    const response = await request(`${base}/v1/market/${path}`)
    const body = (await response.body.json()) as { data?: Record<string, unknown>; error?: Record<string, unknown> }
    if (body.data === undefined) return { error: { ...body.error, status: response.statusCode } }
    const { credits_used: _used, credits_remaining: _remaining, ...data } = body.data
    return { data }
  }
  const golf = 'make=VW&model=Golf&year=2017'
  const same: [string, string][] = [
    ['left out', `valuation?${golf}`],
    ['undefined', `valuation?${golf}`],
    ['null', `valuation?${golf}`],
    ['diesel', `valuation?${golf}&fuel_type=diesel`],
    ['ON and A', `valuation?${golf}&fuel_type=ON&gearbox=A`],
    ['year as text', `valuation?${golf}`],
    ['mileage as text', `valuation?${golf}&mileage=100000`],
    ['mileage', `valuation?${golf}&mileage=100000`],
    ['price history', `price-history?${golf}`],
    ['months as text', `price-history?${golf}&months=3`],
    ['liquidity', `liquidity?${golf}`],
    ['factors', `valuation-factors?${golf}`],
    ['regional', `regional?${golf}`],
    ['filters null elsewhere', `regional?${golf}`],
    ['year 2017.0', 'valuation?make=VW&model=Golf&year=2017.0'],
    ['year abc', 'valuation?make=VW&model=Golf&year=abc'],
    ['year 1899', 'valuation?make=VW&model=Golf&year=1899'],
    ['year missing', 'valuation?make=VW&model=Golf'],
    ['model missing', 'valuation?make=VW&year=2017'],
    ['make empty', 'valuation?make=&model=Golf&year=2017'],
    ['mileage 0', `valuation?${golf}&mileage=0`],
    ['months 25', `price-history?${golf}&months=25`],
    ['fuel steam', `valuation?${golf}&fuel_type=steam`],
    ['gearbox cvt', `valuation?${golf}&gearbox=cvt`],
    ['colour', `regional?${golf}&colour=red`],
    ['far mileage', `valuation?${golf}&mileage=900000`],
  ]
  for (const [label, path] of same) t.same(results[label], await http(path), `${label}: as GET /v1/market/${path}`)
  t.equal(results['left out']!.data!.sample_size, 24)
  t.equal((results.diesel!.data!.filters as Record<string, unknown>).fuel_type, 'Diesel')
  t.equal(results['price history']!.data!.months_requested, 6, 'months left out is the default')

  // Types a query string cannot carry: refused, naming the parameter and the type.
  const refused: [string, string, RegExp][] = [
    ['year true', 'year', /^year must be an integer from 1900 to 2027, not a boolean$/],
    ['year in an array', 'year', /, not an array$/],
    ['year 2017.5', 'year', /^year must be an integer from 1900 to 2027$/],
    ['mileage NaN', 'mileage', /^mileage must be an integer from 1 to 3000000$/],
    ['mileage object', 'mileage', /, not an object$/],
    ['make number', 'make', /^make must be a string, not a number$/],
    ['fuel number', 'fuel_type', /^fuel_type must be one of Benzyna .*\(a string, not a number\)$/],
  ]
  for (const [label, parameter, message] of refused) {
    t.match(results[label], { error: { code: 'INVALID_PARAMETER', status: 400, parameter, message } }, label)
  }
  for (const label of ['no parameters', 'parameters text']) {
    t.match(
      results[label],
      { error: { code: 'INVALID_PARAMETER', status: 400, message: /^The parameters must be an object/ } },
      label,
    )
  }
  t.notOk(
    Object.values(results).some((r) => r.thrown !== undefined),
    'every failure is an ApiError',
  )
})
