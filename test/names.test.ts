import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { BuildError } from '../build/build-error.js'
import { build, names, reference, row, rows, serve, toCsv, vehicle } from './support.js'

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
  const matched = (make: string, model: string) => names(snapshot.valuation(vehicle(make, model, 2017)).matched)
  t.same(matched('Volkswagen', 'Golf'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'exact' })
  t.same(matched('volkswagen', 'GOLF'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'normalized' })
  t.same(matched('Skoda', 'octavia'), { makes: ['Skoda'], models: ['Octavia'], match_type: 'normalized' })
  t.same(matched('VW', 'Golf'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'alias' })
  t.same(matched('vw', 'Golf'), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'alias' })
  // An engine names the model and narrows it (contract 4.1): these listings tell no version, so the answer is broader.
  t.same(matched('BMW', '320d'), { makes: ['BMW'], models: ['Seria 3'], match_type: 'broader' })
  // Equal once the spaces are taken out: a normalized match (contract 4, step 2).
  t.same(matched('Volvo', 'XC60'), { makes: ['Volvo'], models: ['XC 60'], match_type: 'normalized' })
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
    extra: { suggestions: ['Golf', 'Golf Plus'] },
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
  // A make the alias table knows is never taken for another, listings or not.
  t.throws(() => snapshot.valuation(vehicle('Opel', 'Astra', 2017)), {
    code: 'INSUFFICIENT_DATA',
    message: /No listings of Opel/,
  })
  // Short names get no typo tolerance: X5 is not X6.
  t.throws(() => snapshot.valuation(vehicle('BMW', '3G', 2017)), { code: 'INSUFFICIENT_DATA' })
})

t.test('a model written after its make resolves as the model', async (t) => {
  const { snapshot } = await build(t, toCsv(market()))
  const matched = (make: string, model: string) => names(snapshot.valuation(vehicle(make, model, 2017)).matched)
  const golf = { makes: ['Volkswagen'], models: ['Golf'] }
  t.same(matched('VW', 'VW Golf'), { ...golf, match_type: 'alias' })
  t.same(matched('VW', 'Volkswagen Golf'), { ...golf, match_type: 'alias' })
  t.same(matched('Volkswagen', 'Volkswagen Golf'), { ...golf, match_type: 'normalized' }, 'never stronger')
  t.same(matched('Volkswagn', 'Volkswagn Golf'), { ...golf, match_type: 'fuzzy' }, 'the make as written')
  t.same(matched('VW', 'VW Gofl Plus'), { makes: ['Volkswagen'], models: ['Golf Plus'], match_type: 'fuzzy' })
  t.equal(snapshot.valuation(vehicle('VW', 'VW Golf', 2017)).sample_size, 15)
  const threeSeries = { makes: ['BMW'], models: ['Seria 3', '3GT'], match_type: 'family' }
  t.same(matched('BMW', '3 Series'), threeSeries)
  t.same(matched('BMW', 'BMW 3 Series'), threeSeries)
  t.same(matched('BMW', 'bmw 320d'), { makes: ['BMW'], models: ['Seria 3'], match_type: 'broader' })
  const cClass = { makes: ['Mercedes-Benz'], models: ['Klasa C'], match_type: 'family' }
  t.same(matched('Mercedes', 'Mercedes C-Class'), cClass)
  t.same(matched('Mercedes', 'Mercedes-Benz C-Class'), cClass, 'the longest make name first')
  t.same(matched('Mercedes-Benz', 'Merc Klasa C'), { ...cClass, match_type: 'normalized' })
  // Only the request's own make is taken off.
  t.throws(() => snapshot.valuation(vehicle('VW', 'BMW Golf', 2017)), { code: 'INSUFFICIENT_DATA' })
})

t.test('a model whose own name starts with a name of a make resolves as itself first', async (t) => {
  const data = [
    ...rows(10, () => ({ make: 'DS Automobiles', model: 'DS 3' })),
    ...rows(10, () => ({ make: 'Citroën', model: 'DS3' })),
    ...rows(10, () => ({ make: 'Citroën', model: 'C3' })),
    ...rows(10, () => ({ make: 'MINI', model: 'Cooper' })),
    ...rows(10, () => ({ make: 'MINI', model: 'Cooper S' })),
  ]
  const { snapshot } = await build(t, toCsv(data))
  const matched = (make: string, model: string) => names(snapshot.valuation(vehicle(make, model, 2017)).matched)
  t.same(matched('DS', 'DS 3'), { makes: ['DS Automobiles'], models: ['DS 3'], match_type: 'alias' })
  t.same(matched('DS Automobiles', 'DS 3'), { makes: ['DS Automobiles'], models: ['DS 3'], match_type: 'exact' })
  t.same(matched('DS', 'DS3'), { makes: ['DS Automobiles'], models: ['DS 3'], match_type: 'alias' })
  t.same(matched('Citroën', 'DS3'), { makes: ['Citroën'], models: ['DS3'], match_type: 'exact' })
  t.same(matched('Citroen', 'DS 3'), { makes: ['Citroën'], models: ['DS3'], match_type: 'normalized' })
  t.same(matched('MINI', 'Mini Cooper'), { makes: ['MINI'], models: ['Cooper'], match_type: 'alias' })
  t.same(matched('MINI', 'MINI Cooper S'), { makes: ['MINI'], models: ['Cooper S'], match_type: 'normalized' })
})

t.test('a miss over HTTP: suggestions, never none for a known make, the first named in the message', async (t) => {
  const data = [
    ...market(),
    // Golf Plus with 18 listings, Golf with 16: the more listed first.
    ...[2015, 2016].flatMap((year) => rows(4, () => ({ ...row({ model: 'Golf Plus' }), year }))),
    row({ model: 'Golf', year: 2016 }),
  ]
  const { snapshots } = await build(t, toCsv(data))
  const { get } = await serve(t, { snapshots, demoQuota: 1000, publicUrl: 'https://example.test' })
  const miss = async (make: string, model: string) => {
    const answer = await get(`/v1/market/valuation?${new URLSearchParams({ make, model, year: '2017' })}`)
    t.equal(answer.status, 404, `${make} ${model}`)
    t.equal(answer.body.error.code, 'INSUFFICIENT_DATA')
    const { message, suggestions } = answer.body.error as { message: string; suggestions: string[] }
    if (suggestions.length > 0) t.ok(message.includes(`"${suggestions[0]}"`), `${message} names ${suggestions[0]}`)
    return suggestions
  }
  t.same(await miss('bmw', '3'), ['3 Series', 'Seria 3', '3GT'], 'a family and a model named by its first word')
  t.same(await miss('BMW', 'BMW 3'), ['3 Series', 'Seria 3', '3GT'], 'the model without its make')
  t.same(await miss('mercedes', 'C'), ['C-Class', 'Klasa C'])
  t.same(await miss('VW', 'Passat'), ['Golf Plus', 'Golf'], "nothing close: the make's most common models")
  t.same(await miss('Volks', 'Golf'), ['Volkswagen', 'Volvo'], 'a make miss')
  t.same(await miss('Opel', 'Astra'), [], 'a make with nothing close')

  const resolved = await get('/v1/market/valuation?make=VW&model=Volkswagen%20Golf&year=2017')
  t.equal(resolved.status, 200)
  t.same(names(resolved.body.data.matched), { makes: ['Volkswagen'], models: ['Golf'], match_type: 'alias' })
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
    'apart.json': JSON.stringify({ makes: [{ name: 'Audi', models: [], apart: ['A4 Kombi Sport'] }] }),
  })
  const data = [...market(), ...rows(2, () => ({ make: 'Zastava', model: 'Yugo 45' }))]
  const { snapshot } = await build(t, toCsv(data), { aliases: join(dir, 'aliases.json') })
  t.same(names(snapshot.valuation(vehicle('Crvena Zastava', 'Yugo 45', 2017)).matched), {
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
  await t.rejects(build(t, toCsv(market()), { aliases: join(dir, 'apart.json') }), { code: 'invalid_alias_table' })
  await t.rejects(build(t, toCsv(market()), { aliases: join(dir, 'missing.json') }), BuildError)
  writeFileSync(join(dir, 'not-json.json'), '{')
  await t.rejects(build(t, toCsv(market()), { aliases: join(dir, 'not-json.json') }), BuildError)
})
