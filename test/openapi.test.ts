import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import t from 'tap'
import { request } from 'undici'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { REQUEST_VALUES } from '../query/value-aliases.js'
import { build, freshDir, rows, serve, toCsv } from './support.js'

const data = [
  ...rows(30, (i) => ({
    price: 40_000 + i * 500,
    mileage_km: 80_000 + i * 2000,
    imported: i % 2 ? 'true' : 'false',
    first_seen: '2026-09-01',
  })),
  ...rows(4, () => ({ model: 'Polo' })),
  // Two older production years, for a depreciation curve of three points.
  ...rows(24, (i) => ({ year: 2015 + (i % 2), price: 30_000 + (i % 2) * 4000 + i * 100 })),
]

t.test('the served OpenAPI document is valid 3.1 and every answer matches it', async (t) => {
  const { snapshots, snapshot } = await build(t, toCsv(data))
  const ledgerDir = freshDir(t)
  const options = {
    snapshots,
    ledger: ledgerDir,
    rateLimit: 1000,
    demoQuota: 1000,
    publicUrl: 'https://api.example.test',
  }
  const { base, get, post } = await serve(t, options)
  const fetched = await get('/v1/openapi.json')
  t.equal(fetched.status, 200)
  const etag = fetched.headers.etag as string
  const doc = fetched.body as Record<string, any>

  const validation = await new Validator().validate(doc)
  t.same(validation.errors, undefined, 'no validation errors')
  t.equal(validation.valid, true)
  t.equal(doc.openapi, '3.1.0')
  t.equal(doc.info.version, '1.0.0')
  t.same(doc.servers, [{ url: 'https://api.example.test' }])
  t.same(doc.components.securitySchemes.ApiKey, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'The key e-mailed after registration.',
  })
  t.same(doc.security[0], { ApiKey: [] }, 'the key is a global requirement')

  const market = ['valuation', 'price-history', 'liquidity', 'valuation-factors', 'regional', 'depreciation']
  t.same(
    Object.keys(doc.paths).sort(),
    [
      ...market.map((m) => `/v1/market/${m}`),
      '/v1/catalog/makes',
      '/v1/catalog/models',
      '/v1/account/me',
      '/v1/account/usage',
      '/v1/auth/register',
      '/v1/auth/verify',
      '/v1/openapi.json',
      '/livez',
      '/readyz',
    ].sort(),
  )
  const params = (path: string): Record<string, any> =>
    Object.fromEntries((doc.paths[path].get.parameters as any[]).map((p) => [p.name, p]))
  const valuation = params('/v1/market/valuation')
  t.same(Object.keys(valuation), ['make', 'model', 'year', 'fuel_type', 'gearbox', 'mileage', 'asking_price'])
  t.same([valuation.year.schema.minimum, valuation.year.schema.maximum], [1900, snapshot.maxYear])
  t.same(valuation.mileage.schema, { type: 'integer', minimum: 1, maximum: 3_000_000 })
  for (const value of [
    'Benzyna',
    'Diesel',
    'Hybryda',
    'Hybryda Plug-in',
    'Elektryczny',
    'Benzyna+LPG',
    'Benzyna+CNG',
    'Wodór',
    'petrol',
    'phev',
    'hydrogen',
  ]) {
    t.ok(valuation.fuel_type.schema.enum.includes(value), `fuel_type lists ${value}`)
  }
  t.same(valuation.gearbox.schema.enum.slice(0, 2), ['Manualna', 'Automatyczna'], 'the canonical values first')
  for (const [name, vocabulary] of Object.entries(REQUEST_VALUES)) {
    const listed = new Set(valuation[name].schema.enum)
    for (const [canonical, aliases] of Object.entries(vocabulary.aliases as Record<string, readonly string[]>)) {
      for (const spelling of [canonical, ...aliases]) t.ok(listed.has(spelling), `${name} lists ${spelling}`)
      t.match(valuation[name].description, `${canonical} (${aliases.join(', ')})`, `${name}: ${canonical}'s aliases`)
    }
  }
  for (const value of ['auto', 'a', 'm', 'man']) t.ok(valuation.gearbox.schema.enum.includes(value), `lists ${value}`)
  t.same(params('/v1/market/price-history').months.schema, { type: 'integer', minimum: 1, maximum: 24, default: 6 })
  t.same(Object.keys(params('/v1/market/regional')), ['make', 'model', 'year'])
  const depreciation = params('/v1/market/depreciation')
  t.same(Object.keys(depreciation), ['make', 'model', 'fuel_type'], 'depreciation takes no year')
  t.same(
    Object.values(depreciation).map((p) => p.required),
    [true, true, false],
  )
  t.same(depreciation.fuel_type, valuation.fuel_type, 'the same fuel types as a valuation')
  t.same(valuation.asking_price.schema, { type: 'integer', minimum: 1, maximum: 10_000_000 })
  t.same(
    market.map((m) => doc.paths[`/v1/market/${m}`].get.summary.match(/\((\d+) credits\)/)?.[1]),
    ['8', '10', '6', '12', '8', '10'],
    'the credits of each endpoint',
  )
  t.same(
    market.map((m) => doc.paths[`/v1/market/${m}`].get['x-credits']),
    [8, 10, 6, 12, 8, 10],
  )
  // The catalogue: free and keyless, so no security requirement at all (not the demo tier's optional key).
  for (const path of ['/v1/catalog/makes', '/v1/catalog/models']) {
    const operation = doc.paths[path].get
    t.same([operation.security, operation.tags, operation['x-credits']], [[], ['catalog'], 0], `${path}: free, no key`)
  }
  t.same(params('/v1/catalog/makes'), {})
  t.same(
    Object.values(params('/v1/catalog/models')).map((p) => [p.name, p.required]),
    [['make', true]],
  )
  t.same(Object.keys(doc.paths['/v1/catalog/makes'].get.responses), ['200', '400', '429', '500', '503'])
  t.same(Object.keys(doc.paths['/v1/catalog/models'].get.responses), ['200', '400', '404', '429', '500', '503'])
  t.ok(
    doc.tags.some((tag: { name: string }) => tag.name === 'catalog'),
    'the catalogue has a tag of its own',
  )

  // Every answer, success or failure, validates against the schema the document gives for its route and status.
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ajv.addSchema(doc, 'api')
  const pointer = (path: string, status: number, method = doc.paths[path]?.post === undefined ? 'get' : 'post') =>
    `api#/paths/${path.replace(/\//g, '~1')}/${method}/responses/${status}/content/application~1json/schema`
  const q = 'make=VW&model=Golf&year=2017'
  // Each operation's required parameters: depreciation takes no year.
  const required = (operation: string) => (operation === 'depreciation' ? 'make=VW&model=Golf' : q)
  const calls: [string, number][] = [
    ...market.map((m): [string, number] => [`/v1/market/${m}?${required(m)}`, 200]),
    [`/v1/market/valuation?${q}&fuel_type=diesel&gearbox=manual&mileage=100000`, 200],
    [`/v1/market/valuation?${q}&mileage=100000&asking_price=52000`, 200],
    [`/v1/market/valuation?${q}&asking_price=0`, 400],
    [`/v1/market/price-history?${q}&months=24`, 200],
    ['/v1/market/depreciation?make=VW&model=Golf&fuel_type=diesel', 200],
    ['/v1/market/depreciation?make=VW&model=Golf&year=2017', 400],
    ['/v1/market/depreciation?make=VW&model=Golf&fuel_type=electric', 404],
    ['/v1/market/depreciation?make=VW&model=Polo', 404],
    ['/v1/market/depreciation?make=VW&model=Passatt', 404],
    ['/v1/catalog/makes', 200],
    ['/v1/catalog/makes?make=VW', 400],
    ['/v1/catalog/models?make=VW', 200],
    ['/v1/catalog/models?make=vw%20', 200],
    ['/v1/catalog/models', 400],
    ['/v1/catalog/models?make=', 400],
    ['/v1/catalog/models?make=VW&model=Golf', 400],
    ['/v1/catalog/models?make=Nosuchmake', 404],
    ['/v1/market/valuation?make=VW&model=Golf&year=abc', 400],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&colour=red', 400],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&fuel_type=steam', 400],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=900000', 404],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&fuel_type=hydrogen&gearbox=a', 404],
    ['/v1/market/regional?make=VW&model=Polo&year=2017', 404],
    ['/v1/market/regional?make=Nosuchmake&model=Polo&year=2017', 404],
    ['/livez', 200],
    ['/readyz', 200],
  ]
  const answers = new Map<string, any>()
  for (const [path, status] of calls) {
    const answer = await get(path)
    t.equal(answer.status, status, path)
    const validate = ajv.getSchema(pointer(path.split('?')[0]!, status))
    t.ok(validate, `the document describes ${status} for ${path}`)
    t.ok(validate!(answer.body), `${path} matches the document: ${JSON.stringify(validate!.errors)}`)
    answers.set(path, answer.body)
  }
  // The new members were there to be checked, not null throughout.
  const priced = answers.get(`/v1/market/valuation?${q}&mileage=100000&asking_price=52000`).data
  t.match(priced, {
    confidence: { median_low: Number, median_high: Number, level_pct: Number },
    mileage_effect: { pct_per_10000_km: Number, sample_size: 30 },
    adjusted: { mileage: 100_000, median: Number, sample_size: 30 },
    asking_price: { price: 52_000, percentile: Number, verdict: 'above_market' },
  })
  const curve = answers.get('/v1/market/depreciation?make=VW&model=Golf').data
  t.same(
    curve.curve.map((point: { year: number }) => point.year),
    [2015, 2016, 2017],
  )
  t.type(curve.annual_change_pct, 'number', 'three points: a change per year')
  t.equal(answers.get('/v1/catalog/models?make=Nosuchmake').error.code, 'INSUFFICIENT_DATA')
  t.same(answers.get('/v1/catalog/models?make=VW').data.matched, { makes: ['Volkswagen'], match_type: 'alias' })
  const keyed = await get(`/v1/market/valuation?${q}`, { key: 'cm_nosuchkey' })
  t.equal(keyed.status, 401)
  t.ok(ajv.getSchema(pointer('/v1/market/valuation', 401))!(keyed.body))
  const anyKey = await get('/v1/catalog/models?make=VW', { key: 'cm_nosuchkey' })
  t.equal(anyKey.status, 200, 'the catalogue reads no key, so an unknown one is no matter')

  // Keyed answers, the account routes and a refusal for credits, against the document too.
  const ledger = LmdbLedger.open(ledgerDir)
  t.teardown(() => ledger.close())
  const { key } = await ledger.createAccount('openapi@example.pl', 24, 'signup_bonus', null)
  const withKey: [string, number][] = [
    [`/v1/market/valuation?${q}`, 200],
    ['/v1/market/depreciation?make=VW&model=Golf', 200],
    ['/v1/catalog/makes', 200],
    ['/v1/account/me', 200],
    ['/v1/account/usage?limit=5', 200],
    [`/v1/market/valuation?${q}`, 402],
    ['/v1/account/usage?limit=500', 400],
  ]
  for (const [path, status] of withKey) {
    const answer = await get(path, { key })
    t.equal(answer.status, status, `keyed ${path}`)
    const validate = ajv.getSchema(pointer(path.split('?')[0]!, status))!
    t.ok(validate(answer.body), `keyed ${path} matches the document: ${JSON.stringify(validate.errors)}`)
  }

  t.ok(
    ajv.getSchema(`api#/paths/~1v1~1openapi.json/get/responses/200/content/application~1json/schema`)!(doc),
    'the document describes itself as served',
  )

  // The refusals of the limits too.
  const strict = await serve(t, { snapshots, rateLimit: 2, demoQuota: 1, publicUrl: 'https://api.example.test' })
  const limited = async (expected: string) => {
    const { status, body } = await strict.get(`/v1/market/liquidity?${q}`)
    return {
      status,
      ok: ajv.getSchema(pointer('/v1/market/liquidity', status))!(body),
      code: (body.error?.code as string | undefined) ?? expected,
    }
  }
  t.same(await limited('success'), { status: 200, ok: true, code: 'success' })
  t.same(await limited(''), { status: 429, ok: true, code: 'DEMO_LIMIT_REACHED' })
  t.same(await limited(''), { status: 429, ok: true, code: 'RATE_LIMIT_EXCEEDED' })

  // Registration answers, against the document.
  for (const [path, body, status] of [
    ['/v1/auth/register', { email: 'doc@example.pl' }, 200],
    ['/v1/auth/verify', { email: 'doc@example.pl', code: '12x' }, 400],
    ['/v1/auth/register', '{', 400],
  ] as const) {
    const answer = await post(path, body)
    t.equal(answer.status, status, path)
    const validate = ajv.getSchema(pointer(path, status))!
    t.ok(validate(answer.body), `${path} ${status} matches the document: ${JSON.stringify(validate.errors)}`)
  }

  const again = await request(`${base}/v1/openapi.json`, { headers: { 'if-none-match': etag } })
  t.equal(again.statusCode, 304, 'a conditional request for the same document')
  await again.body.dump()

  // Every example the document gives is an instance of the schema beside it. Checked last: on a busy machine,
  // compiling every schema can hold the event loop past the 5 s the server keeps an idle connection for, and the
  // next request on that connection would meet its close.
  for (const path of Object.keys(doc.paths)) {
    const operation = doc.paths[path].get ?? doc.paths[path].post
    for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
      const media = response.content?.['application/json']
      const examples = [media?.example, ...Object.values(media?.examples ?? {}).map((e: any) => e.value)].filter(
        (e) => e !== undefined,
      )
      for (const example of examples) {
        const validate = ajv.getSchema(pointer(path, Number(status)))!
        t.ok(
          validate(example),
          `the example of ${status} ${path} matches its schema: ${JSON.stringify(validate.errors)}`,
        )
      }
    }
  }
  for (const path of [...market.map((m) => `/v1/market/${m}`), '/v1/catalog/makes', '/v1/catalog/models'])
    t.ok(doc.paths[path].get.responses['200'].content['application/json'].example, `${path}: a success example`)
})
