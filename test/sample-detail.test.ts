import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ENGINE_CAPACITY_CM3 } from '../format/bounds.js'
import { DETAIL_COLUMNS } from '../format/export-columns.js'
import { BODY_TYPES, FUEL_TYPES, bodyTypeCode, fuelCode, gearboxCode } from '../format/vocabulary.js'
import { CATALOGUE } from '../sample/catalogue.js'
import { automaticOnly, engineFuel, modelDetail, type ModelDetail } from '../sample/detail.js'
import { generateExport } from '../sample/generate.js'

/**
 * The sample's detail columns: versions, generations, bodies, power and displacement of
 * the most listed models, as a real Otomoto export has them (blanks, dirt, the marketplace's
 * names of today), read back from a generated export.
 */

const DETAILED = [
  'Volkswagen Golf',
  'Volkswagen Passat',
  'Volkswagen Polo',
  'Volkswagen Tiguan',
  'Skoda Octavia',
  'Skoda Fabia',
  'Skoda Superb',
  'BMW Seria 3',
  'BMW Seria 5',
  'BMW X5',
  'Toyota Corolla',
  'Toyota Yaris',
  'Toyota RAV4',
  'Opel Astra',
  'Opel Insignia',
  'Opel Corsa',
  'Audi A4',
  'Audi A6',
  'Audi A3',
  'Mercedes-Benz Klasa C',
  'Mercedes-Benz Klasa E',
  'Ford Focus',
  'Ford Mondeo',
  'Renault Clio',
  'Renault Megane',
]
/** Otomoto's 2026 names of the A4 by body, and the body each stands for. */
const A4_BY_BODY: Readonly<Record<string, string>> = {
  'A4 Avant': 'Kombi',
  'A4 Limousine': 'Sedan',
  'A4 Cabrio': 'Kabriolet',
}

type Row = Record<string, string>

const dir = t.testdir()
const out = join(dir, 'detail.csv')
await generateExport({ out, listings: 100_000, seed: 'detail', asOf: '2026-09-30', gzip: false })
const rows = parseCsv(readFileSync(out, 'utf8'))
const tables = new Map<string, ModelDetail>()
for (const make of CATALOGUE)
  for (const model of make.models) {
    const detail = modelDetail(make.name, model.name)
    if (detail !== undefined) tables.set(`${make.name} ${model.name}`, detail)
  }
// An earlier sighting filed under another model of the make carries its listing's detail: such listings are left out.
const models = new Map<string, Set<string>>()
for (const row of rows) models.set(row.listing_id!, (models.get(row.listing_id!) ?? new Set()).add(row.model!))
const filedOnce = rows.filter((row) => models.get(row.listing_id!)!.size === 1 && Number(row.year) >= 1900)
/** The catalogue name of a row written as the catalogue names it (the A4 by body as `A4`), or undefined. */
const nameOf = (row: Row) =>
  `${row.make === 'Škoda' ? 'Skoda' : row.make} ${row.make === 'Audi' && row.model! in A4_BY_BODY ? 'A4' : row.model}`
const catalogued = new Set(CATALOGUE.flatMap((make) => make.models.map((m) => `${make.name} ${m.name}`)))
const detailed = filedOnce.filter((row) => tables.has(nameOf(row)))

t.test('the most listed models have a table, the others none', async (t) => {
  t.same([...tables.keys()].sort(), [...DETAILED].sort())
  const others = filedOnce.filter((row) => catalogued.has(nameOf(row)) && !tables.has(nameOf(row)))
  t.ok(others.length > 30_000, `${others.length} listings of other models`)
  t.same(
    others.filter((row) => DETAIL_COLUMNS.some((c) => row[c] !== '')).map((row) => row.listing_id),
    [],
    'no listing of another model has detail',
  )
  for (const name of DETAILED) {
    const own = detailed.filter((row) => nameOf(row) === name)
    t.ok(
      own.some((row) => row.version !== '' && row.generation !== '' && row.body_type !== '' && row.power_hp !== ''),
      `${name}: listings with every detail (${own.length} listings)`,
    )
  }
})

t.test('every version is one of its model, sold in its year with its fuel and gearbox', async (t) => {
  const wrong: string[] = []
  let checked = 0
  for (const row of detailed) {
    const table = tables.get(nameOf(row))!
    const year = Number(row.year)
    const fuelIndex = fuelCode(row.fuel_type!)
    const fuel = fuelIndex === undefined ? undefined : engineFuel(FUEL_TYPES[fuelIndex]!)
    const manual = gearboxCode(row.gearbox!) === 0
    if (row.version !== '') {
      checked++
      const fits = table.versions.some(
        (v) =>
          comparable(v.text) === comparable(row.version!) &&
          v.years[0] <= year &&
          year <= v.years[1] &&
          (fuel === undefined || v.fuel === fuel) &&
          !(manual && automaticOnly(v)),
      )
      if (!fits) wrong.push(`${nameOf(row)} ${year} ${row.fuel_type} ${row.gearbox}: ${row.version}`)
    }
    const generations = table.generations.filter((g) => g.years[0] <= year && year <= g.years[1])
    if (row.generation !== '' && !generations.some((g) => g.text === row.generation))
      wrong.push(`${nameOf(row)} ${year}: generation ${row.generation}`)
    const body = bodyTypeCode(row.body_type!)
    if (body !== undefined && !generations.some((g) => BODY_TYPES[body]! in g.bodies))
      wrong.push(`${nameOf(row)} ${year}: body ${row.body_type}`)
  }
  t.ok(checked > 20_000, `${checked} versions checked`)
  t.same(wrong.slice(0, 20), [], `${wrong.length} listings whose detail does not fit`)
})

t.test('a version is priced as the market prices it: a Golf GTI well above a 1.0 or 1.5 TSI', async (t) => {
  // Priced against the median of the petrol Golfs of their year, so years of unlike mixes can be pooled.
  const golfs = detailed.filter((row) => {
    const fuel = fuelCode(row.fuel_type!)
    const year = Number(row.year)
    return (
      nameOf(row) === 'Volkswagen Golf' &&
      row.currency === '' &&
      fuel !== undefined &&
      engineFuel(FUEL_TYPES[fuel]!) === 'Benzyna' &&
      year >= 2013 &&
      year <= 2022 &&
      Number(row.price) > 1000
    )
  })
  const byYear = new Map<string, number[]>()
  for (const row of golfs) byYear.set(row.year!, [...(byYear.get(row.year!) ?? []), Number(row.price)])
  const yearMedian = new Map([...byYear].map(([year, prices]) => [year, median(prices)]))
  const relative = (test: RegExp) =>
    golfs.filter((row) => test.test(row.version!)).map((row) => Number(row.price) / yearMedian.get(row.year!)!)
  const gti = relative(/\bGTI\b/)
  const tsi = relative(/^1\.[05] TSI\b/)
  t.ok(gti.length >= 10 && tsi.length >= 50, `${gti.length} GTIs, ${tsi.length} 1.0 and 1.5 TSIs`)
  const ratio = median(gti) / median(tsi)
  t.ok(ratio >= 1.3, `a GTI asks ${ratio.toFixed(2)} times a 1.0 or 1.5 TSI of its year`)
})

t.test('details are left out and spoiled as a real scrape has them', async (t) => {
  const share = (column: (typeof DETAIL_COLUMNS)[number]) =>
    detailed.filter((row) => row[column] === '').length / detailed.length
  t.ok(share('version') > 0.2 && share('version') < 0.4, `${share('version').toFixed(3)} give no version`)
  t.ok(share('generation') > 0.15 && share('generation') < 0.3, `${share('generation').toFixed(3)} no generation`)
  t.ok(share('body_type') < 0.06, `${share('body_type').toFixed(3)} no body type`)
  t.ok(share('power_hp') < 0.1, `${share('power_hp').toFixed(3)} no power`)

  const displacements = detailed.map((row) => Number(row.engine_capacity_cm3)).filter((cm3) => cm3 > 0)
  const mangled = displacements.filter((cm3) => cm3 > ENGINE_CAPACITY_CM3.max).length / displacements.length
  t.ok(mangled > 0.2 && mangled < 0.4, `${mangled.toFixed(3)} of the displacements read as 19683`)
  t.ok(
    detailed.some((row) => row.body_type === 'Pick-up' || row.body_type === 'Inny'),
    'body types that are none of the contract',
  )
  t.ok(
    detailed.some((row) => row.power_hp === '0' || row.power_hp === '15000'),
    'powers out of range',
  )
  t.ok(
    detailed.some((row) => row.version!.includes(',')) && detailed.some((row) => row.version!.includes('"')),
    'versions with a comma and with quotes, read back whole',
  )
})

t.test("today's marketplace names: the A4 by body, Opel's earlier names by year", async (t) => {
  const a4 = filedOnce.filter((row) => row.make === 'Audi' && (row.model === 'A4' || row.model! in A4_BY_BODY))
  const byBody = a4.filter((row) => row.model !== 'A4')
  const share = byBody.length / a4.length
  t.ok(share > 0.3 && share < 0.5, `${share.toFixed(3)} of the A4 listings named by body`)
  for (const name of Object.keys(A4_BY_BODY))
    t.ok(
      byBody.some((row) => row.model === name),
      `A4 listings as ${name}`,
    )
  t.same(
    byBody
      .filter((row) => {
        const body = bodyTypeCode(row.body_type!)
        return body !== undefined && BODY_TYPES[body] !== A4_BY_BODY[row.model!]
      })
      .map((row) => `${row.model}: ${row.body_type}`),
    [],
    'a name by body agrees with the body type',
  )

  // An earlier name is the renamed model's of its years only: the long tail lists no other name of a described model.
  const opel = filedOnce.filter((row) => row.make === 'Opel')
  const years = (model: string) => opel.filter((row) => row.model === model).map((row) => Number(row.year))
  for (const [earlier, later, from, until] of [
    ['Grandland X', 'Grandland', 2017, 2021],
    ['Crossland X', 'Crossland', 2017, 2020],
    ['Mokka X', 'Mokka', 2016, 2019],
  ] as const) {
    const sold = (year: number) => year >= from && year <= until
    const share = years(earlier).filter(sold).length / years(earlier).length
    t.equal(share, 1, `${earlier}: ${years(earlier).length} listings, all of ${from}-${until}`)
    t.ok(years(later).length > 0 && !years(later).some(sold), `${later}: none of ${from}-${until}`)
  }
})

t.test('the same seed gives the same bytes', async (t) => {
  const make = async (name: string) => {
    await generateExport({ out: join(dir, name), listings: 5000, seed: 'again', asOf: '2026-09-30', gzip: false })
    return readFileSync(join(dir, name), 'utf8')
  }
  t.equal(await make('a.csv'), await make('b.csv'))
})

/** A version as comparable whatever a scrape did to it: its words without a comment, quotes, or a slug's `ver-`. */
function comparable(version: string): string {
  return version
    .replace(/^ver-/, '')
    .replace(/, .*$/, '')
    .toLowerCase()
    .replace(/[^a-z\d]/g, '')
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** RFC 4180, as the generator writes it: quoted fields may hold commas, quotes and line breaks. */
function parseCsv(text: string): Row[] {
  const records: string[][] = []
  let record: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c !== '"') field += c
      else if (text[i + 1] === '"') field += text[++i]
      else quoted = false
    } else if (c === '"') quoted = true
    else if (c === ',') {
      record.push(field)
      field = ''
    } else if (c === '\n') {
      record.push(field)
      records.push(record)
      record = []
      field = ''
    } else field += c
  }
  const [header, ...data] = records
  return data.map((values) => Object.fromEntries(header!.map((name, i) => [name, values[i]!])))
}
