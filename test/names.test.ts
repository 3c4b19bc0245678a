import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { BuildError } from '../build/build-error.js'
import { build, reference, rows, toCsv, vehicle } from './support.js'

const market = () => [
  ...rows(12, (i) => ({ make: 'Volkswagen', model: 'Golf', price: 50_000 + i })),
  ...rows(3, (i) => ({ make: 'VW', model: 'golf', price: 50_100 + i })),
  ...rows(10, (i) => ({ make: 'Volkswagen', model: 'Golf Plus', price: 40_000 + i })),
  ...rows(11, (i) => ({ make: 'BMW', model: 'Seria 3', price: 80_000 + i * 100 })),
  ...rows(4, (i) => ({ make: 'bmw', model: '320d', price: 81_000 + i * 100 })),
  ...rows(10, (i) => ({ make: 'BMW', model: '3GT', price: 90_000 + i * 100 })),
  ...rows(10, (i) => ({ make: 'Mercedes', model: 'C 220 d', price: 95_000 + i })),
  ...rows(10, (i) => ({ make: 'Škoda', model: 'Octavia', price: 60_000 + i })),
  ...rows(10, (i) => ({ make: 'Volvo', model: 'XC60', price: 120_000 + i })),
  // A make the alias table does not know: its most frequent spelling becomes canonical.
  ...rows(7, () => ({ make: 'Zastava', model: 'Yugo Koral' })),
  ...rows(4, () => ({ make: 'ZASTAVA', model: 'YUGO KORAL' })),
]

t.test('every match type of the contract', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const matched = (make: string, model: string) => snapshot.valuation(vehicle(make, model, 2017)).matched
  t.same(matched('Volkswagen', 'Golf'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'exact' })
  t.same(matched('volkswagen', 'GOLF'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'normalized' })
  t.same(matched('Skoda', 'octavia'), { makes: ['Skoda'], models: ['Octavia'], match_type: 'normalized' })
  t.same(matched('VW', 'Golf'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'alias' })
  t.same(matched('vw', 'Golf'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'alias' })
  t.same(matched('BMW', '320d'), { makes: ['BMW'], models: ['Seria 3'], match_type: 'alias' })
  t.same(matched('Volvo', 'XC60'), { makes: ['Volvo'], models: ['XC 60'], match_type: 'alias' })
  t.same(matched('BMW', '3 Series'), { makes: ['BMW'], models: ['Seria 3', '3GT'], match_type: 'family' })
  t.same(matched('Mercedes', 'C-Class'), { makes: ['Mercedes-Benz'], models: ['Klasa C'], match_type: 'family' })
  t.same(matched('Volkswagn', 'Golf'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'fuzzy' })
  t.same(matched('Volkswagen', 'Octavai'.replace('Octavai', 'Gofl Plus')), {
    makes: ['Volkswagen'],
    models: ['Golf Plus'],
    match_type: 'fuzzy',
  })
  t.same(matched('Zastava', 'Yugo Koral'), { makes: ['Zastava'], models: ['Yugo Koral'], match_type: 'exact' })
  // The answer echoes the request's own spelling.
  const answer = snapshot.valuation(vehicle('VW', 'golf', 2017))
  t.equal(answer.make, 'VW')
  t.equal(answer.model, 'golf')
})

t.test('export spellings map onto canonical names before any figure is computed', async (t) => {
  const { snapshot, report } = await build(t, toCsv(market()))
  t.equal(snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017)).sample_size, 15, 'VW/golf rows join Volkswagen/Golf')
  t.equal(snapshot.valuation(vehicle('BMW', 'Seria 3', 2017)).sample_size, 15, '320d rows join Seria 3')
  t.equal(snapshot.valuation(vehicle('Zastava', 'Yugo Koral', 2017)).sample_size, 11, 'ZASTAVA joins Zastava')
  t.equal(report.makes, 6)
})

t.test('a family pools its models into one key; a one-model family answers with the model', async (t) => {
  const data = market()
  const { snapshot } = await build(t, toCsv(data))
  const pooled = data.filter((r) => r.make.toLowerCase() === 'bmw').map((r) => Number(r.price))
  const family = snapshot.valuation(vehicle('BMW', '3 Series', 2017))
  t.equal(family.sample_size, 25)
  t.same(family.valuation, reference.quartiles(pooled))
  t.equal(snapshot.regional(vehicle('BMW', '3 series', 2017)).total_sample_size, 25)
  const cClass = snapshot.valuation(vehicle('Mercedes-Benz', 'C-Class', 2017))
  t.same(cClass.valuation, snapshot.valuation(vehicle('Mercedes-Benz', 'Klasa C', 2017)).valuation)
})

t.test('a name that resolves to nothing is INSUFFICIENT_DATA with close canonical names', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  t.throws(() => snapshot.valuation(vehicle('Volkswagenn Gmbh', 'Golf', 2017)), {
    code: 'INSUFFICIENT_DATA',
    status: 404,
  })
  t.throws(() => snapshot.valuation(vehicle('Volkswage', 'Passat', 2017)), {
    code: 'INSUFFICIENT_DATA',
    message: /No Volkswagen model/,
    extra: { suggestions: [] },
  })
  const error = (() => {
    try {
      snapshot.valuation(vehicle('Zastawa', 'Yugo', 2017))
    } catch (e) {
      return e as { extra: { suggestions: string[] } }
    }
    return undefined
  })()
  t.same(error?.extra.suggestions, ['Yugo Koral'], 'a model prefix is suggested')
  t.throws(() => snapshot.valuation(vehicle('Opel', 'Astra', 2017)), { code: 'INSUFFICIENT_DATA', message: /No make/ })
  // Short names get no typo tolerance: X5 is not X6.
  t.throws(() => snapshot.valuation(vehicle('BMW', '3G', 2017)), { code: 'INSUFFICIENT_DATA' })
})

t.test('an operator alias table extends the curated one', async (t) => {
  const dir = t.testdir({
    'aliases.json': JSON.stringify({
      makes: [
        {
          name: 'Zastava',
          aliases: ['Crvena Zastava'],
          models: [{ name: 'Yugo Koral', aliases: ['Yugo 45'] }],
          families: [],
        },
        { name: 'Volkswagen', aliases: ['Wolfsburg'], models: [], families: [] },
      ],
    }),
    'broken.json': JSON.stringify({ makes: [{ name: '', aliases: [] }] }),
  })
  const data = [...market(), ...rows(2, () => ({ make: 'Zastava', model: 'Yugo 45' }))]
  const { snapshot } = await build(t, toCsv(data), { aliases: join(dir, 'aliases.json') })
  t.same(snapshot.valuation(vehicle('Crvena Zastava', 'Yugo 45', 2017)).matched, {
    makes: ['Zastava'],
    models: ['Yugo Koral'],
    match_type: 'alias',
  })
  t.equal(snapshot.valuation(vehicle('Zastava', 'Yugo Koral', 2017)).sample_size, 13, 'Yugo 45 rows join Yugo Koral')
  t.equal(snapshot.valuation(vehicle('Wolfsburg', 'Golf', 2017)).matched.makes[0], 'Volkswagen')
  t.equal(
    snapshot.valuation(vehicle('VW', 'Golf', 2017)).matched.match_type,
    'alias',
    'the curated aliases still apply',
  )
  await t.rejects(build(t, toCsv(market()), { aliases: join(dir, 'broken.json') }), { code: 'invalid_alias_table' })
  await t.rejects(build(t, toCsv(market()), { aliases: join(dir, 'missing.json') }), BuildError)
  writeFileSync(join(dir, 'not-json.json'), '{')
  await t.rejects(build(t, toCsv(market()), { aliases: join(dir, 'not-json.json') }), BuildError)
})
