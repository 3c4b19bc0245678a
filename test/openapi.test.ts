import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import t from 'tap'
import { request } from 'undici'
import { openLedger } from '../cli/engines.js'
import { ERROR_STATUS } from '../query/api-error.js'
import { REQUEST_VALUES } from '../query/value-aliases.js'
import { canonicalQuery } from '../runtime/canonical.js'
import { EXAMPLE_BATCH } from '../runtime/example-calls.js'
import { fingerprint } from '../runtime/idempotency.js'
import { awayFromMinuteEnd, build, freshDir, rows, serve, toCsv } from './support.js'

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
  const charts = ['valuation', 'price-history', 'depreciation', 'regional']
  t.same(
    Object.keys(doc.paths).sort(),
    [
      ...market.map((m) => `/v1/market/${m}`),
      '/v1/market/batch',
      ...charts.map((c) => `/v1/chart/${c}.svg`),
      '/v1/catalog/makes',
      '/v1/catalog/models',
      '/v1/catalog/versions',
      '/v1/account/keys/rotate',
      '/v1/billing/checkout',
      '/v1/billing/stripe-webhook',
      '/v1/account/me',
      '/v1/account/usage',
      '/v1/auth/register',
      '/v1/auth/verify',
      '/v1/auth/sign-in',
      '/v1/auth/session',
      '/v1/auth/sign-out',
      '/v1/openapi.json',
      '/livez',
      '/readyz',
    ].sort(),
  )
  const operationIds = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
    (methods) => Object.values(methods).map((operation) => operation.operationId),
  )
  t.ok(
    operationIds.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)),
    'every operation has an operationId, for code generators',
  )
  t.equal(new Set(operationIds).size, operationIds.length, 'each its own')
  // A chart takes its operation's parameters and headers, answers an SVG image and fails as the operation does.
  for (const chart of charts) {
    const drawn = doc.paths[`/v1/chart/${chart}.svg`].get
    const answered = doc.paths[`/v1/market/${chart}`].get
    t.same(drawn.parameters, answered.parameters, `${chart}.svg: the parameters of ${chart}`)
    t.same(Object.keys(drawn.responses['200'].content), ['image/svg+xml'], `${chart}.svg: an SVG image`)
    t.same(drawn.responses['200'].headers, answered.responses['200'].headers, `${chart}.svg: the answer's headers`)
    t.same(
      Object.keys(drawn.responses).sort(),
      Object.keys(answered.responses).sort(),
      `${chart}.svg: the statuses of ${chart}`,
    )
    t.equal(drawn['x-credits'], answered['x-credits'], `${chart}.svg: the price of ${chart}`)
    t.same(drawn.tags, ['charts'])
  }
  const params = (path: string): Record<string, any> =>
    Object.fromEntries(
      (doc.paths[path].get.parameters as any[]).filter((p) => p.in === 'query').map((p) => [p.name, p]),
    )
  const valuation = params('/v1/market/valuation')
  t.same(Object.keys(valuation), [
    ...['make', 'model', 'year', 'fuel_type', 'gearbox', 'body_type', 'version', 'power_hp'],
    ...['mileage', 'asking_price'],
  ])
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
  t.same(
    Object.keys(depreciation),
    ['make', 'model', 'fuel_type', 'gearbox', 'body_type', 'version', 'power_hp'],
    'depreciation takes no year',
  )
  t.same(
    Object.values(depreciation).map((p) => p.required),
    [true, true, false, false, false, false, false],
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
  const idempotencyKey = (doc.paths['/v1/market/valuation'].get.parameters as any[]).find(
    (p) => p.name === 'Idempotency-Key',
  )
  t.match(idempotencyKey, {
    in: 'header',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: String },
  })
  const marketHeaders = {
    '304': ['ETag', 'Cache-Control', 'Vary', 'X-Credits-Used', 'X-Credits-Remaining', 'RateLimit', 'RateLimit-Policy'],
    '200': [
      'ETag',
      'Cache-Control',
      'Vary',
      'X-Credits-Used',
      'X-Credits-Remaining',
      'Idempotent-Replayed',
      'RateLimit',
      'RateLimit-Policy',
    ],
  }
  for (const m of market) {
    const path = `/v1/market/${m}`
    const operation = doc.paths[path].get
    const list = operation.parameters as any[]
    t.same(
      list.map((p) => [p.name, p.in]),
      [
        ...Object.keys(params(path)).map((name) => [name, 'query']),
        ['If-None-Match', 'header'],
        ['Idempotency-Key', 'header'],
      ],
      `${path}: its query parameters, then If-None-Match and Idempotency-Key`,
    )
    t.match(list.at(-2), { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } })
    t.same(list.at(-1), idempotencyKey, `${path}: the same Idempotency-Key`)
    const responses = operation.responses
    t.same(
      Object.keys(responses),
      ['200', '304', '400', '401', '402', '404', '409', '422', '429', '500', '503'],
      `${path}: its statuses`,
    )
    t.equal(responses['304']?.content, undefined, `${path}: a 304 has no body`)
    for (const status of ['200', '304'] as const) {
      t.same(
        Object.keys(responses[status]?.headers ?? {}).sort(),
        [...marketHeaders[status]].sort(),
        `${path}: ${status} headers`,
      )
      t.same(responses[status]?.headers?.ETag?.schema, { type: 'string' }, `${path}: ${status} ETag`)
      for (const name of ['X-Credits-Used', 'X-Credits-Remaining'])
        t.match(
          responses[status]?.headers?.[name]?.schema,
          { type: 'integer', minimum: 0 },
          `${path}: ${status} ${name}`,
        )
    }
    for (const [status, code] of [
      ['409', 'IDEMPOTENCY_KEY_IN_FLIGHT'],
      ['422', 'IDEMPOTENCY_KEY_REUSED'],
    ] as const) {
      const media = responses[status]?.content?.['application/json']
      t.same(media?.schema, { $ref: '#/components/schemas/Error' }, `${path}: ${status} is an error`)
      t.same(Object.keys(media?.examples ?? {}), [code], `${path}: ${status} is ${code}`)
    }
    t.match(
      responses['409']?.headers,
      { 'Retry-After': { schema: { type: 'integer' } } },
      `${path}: 409 says when to retry`,
    )
  }
  const codes = doc.components.schemas.Error.properties.error.properties.code.enum as string[]
  t.same([...codes].sort(), Object.keys(ERROR_STATUS).sort(), 'the error codes are those the service answers')
  for (const code of ['IDEMPOTENCY_KEY_IN_FLIGHT', 'IDEMPOTENCY_KEY_REUSED'])
    t.ok(codes.includes(code), `Error lists ${code}`)

  // The batch: one request for several market calls, with the market calls' own parameters as body members.
  const batch = doc.paths['/v1/market/batch']
  t.same(Object.keys(batch), ['post'], 'the batch is a POST only')
  t.same([batch.post.operationId, batch.post.tags], ['batch', ['batch']])
  t.ok(
    doc.tags.some((tag: { name: string }) => tag.name === 'batch'),
    'the batch has a tag of its own',
  )
  t.same(batch.post.parameters, [idempotencyKey], 'the batch takes the Idempotency-Key as a market call does')
  t.equal(batch.post.requestBody.required, true)
  const batchBody = batch.post.requestBody.content['application/json']
  t.match(batchBody.schema, {
    type: 'object',
    required: ['requests'],
    additionalProperties: false,
    properties: { requests: { type: 'array', minItems: 1, maxItems: 50 } },
  })
  const items = batchBody.schema.properties.requests.items.oneOf as any[]
  t.same(
    items.map((item) => item.properties.operation),
    market.map((m) => ({ const: m })),
    'one item schema per operation',
  )
  for (const [i, m] of market.entries()) {
    const query = params(`/v1/market/${m}`)
    t.same(Object.keys(items[i].properties), ['operation', ...Object.keys(query)], `a ${m} item: its parameters`)
    t.same(
      items[i].required,
      [
        'operation',
        ...Object.values(query)
          .filter((p) => p.required)
          .map((p) => p.name),
      ],
      `a ${m} item: its required parameters`,
    )
    t.equal(items[i].additionalProperties, false)
  }
  t.same(batchBody.example, EXAMPLE_BATCH, 'the example batch is the one served')
  const batchResponses = batch.post.responses
  t.same(Object.keys(batchResponses), ['200', '400', '401', '409', '413', '415', '422', '429', '500', '503'])
  const batchData = batchResponses['200'].content['application/json'].schema.properties.data
  t.same(Object.keys(batchData.properties), ['results', 'credits_used', 'credits_remaining'])
  t.same(batchData.required, ['results', 'credits_used'], 'credits_remaining only in keyed answers')
  t.same(Object.keys(batchResponses['200'].headers).sort(), [
    'Idempotent-Replayed',
    'RateLimit',
    'RateLimit-Policy',
    'X-Credits-Remaining',
    'X-Credits-Used',
  ])
  // The catalogue: free and keyless, so no security requirement at all (not the demo tier's optional key).
  for (const path of ['/v1/catalog/makes', '/v1/catalog/models', '/v1/catalog/versions']) {
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
  t.same(
    Object.values(params('/v1/catalog/versions')).map((p) => [p.name, p.required]),
    [
      ['make', true],
      ['model', true],
      ['year', true],
    ],
  )
  t.same(Object.keys(doc.paths['/v1/catalog/versions'].get.responses), ['200', '400', '404', '429', '500', '503'])
  t.ok(
    doc.tags.some((tag: { name: string }) => tag.name === 'catalog'),
    'the catalogue has a tag of its own',
  )

  // Every answer, success or failure, validates against the schema the document gives for its route and status.
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ajv.addSchema(doc, 'api')
  const methodOf = (path: string) => (doc.paths[path]?.post === undefined ? 'get' : 'post')
  const operationPointer = (path: string, method: string) => `api#/paths/${path.replace(/\//g, '~1')}/${method}`
  const pointer = (path: string, status: number, method = methodOf(path)) =>
    `${operationPointer(path, method)}/responses/${status}/content/application~1json/schema`
  const bodyPointer = (path: string, method = methodOf(path)) =>
    `${operationPointer(path, method)}/requestBody/content/application~1json/schema`
  const headerPointer = (path: string, status: number, name: string, method = methodOf(path)) =>
    `${operationPointer(path, method)}/responses/${status}/headers/${name}/schema`
  // A header is text on the wire: one the document types as an integer is read as its digits, anything else stays text
  // (and fails an integer schema).
  const headerValue = (schema: { type?: unknown }, raw: string): unknown =>
    schema.type === 'integer' && /^-?[0-9]+$/.test(raw) ? Number(raw) : raw
  /**
   * Each header of `answer` that the document declares for its route and status matches the declared schema; those
   * named in `carried` must be both sent and declared, so that the check cannot pass on their absence.
   */
  const headersMatch = (
    what: string,
    path: string,
    status: number,
    answer: { readonly headers: Record<string, string | string[] | undefined> },
    carried: readonly string[],
    method = methodOf(path),
  ) => {
    const declared = (doc.paths[path][method].responses[status]?.headers ?? {}) as Record<string, { schema: any }>
    const names = new Map(Object.keys(declared).map((name) => [name.toLowerCase(), name]))
    for (const name of carried) {
      t.not(answer.headers[name.toLowerCase()], undefined, `${what} carries ${name}`)
      t.ok(names.has(name.toLowerCase()), `the document declares ${name} for ${status} ${path}`)
    }
    for (const [lower, name] of names) {
      const raw = answer.headers[lower]
      if (raw === undefined) continue
      const validate = ajv.getSchema(headerPointer(path, status, name, method))!
      t.ok(
        validate(headerValue(declared[name]!.schema, String(raw))),
        `${what}: ${name} ${String(raw)} matches the document: ${JSON.stringify(validate.errors)}`,
      )
    }
  }
  const keySchema = ajv.compile(idempotencyKey.schema)
  const visible = Array.from({ length: 0x7e - 0x20 }, (_, i) => String.fromCharCode(0x21 + i)).join('')
  t.same(
    [visible, 'x'.repeat(255), '6f1c5a0e-2b7d-4c39-9a51-0d6f3e8b2c47'].map((key) => keySchema(key)),
    [true, true, true],
    'an Idempotency-Key may be any visible ASCII, up to 255 characters',
  )
  t.same(
    ['', 'x'.repeat(256), 'a b', 'tab\there', 'del\x7f', 'zażółć'].map((key) => keySchema(key)),
    [false, false, false, false, false, false],
    'an Idempotency-Key is not empty, too long, spaced, a control character or beyond ASCII',
  )
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
    ['/v1/catalog/versions?make=VW&model=Golf&year=2017', 200],
    ['/v1/catalog/versions?make=VW&model=Golf', 400],
    ['/v1/catalog/versions?make=VW&model=Golf&year=2017&version=GTI', 400],
    ['/v1/catalog/versions?make=VW&model=Polo&year=2017', 404],
    ['/v1/market/valuation?make=VW&model=Golf&year=abc', 400],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&colour=red', 400],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&fuel_type=steam', 400],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=900000', 404],
    ['/v1/market/valuation?make=VW&model=Golf&year=2017&fuel_type=hydrogen&gearbox=a', 404],
    ['/v1/market/regional?make=VW&model=Polo&year=2017', 404],
    ['/v1/market/regional?make=Nosuchmake&model=Polo&year=2017', 404],
    ['/v1/chart/regional.svg?make=VW&model=Polo&year=2017', 404],
    ['/v1/chart/depreciation.svg?make=VW&model=Golf&year=2017', 400],
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
  const ledger = await openLedger(ledgerDir)
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

  // Revalidation and idempotency of a market call, against the document.
  const bare = async (path: string, headers: Record<string, string>) => {
    const response = await request(`${base}${path}`, { headers })
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
  }
  const matches = (what: string, path: string, status: number, answer: { status: number; body: unknown }) => {
    t.equal(answer.status, status, what)
    const validate = ajv.getSchema(pointer(path, status))!
    t.ok(validate(answer.body), `${what} matches the document: ${JSON.stringify(validate.errors)}`)
  }
  const payer = await ledger.createAccount('protocol@example.pl', 100, 'grant', null)
  const valuationPath = '/v1/market/valuation'
  const first = await get(`${valuationPath}?${q}`, { key: payer.key, headers: { 'idempotency-key': 'valuation-1' } })
  matches('a keyed 200 under a key', valuationPath, 200, first)
  headersMatch('a keyed 200', valuationPath, 200, first, [
    'ETag',
    'Cache-Control',
    'Vary',
    'X-Credits-Used',
    'X-Credits-Remaining',
  ])
  const replayed = await get(`${valuationPath}?${q}`, { key: payer.key, headers: { 'idempotency-key': 'valuation-1' } })
  matches('a replayed 200', valuationPath, 200, replayed)
  t.equal(replayed.headers['idempotent-replayed'], 'true')
  headersMatch('a replayed 200', valuationPath, 200, replayed, ['Idempotent-Replayed', 'X-Credits-Used'])
  const validator = first.headers.etag as string
  for (const [who, key] of [
    ['keyed', { 'x-api-key': payer.key }],
    ['keyless', {}],
  ] as const) {
    const unchanged = await bare(`${valuationPath}?${q}`, { ...key, 'if-none-match': validator })
    t.equal(unchanged.status, 304, `${who}: the ETag of a 200 revalidates it`)
    t.equal(unchanged.text, '', `${who}: a 304 has no body`)
    headersMatch(
      `a ${who} 304`,
      valuationPath,
      304,
      unchanged,
      who === 'keyed'
        ? ['ETag', 'Cache-Control', 'Vary', 'X-Credits-Used', 'X-Credits-Remaining']
        : ['ETag', 'Cache-Control', 'Vary'],
    )
    if (who === 'keyed') t.equal(unchanged.headers['x-credits-used'], '0', 'a 304 is free')
  }
  // A call in flight holds its key only for milliseconds: taken up here as that call would, it stays held.
  const held = await ledger.startIdempotent(payer.account.id, {
    key: 'valuation-2',
    fingerprint: fingerprint(
      'GET',
      valuationPath,
      canonicalQuery(
        new Map([
          ['make', 'VW'],
          ['model', 'Golf'],
          ['year', '2017'],
        ]),
      ),
    ),
  })
  t.equal(held.state, 'started')
  const inFlight = await get(`${valuationPath}?${q}`, { key: payer.key, headers: { 'idempotency-key': 'valuation-2' } })
  matches('a key in flight', valuationPath, 409, inFlight)
  t.equal(inFlight.body.error?.code, 'IDEMPOTENCY_KEY_IN_FLIGHT')
  headersMatch('a 409', valuationPath, 409, inFlight, ['Retry-After'])
  const reused = await get(`${valuationPath}?${q}&mileage=100000`, {
    key: payer.key,
    headers: { 'idempotency-key': 'valuation-2' },
  })
  matches('a key reused with other parameters', valuationPath, 422, reused)
  t.equal(reused.body.error?.code, 'IDEMPOTENCY_KEY_REUSED')
  const spaced = await get(`${valuationPath}?${q}`, { key: payer.key, headers: { 'idempotency-key': 'a b' } })
  matches('a key the document does not allow', valuationPath, 400, spaced)
  t.same([spaced.body.error?.code, spaced.body.error?.parameter], ['INVALID_PARAMETER', 'Idempotency-Key'])

  // Batches: every operation, items that fail in their places, and (keyed) one the balance cannot pay.
  const batchPath = '/v1/market/batch'
  const vehicle = { make: 'VW', model: 'Golf', year: 2017 }
  const mixed = {
    requests: [
      { operation: 'valuation', ...vehicle, mileage: 100000 },
      { operation: 'price-history', ...vehicle, months: '3' },
      { operation: 'liquidity', ...vehicle },
      { operation: 'valuation-factors', ...vehicle },
      { operation: 'regional', ...vehicle, year: '2017' },
      { operation: 'depreciation', make: 'VW', model: 'Golf', fuel_type: 'diesel' },
      { operation: 'liquidity', ...vehicle },
      { operation: 'valuation', ...vehicle, year: 'abc' },
      { operation: 'regional', make: 'VW', model: 'Polo', year: 2017 },
    ],
  }
  const outcomes = (answer: { body: any }) =>
    (answer.body.data?.results ?? []).map((r: any) => (r.status === 'success' ? 'success' : r.error?.code))
  const keyless = await post(batchPath, mixed)
  matches('a keyless batch', batchPath, 200, keyless)
  t.same(outcomes(keyless), [...Array(7).fill('success'), 'INVALID_PARAMETER', 'INSUFFICIENT_DATA'])
  t.notOk('credits_remaining' in (keyless.body.data ?? {}), 'a keyless batch has no balance')
  headersMatch('a keyless batch', batchPath, 200, keyless, [])
  const buyer = await ledger.createAccount('batch@example.pl', 50, 'grant', null)
  const batchKey = { key: buyer.key, headers: { 'idempotency-key': 'batch-1' } }
  // 50 credits pay the first five items (44) but not the depreciation (10); the liquidity after it (6) still fits.
  const keyedBatch = await post(batchPath, mixed, batchKey)
  matches('a keyed batch', batchPath, 200, keyedBatch)
  t.same(outcomes(keyedBatch), [
    ...Array(5).fill('success'),
    'INSUFFICIENT_CREDITS',
    'success',
    'INVALID_PARAMETER',
    'INSUFFICIENT_DATA',
  ])
  t.match(keyedBatch.body.data, { credits_used: 50, credits_remaining: 0 })
  headersMatch('a keyed batch', batchPath, 200, keyedBatch, ['X-Credits-Used', 'X-Credits-Remaining'])
  t.equal(keyedBatch.headers['idempotent-replayed'], undefined, 'a first answer is not a replay')
  const replayedBatch = await post(batchPath, mixed, batchKey)
  matches('a replayed batch', batchPath, 200, replayedBatch)
  t.equal(replayedBatch.headers['idempotent-replayed'], 'true')
  t.same(replayedBatch.body, keyedBatch.body, 'the stored answer, given again')
  headersMatch('a replayed batch', batchPath, 200, replayedBatch, [
    'Idempotent-Replayed',
    'X-Credits-Used',
    'X-Credits-Remaining',
  ])
  const reusedBatch = await post(batchPath, { requests: mixed.requests.slice(0, 1) }, batchKey)
  matches('a batch key reused with another body', batchPath, 422, reusedBatch)
  t.equal(reusedBatch.body.error?.code, 'IDEMPOTENCY_KEY_REUSED')
  const notABatch = await post(batchPath, { requests: [{ operation: 'appraisal', ...vehicle }] })
  matches('not a batch', batchPath, 400, notABatch)
  t.same([notABatch.body.error?.code, notABatch.body.error?.parameter], ['INVALID_PARAMETER', 'requests[0].operation'])
  const oversized = await post(batchPath, { requests: mixed.requests, pad: 'x'.repeat(64 * 1024) })
  matches('a batch over 64 KiB', batchPath, 413, oversized)
  t.equal(oversized.body.error?.code, 'PAYLOAD_TOO_LARGE')
  const plain = await post(batchPath, JSON.stringify(mixed), { headers: { 'content-type': 'text/plain' } })
  matches('a batch not sent as JSON', batchPath, 415, plain)
  t.equal(plain.body.error?.code, 'UNSUPPORTED_MEDIA_TYPE')
  const example = await post(batchPath, batchBody.example)
  matches('the example batch', batchPath, 200, example)
  t.same(
    batchResponses['200'].content['application/json'].example,
    example.body,
    "the batch's example answer is the served snapshot's keyless answer",
  )

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
  await awayFromMinuteEnd(5)
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
  const checked = new Set<string>()
  for (const path of Object.keys(doc.paths)) {
    for (const [method, operation] of Object.entries(doc.paths[path] as Record<string, any>)) {
      const body = operation.requestBody?.content?.['application/json']?.example
      if (body !== undefined) {
        const validate = ajv.getSchema(bodyPointer(path, method))!
        t.ok(validate(body), `the request example of ${path} matches its schema: ${JSON.stringify(validate.errors)}`)
        checked.add(`${method} ${path} request`)
      }
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const media = response.content?.['application/json']
        const examples = [media?.example, ...Object.values(media?.examples ?? {}).map((e: any) => e.value)].filter(
          (e) => e !== undefined,
        )
        for (const example of examples) {
          const validate = ajv.getSchema(pointer(path, Number(status), method))!
          t.ok(
            validate(example),
            `the example of ${status} ${path} matches its schema: ${JSON.stringify(validate.errors)}`,
          )
          checked.add(`${method} ${path} ${status}`)
        }
      }
    }
  }
  for (const path of [
    ...market.map((m) => `/v1/market/${m}`),
    ...['/v1/catalog/makes', '/v1/catalog/models', '/v1/catalog/versions'],
  ])
    t.ok(doc.paths[path].get.responses['200'].content['application/json'].example, `${path}: a success example`)
  for (const example of ['request', '200', '409', '422'])
    t.ok(checked.has(`post /v1/market/batch ${example}`), `the batch's ${example} example was checked`)
})
