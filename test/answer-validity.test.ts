import { join } from 'node:path'
import fc from 'fast-check'
import { open } from 'lmdb'
import t from 'tap'
import { BuildError } from '../build/build-error.js'
import { MAX_MILEAGE, MAX_PRICE, MIN_PRICE } from '../format/bounds.js'
import { StoredAnswer, filterSelector } from '../format/rendered.js'
import {
  ANSWERS_OPTIONS,
  KEY_OPERATIONS,
  MAX_MILEAGE_EFFECT_PCT,
  MIN_LISTINGS,
  SNAPSHOT_FILE,
  type AnswerKey,
} from '../format/schema.js'
import { FUEL_ALIASES, FUEL_TYPES, GEARBOXES, UNKNOWN } from '../format/vocabulary.js'
import { ApiError } from '../query/api-error.js'
import type { Snapshot } from '../query/snapshot.js'
import { build, row, toCsv, type Row } from './support.js'

/*
 * Contract 2: "every number in an answer is finite", and no snapshot holding a non-finite
 * number or an answer that is not JSON is ever published. The build checks each answer as
 * it writes it; this test does not trust that check: it builds random exports, reads back
 * every answer of every key from the LMDB file itself, and asks the reader for the figures
 * it computes per request (a mileage window, a target mileage, an asking price).
 */

/** Spellings of one model as exports write them: display names, slugs, other cases, aliases. */
const CARS: readonly (readonly (readonly [make: string, model: string])[])[] = [
  [
    ['Volkswagen', 'Golf'],
    ['VW', 'golf'],
    ['volkswagen', 'GOLF'],
  ],
  [
    ['Mercedes-Benz', 'Klasa E'],
    ['mercedes-benz', 'e-klasa'],
    ['Mercedes', 'klasa-e'],
  ],
  [
    ['BMW', 'Seria 3'],
    ['bmw', 'seria-3'],
    ['BMW', '320d'],
  ],
  [
    ['Skoda', 'Octavia'],
    ['Škoda', 'octavia'],
  ],
  // A make neither the alias table nor the marketplace catalogue knows.
  [
    ['Izera', 'T100'],
    ['izera', 't100'],
  ],
]
// Every canonical fuel and English alias of the export (contract 3.2), and spellings that differ in case, spaces or accents.
const FUELS = [...FUEL_TYPES, ...Object.values(FUEL_ALIASES).flat(), 'BENZYNA + LPG', 'wodor']
const GEARS = ['Manualna', 'Automatyczna', 'manual', 'automatic', 'AUTOMATYCZNA', '']
const IMPORTED = ['true', 'false', '1', '0', 'tak', 'nie', '']
// Foreign regions and typos are kept with the voivodeship unknown (contract 1.1).
const REGIONS = [
  'mazowieckie',
  'MAZOWIECKIE',
  'śląskie',
  'slaskie',
  'województwo łódzkie',
  'pomorskie',
  'Berlin',
  'Moravian-Silesian Region',
  '',
]

/** The first day of the 24 months that end with the as-of day the test builds use, 2026-09-30. */
const WINDOW_START = Date.UTC(2024, 9, 1)
const WINDOW_DAYS = 729
const day = (n: number) => new Date(WINDOW_START + Math.min(n, WINDOW_DAYS) * 86_400_000).toISOString().slice(0, 10)

// fc.double favours 0 and the tiniest values, which would put most listings at one odometer reading.
const unit = fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000)

/** How a group's prices are spread; each listing places itself with a number u in [0, 1]. */
const priceShape = fc.oneof(
  fc.record({
    kind: fc.constant('spread' as const),
    base: fc.integer({ min: 1_000, max: 2_000_000 }),
    spread: fc.integer({ min: 0, max: 150 }).map((n) => n / 100),
  }),
  fc.record({ kind: fc.constant('identical' as const), price: fc.integer({ min: MIN_PRICE, max: MAX_PRICE }) }),
  // Five orders of magnitude, 100 to 10,000,000 PLN.
  fc.record({ kind: fc.constant('orders' as const) }),
  fc.record({ kind: fc.constant('bounds' as const) }),
  // Prices that follow the mileage, by an effect within and well beyond the ±20 % of contract 5.2.
  fc.record({
    kind: fc.constant('mileage' as const),
    base: fc.integer({ min: 5_000, max: 500_000 }),
    pct: fc.integer({ min: -800, max: 800 }).map((n) => n / 10),
  }),
)
type PriceShape = typeof priceShape extends fc.Arbitrary<infer S> ? S : never

const mileageAt = fc.oneof(
  fc.constantFrom(0, 1, 500, 999, 1_000, 150_000, MAX_MILEAGE),
  fc.integer({ min: 0, max: MAX_MILEAGE }),
)
/** How a group's odometers read: spread out, all the same, a few km apart, new-car readings, huge. */
const mileageShape = fc.oneof(
  fc.record({ kind: fc.constant('spread' as const), max: fc.constantFrom(300_000, MAX_MILEAGE) }),
  fc.record({ kind: fc.constant('same' as const), at: mileageAt }),
  fc.record({
    kind: fc.constant('narrow' as const),
    at: fc.integer({ min: 0, max: MAX_MILEAGE - 20 }),
    width: fc.integer({ min: 1, max: 20 }),
  }),
  fc.record({ kind: fc.constant('tiny' as const) }),
  // Two odometer readings about the 10,000 km interquartile range the fit needs.
  fc.record({
    kind: fc.constant('two' as const),
    at: fc.integer({ min: 0, max: MAX_MILEAGE - 10_010 }),
    gap: fc.integer({ min: 9_990, max: 10_010 }),
  }),
  fc.record({ kind: fc.constant('huge' as const) }),
)
type MileageShape = typeof mileageShape extends fc.Arbitrary<infer S> ? S : never

const listing = fc.record({
  spelling: fc.nat({ max: 2 }),
  price: unit,
  mileage: unit,
  mileageKnown: fc.nat({ max: 9 }),
  condition: fc.oneof(
    { arbitrary: fc.constant(''), weight: 6 },
    { arbitrary: fc.constantFrom('used', 'Używane'), weight: 3 },
    { arbitrary: fc.constantFrom('new', 'Nowe'), weight: 1 },
  ),
  fuel: fc.nat({ max: 9 }),
  gearbox: fc.nat({ max: 9 }),
  imported: fc.nat({ max: 9 }),
  voivodeship: fc.constantFrom(...REGIONS),
  firstSeen: fc.nat({ max: WINDOW_DAYS }),
  span: fc.nat({ max: 200 }),
  dateTime: fc.boolean(),
  active: fc.boolean(),
})
type Listing = typeof listing extends fc.Arbitrary<infer L> ? L : never

/** Listings of one model and year, dense enough for figures, with one price and one mileage pattern. */
const group = fc.record({
  car: fc.nat({ max: CARS.length - 1 }),
  year: fc.integer({ min: 2014, max: 2027 }),
  // A few values per group, so that a filter or a factor's side often has the listings it needs.
  fuels: fc.subarray(FUELS, { minLength: 1, maxLength: 3 }),
  gearboxes: fc.subarray(GEARS, { minLength: 1, maxLength: 3 }),
  imported: fc.subarray(IMPORTED, { minLength: 1, maxLength: 3 }),
  prices: priceShape,
  mileages: mileageShape,
  listings: fc.array(listing, { minLength: 10, maxLength: 40 }),
})
type Group = typeof group extends fc.Arbitrary<infer G> ? G : never

/** Rows outside the contract's domains, most of them rejected, and ids repeated to be de-duplicated. */
const stray = fc.record({
  car: fc.nat({ max: CARS.length - 1 }),
  make: fc.constantFrom('', 'Inny', 'other'),
  year: fc.constantFrom<string | number>(1899, 1900, 2027, 2028, 'abc', '', 2017),
  price: fc.constantFrom<string | number>(0, -1, 99, 99.99, 100, MAX_PRICE, MAX_PRICE + 0.01, 'abc', '', 50_000),
  currency: fc.constantFrom('', 'PLN', 'EUR'),
  mileage: fc.constantFrom<string | number>(-1, 0, 999, 1_000, MAX_MILEAGE, MAX_MILEAGE + 1, 'abc', ''),
  fuel: fc.constantFrom('Parowy', 'Etanol', 'e85', ''),
  gearbox: fc.constantFrom('Półautomatyczna', 'manual', ''),
  condition: fc.constantFrom('damaged', 'Nowy', 'used', ''),
  backwards: fc.boolean(),
  sameIdAs: fc.option(fc.nat(), { nil: undefined }),
})
type Stray = typeof stray extends fc.Arbitrary<infer S> ? S : never

function price(shape: PriceShape, u: number, mileage: number): number {
  switch (shape.kind) {
    case 'spread':
      return Math.max(MIN_PRICE, Math.round(shape.base * (1 + shape.spread * (u - 0.5)) * 100) / 100)
    case 'identical':
      return shape.price
    case 'orders':
      return Math.min(MAX_PRICE, Math.round(MIN_PRICE * 10 ** (5 * u)))
    case 'bounds':
      return u < 0.5 ? MIN_PRICE : MAX_PRICE
    case 'mileage': {
      const moved = shape.base * (1 + shape.pct / 100) ** (mileage / 10_000) * (0.9 + 0.2 * u)
      return Math.min(MAX_PRICE, Math.max(MIN_PRICE, Math.round(moved)))
    }
  }
}

function mileage(shape: MileageShape, u: number): number {
  switch (shape.kind) {
    case 'spread':
      return Math.round(u * shape.max)
    case 'same':
      return shape.at
    case 'narrow':
      return shape.at + Math.round(u * shape.width)
    case 'tiny':
      return Math.round(u * 999)
    case 'two':
      return shape.at + (u < 0.5 ? 0 : shape.gap)
    case 'huge':
      return 2_000_000 + Math.round(u * 1_000_000)
  }
}

function groupRows(g: Group): Row[] {
  const spellings = CARS[g.car]!
  return g.listings.map((l: Listing) => {
    const [make, model] = spellings[l.spelling % spellings.length]!
    const km = mileage(g.mileages, l.mileage)
    // Half past midnight in Warsaw is the day before in UTC, the date that counts (contract 1).
    const date = (n: number) => (l.dateTime ? `${day(n)}T00:30:00+02:00` : day(n))
    return row({
      make,
      model,
      year: g.year,
      price: price(g.prices, l.price, km),
      mileage_km: l.mileageKnown === 0 ? '' : km,
      fuel_type: l.fuel === 9 ? '' : g.fuels[l.fuel % g.fuels.length]!,
      gearbox: g.gearboxes[l.gearbox % g.gearboxes.length]!,
      imported: g.imported[l.imported % g.imported.length]!,
      voivodeship: l.voivodeship,
      first_seen: date(l.firstSeen),
      last_seen: date(l.firstSeen + l.span),
      active: String(l.active),
      condition: l.condition,
    })
  })
}

function strayRow(s: Stray, earlier: readonly Row[]): Row {
  const [make, model] = CARS[s.car]![0]!
  return row({
    ...(s.sameIdAs === undefined || earlier.length === 0
      ? {}
      : { listing_id: earlier[s.sameIdAs % earlier.length]!.listing_id }),
    make: s.make === '' ? make : s.make,
    model,
    year: s.year,
    price: s.price,
    currency: s.currency,
    mileage_km: s.mileage,
    fuel_type: s.fuel,
    gearbox: s.gearbox,
    condition: s.condition,
    first_seen: s.backwards ? '2026-09-01' : '2026-08-01',
    last_seen: s.backwards ? '2026-08-01' : '2026-09-29',
  })
}

const anExport = fc
  .record({
    groups: fc.array(group, { minLength: 1, maxLength: 7, size: 'max' }),
    strays: fc.array(stray, { maxLength: 6 }),
  })
  .map(({ groups, strays }) => {
    const kept = groups.flatMap(groupRows)
    const data = [...kept, ...strays.map((s) => strayRow(s, kept))]
    // A counterexample is reported as the export itself, ready to be built again.
    return Object.assign(data, { [fc.toStringMethod]: () => `CSV ${JSON.stringify(toCsv(data))}` })
  })

/** A question a caller may ask of a key with figures: one of its filters, a mileage, an asking price. */
const question = fc.record({
  key: fc.nat(),
  variant: fc.nat(),
  mileage: fc.option(
    fc.oneof(
      fc.constantFrom(1, 999, 1_000, 100_000, MAX_MILEAGE),
      fc.integer({ min: 1, max: MAX_MILEAGE }),
      // A reading of one of the export's rows, so that the ±30 % window holds listings.
      fc.record({ row: fc.nat() }),
    ),
    { nil: null },
  ),
  asking: fc.option(fc.oneof(fc.constantFrom(1, MIN_PRICE, MAX_PRICE), fc.integer({ min: 1, max: MAX_PRICE })), {
    nil: null,
  }),
})
type Question = typeof question extends fc.Arbitrary<infer Q> ? Q : never

/** The path to the first number of `value` that is not finite, or undefined. */
function nonFinite(value: unknown, path = '$'): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nonFinite(item, `${path}[${i}]`)
      if (found !== undefined) return found
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [name, item] of Object.entries(value)) {
      const found = nonFinite(item, `${path}.${name}`)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/** A valuation's figures, stored or answered: what is wrong with them, or undefined. */
function valuationProblem(members: any): string | undefined {
  const { valuation: v, confidence: c, mileage_effect: effect } = members
  if (typeof v !== 'object' || v === null) return 'no valuation'
  for (const name of ['average', 'median', 'p25', 'p75'])
    if (!(v[name] >= MIN_PRICE && v[name] <= MAX_PRICE)) return `${name} ${v[name]} is not a price the build keeps`
  if (!(v.p25 <= v.median && v.median <= v.p75)) return `p25 ${v.p25}, median ${v.median}, p75 ${v.p75}`
  if (typeof c !== 'object' || c === null) return 'no confidence'
  if (!(c.median_low <= v.median && v.median <= c.median_high))
    return `median ${v.median} outside [${c.median_low}, ${c.median_high}]`
  if (!(c.median_low >= MIN_PRICE && c.median_high <= MAX_PRICE)) return `interval [${c.median_low}, ${c.median_high}]`
  if (!(c.level_pct >= 95 && c.level_pct <= 100)) return `level_pct ${c.level_pct}`
  if (effect === undefined) return 'no mileage_effect'
  if (effect !== null) {
    if (!(Math.abs(effect.pct_per_10000_km) <= MAX_MILEAGE_EFFECT_PCT))
      return `mileage effect ${effect.pct_per_10000_km} % per 10,000 km`
    if (!(effect.sample_size >= MIN_LISTINGS)) return `mileage effect of ${effect.sample_size} listings`
  }
  return undefined
}

interface Seen {
  runs: number
  skipped: number
  keys: number
  answers: number
  variants: number
  figures: number
  filteredFigures: number
  effects: number
  noEffects: number
  factors: number
  regions: number
  answered: number
  adjusted: number
  insufficient: number
}

/** A valuation key with figures, and its fuel and gearbox filters that have them. */
interface Valued {
  readonly kind: string
  readonly make: string
  readonly name: string
  readonly year: number
  readonly selectors: readonly number[]
}

/**
 * Reads every answer of the snapshot in `dir` straight from its LMDB file, checking each
 * variant; returns the valuation keys with figures. Throws what is wrong, naming the key.
 */
async function checkEveryAnswer(dir: string, expected: number, seen: Seen): Promise<Valued[]> {
  const root = open({ path: join(dir, SNAPSHOT_FILE), readOnly: true, maxDbs: 4 })
  const valued: Valued[] = []
  let count = 0
  try {
    const answers = root.openDB(ANSWERS_OPTIONS)
    const stored = new StoredAnswer()
    for (const { key, value } of answers.getRange()) {
      count++
      const [kind, make, name, year, operation] = key as AnswerKey
      const where = `${operation} of ${kind} ${make} ${name} ${year}`
      if (!stored.reset(value)) throw new Error(`${where}: not a stored answer`)
      if (stored.count === 0) throw new Error(`${where}: no variants`)
      const selectors: number[] = []
      for (let i = 0; i < stored.count; i++) {
        seen.variants++
        const text = stored.text(i)
        const at = `${where}, variant ${stored.selector(i)}: ${text}`
        if (/Infinity|NaN/.test(text)) throw new Error(`${at}: a number that is not finite`)
        if (operation === 'valuation' && stored.items(i) === 0) {
          if (text !== '') throw new Error(`${at}: text where its table says no figures`)
          continue
        }
        let members: any
        try {
          members = JSON.parse(operation === 'price-history' ? `[${text}]` : `{${text}}`)
        } catch (error) {
          throw new Error(`${at}: not JSON (${(error as Error).message})`)
        }
        const path = nonFinite(members)
        if (path !== undefined) throw new Error(`${at}: ${path} is not finite`)
        if (operation === 'valuation') {
          const problem = valuationProblem(members)
          if (problem !== undefined) throw new Error(`${at}: ${problem}`)
          seen.figures++
          if (stored.selector(i) !== filterSelector(UNKNOWN, UNKNOWN)) seen.filteredFigures++
          if (members.mileage_effect === null) seen.noEffects++
          else seen.effects++
          if (stored.sampleSize(i) >= MIN_LISTINGS) selectors.push(stored.selector(i))
        }
        if (operation === 'valuation-factors') seen.factors += stored.items(i)
        if (operation === 'regional') seen.regions += stored.items(i)
      }
      if (selectors.length > 0) valued.push({ kind, make, name, year, selectors })
    }
  } finally {
    await root.close()
  }
  seen.answers += count
  if (count !== expected) throw new Error(`read ${count} answers; the manifest promises ${expected}`)
  return valued
}

/** Asks the public reader a question of a key with figures: an answer must hold finite, ordered figures. */
function ask(snapshot: Snapshot, valued: readonly Valued[], q: Question, data: readonly Row[], seen: Seen): void {
  const key = valued[q.key % valued.length]!
  const selector = key.selectors[q.variant % key.selectors.length]!
  const fuel = Math.floor(selector / 256)
  const gearbox = selector % 256
  const readings = data.map((r) => Number(r.mileage_km)).filter((m) => Number.isInteger(m) && m >= 1)
  const mileage =
    q.mileage === null || typeof q.mileage === 'number'
      ? q.mileage
      : readings.length === 0
        ? null
        : Math.min(MAX_MILEAGE, readings[q.mileage.row % readings.length]!)
  const fields = {
    make: key.make,
    model: key.name,
    year: key.year,
    fuel_type: fuel === UNKNOWN ? null : FUEL_TYPES[fuel]!,
    gearbox: gearbox === UNKNOWN ? null : GEARBOXES[gearbox]!,
    mileage,
    asking_price: q.asking,
  }
  const asked = JSON.stringify(fields)
  let answer
  try {
    answer = snapshot.valuation(fields)
  } catch (error) {
    if (error instanceof ApiError && error.code === 'INSUFFICIENT_DATA' && error.status === 404) {
      seen.insufficient++
      return
    }
    throw new Error(`valuation ${asked} threw ${String(error)}`, { cause: error })
  }
  // JSON.stringify would quietly write a NaN or an Infinity as null: the object itself is walked.
  const text = JSON.stringify(answer)
  const path = nonFinite(answer)
  if (path !== undefined) throw new Error(`valuation ${asked}: ${path} is not finite: ${text}`)
  const problem = valuationProblem(answer)
  if (problem !== undefined) throw new Error(`valuation ${asked}: ${problem}: ${text}`)
  if (!(answer.sample_size >= MIN_LISTINGS)) throw new Error(`valuation ${asked}: ${answer.sample_size} listings`)
  const { adjusted, asking_price: placed } = answer
  if (adjusted !== null) {
    if (mileage === null) throw new Error(`valuation ${asked}: adjusted without a mileage: ${text}`)
    if (!(Number.isFinite(adjusted.median) && adjusted.median >= 0) || adjusted.mileage !== mileage)
      throw new Error(`valuation ${asked}: adjusted ${JSON.stringify(adjusted)}`)
    seen.adjusted++
  }
  if ((placed === null) !== (q.asking === null)) throw new Error(`valuation ${asked}: asking_price ${text}`)
  if (placed !== null && !(placed.percentile >= 0 && placed.percentile <= 100))
    throw new Error(`valuation ${asked}: asking price at percentile ${placed.percentile}`)
  seen.answered++
}

t.test('every answer of a snapshot built from a random export is JSON with finite, ordered figures', async (t) => {
  const seen: Seen = {
    runs: 0,
    skipped: 0,
    keys: 0,
    answers: 0,
    variants: 0,
    figures: 0,
    filteredFigures: 0,
    effects: 0,
    noEffects: 0,
    factors: 0,
    regions: 0,
    answered: 0,
    adjusted: 0,
    insufficient: 0,
  }
  const started = Date.now()
  await fc.assert(
    fc.asyncProperty(anExport, fc.array(question, { minLength: 2, maxLength: 8 }), async (data, questions) => {
      seen.runs++
      // An export of new cars only, or of rejected rows, publishes nothing: there is no answer to check.
      const built = await build(t, toCsv(data)).catch((error: unknown) => {
        if (error instanceof BuildError && (error.code === 'too_many_rejected' || error.code === 'no_used_listings'))
          return undefined
        throw error
      })
      if (built === undefined) seen.skipped++
      fc.pre(built !== undefined)
      const { snapshot } = built
      const { keys_written: keys, models, families } = snapshot.manifest.counts
      seen.keys += keys
      const valued = await checkEveryAnswer(snapshot.dir, keys * KEY_OPERATIONS.length + models + families, seen)
      if (valued.length > 0) for (const q of questions) ask(snapshot, valued, q, data, seen)
    }),
    // Each run is a build: past the time limit a slow machine checks fewer exports, and the shrinking of a
    // counterexample stops with the smallest one found so far (still a failure).
    { numRuns: 40, seed: 20260930, interruptAfterTimeLimit: 120_000 },
  )
  t.comment(`${Math.round((Date.now() - started) / 1000)} s; ${JSON.stringify(seen)}`)
  // The exports must reach the figures worth checking, not only thin keys.
  t.ok(seen.skipped < seen.runs / 4, 'few exports published nothing')
  t.ok(seen.filteredFigures > 0, 'some fuel or gearbox filters had figures')
  t.ok(seen.effects > 0 && seen.noEffects > 0, 'some valuations had a mileage effect, some had none')
  t.ok(seen.factors > 0 && seen.regions > 0, 'some keys had valuation factors and regions')
  t.ok(seen.adjusted > 0 && seen.insufficient > 0, 'some questions had an adjusted value, some too few listings')
})
