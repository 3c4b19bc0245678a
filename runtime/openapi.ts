import { MAX_DETAIL_TEXT, MAX_MILEAGE, MIN_YEAR, POWER_HP } from '../format/bounds.js'
import { MIN_LISTINGS, OPERATIONS, type Operation } from '../format/schema.js'
import { BODY_TYPES, FUEL_TYPES, GEARBOXES, VOIVODESHIPS } from '../format/vocabulary.js'
import { ERROR_STATUS, type ErrorCode } from '../query/api-error.js'
import type { MatchType } from '../query/name-resolver.js'
import { OPERATION_SPECS } from '../query/operations.js'
import { ASKING_PRICE, MAX_NAME_LENGTH, MONTHS } from '../query/params.js'
import { DEMO_QUOTA, OPERATION_CREDITS, PLANS, SIGNUP_CREDITS } from '../query/prices.js'
import { CHECKOUTS_PER_CLIENT_PER_HOUR } from './billing.js'
import { SESSION_COOKIE, SESSION_MS } from './sign-in.js'
import { REQUEST_VALUES, spellings, type Vocabulary } from '../query/value-aliases.js'
import { encode, type Encoded } from './encodings.js'
import { etagOf } from './etag.js'
import { EXAMPLE_BATCH, EXAMPLE_VEHICLE, type ExampleCall, type ExampleCalls } from './example-calls.js'
import { MAX_VALUE_LENGTH } from './query-string.js'
import { FAILED_CALL_ENTRIES_PER_DAY } from '../ledger/types.js'
import { USAGE_LIMIT } from './usage-limit.js'
import { BATCH } from './batch-call.js'
import { IDEMPOTENCY_HEADER } from './idempotency.js'
import { IDEMPOTENCY } from '../ledger/types.js'
import { ADDRESS_MAX_BYTES } from '../ledger/mailbox.js'
import { CHART_NAMES, type ChartName } from '../charts/charts.js'

type Schema = Record<string, unknown>

const integer = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra })
const number: Schema = { type: 'number' }
const string: Schema = { type: 'string' }
const object = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
})
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })
const MATCH_TYPES = [
  'exact',
  'normalized',
  'alias',
  'family',
  'fuzzy',
  'broader',
] as const satisfies readonly MatchType[]
/** Every spelling of a vocabulary, canonical values first; the canonical values are its examples. */
const enumerated = <T extends string>(vocabulary: Vocabulary<T>): Schema => ({
  ...string,
  enum: [...vocabulary.canonical, ...vocabulary.canonical.flatMap((c) => vocabulary.aliases[c])],
  examples: [...vocabulary.canonical],
  maxLength: MAX_VALUE_LENGTH,
})

const PARAMETERS: Record<string, Schema> = {
  make: {
    description: 'Make, as written or an alias (VW, Mercedes).',
    schema: { ...string, minLength: 1, maxLength: MAX_NAME_LENGTH },
    example: EXAMPLE_VEHICLE.make,
  },
  model: {
    description:
      'Model: as written, an alias or an English family (3 Series); words after it narrow the answer (Golf GTI, 320d).',
    schema: { ...string, minLength: 1, maxLength: MAX_NAME_LENGTH },
    example: EXAMPLE_VEHICLE.model,
  },
  fuel_type: {
    description: `Fuel type, answered as its canonical value: ${spellings(REQUEST_VALUES.fuel_type)}.`,
    schema: enumerated(REQUEST_VALUES.fuel_type),
    example: 'Diesel',
  },
  gearbox: {
    description: `Gearbox, answered as its canonical value: ${spellings(REQUEST_VALUES.gearbox)}.`,
    schema: enumerated(REQUEST_VALUES.gearbox),
    example: 'manual',
  },
  body_type: {
    description: `Body type, answered as its canonical value: ${spellings(REQUEST_VALUES.body_type)}.`,
    schema: enumerated(REQUEST_VALUES.body_type),
    example: 'Kombi',
  },
  version: {
    description:
      'Version words (2.0 TDI, GTI): only listings whose version or generation holds every word are counted.',
    schema: { ...string, minLength: 1, maxLength: MAX_DETAIL_TEXT },
    example: '2.0 TDI',
  },
  power_hp: {
    description: 'Engine power in KM (metric horsepower): only listings within ±10% of it are counted.',
    schema: integer({ minimum: POWER_HP.min, maximum: POWER_HP.max }),
    example: 150,
  },
  mileage: {
    description:
      'Target mileage in km: only listings within ±30% of it are used, and `adjusted` gives the median of every listing moved to it.',
    schema: integer({ minimum: 1, maximum: MAX_MILEAGE }),
    example: 120000,
  },
  asking_price: {
    description:
      'An asking price in whole PLN to place among the listings: answered as its percentile and a verdict (below_market under P25, above_market over P75, else fair).',
    schema: integer({ minimum: ASKING_PRICE.min, maximum: ASKING_PRICE.max }),
    example: 52000,
  },
  months: {
    description: 'Months of history, ending with the as-of month.',
    schema: integer({ minimum: MONTHS.min, maximum: MONTHS.max, default: MONTHS.default }),
    example: 12,
  },
}

const DESCRIPTIONS: Record<Operation, { summary: string; description: string; data: string }> = {
  valuation: {
    summary: 'Price distribution',
    description:
      "Average, median, P25 and P75 asking prices for a make, model and production year, the median's 95% confidence interval, the price change per 10,000 km, and with `mileage` or `asking_price` the value at that mileage or where that price sits.",
    data: 'ValuationData',
  },
  'price-history': {
    summary: 'Monthly price trend',
    description: 'Average asking price per month of first sighting; months without listings are left out.',
    data: 'PriceHistoryData',
  },
  liquidity: {
    summary: 'Days on market',
    description:
      'Median listing span of closed listings plus 13 days for the delay with which a listing is first detected.',
    data: 'LiquidityData',
  },
  'valuation-factors': {
    summary: 'Price impact of attributes',
    description:
      'Imported against domestic, automatic against manual and each fuel against petrol, as percentage differences of mean price.',
    data: 'ValuationFactorsData',
  },
  regional: {
    summary: 'Prices by voivodeship',
    description: 'Average asking price per voivodeship and its deviation from the national average.',
    data: 'RegionalData',
  },
  depreciation: {
    summary: 'Depreciation curve',
    description:
      "Median asking price of each production year with at least 10 listings (of the filters and words given), and how much higher each newer production year's median is on average, in per cent (a least-squares fit of ln(median) on the year): roughly the share of its value a car loses per year of age.",
    data: 'DepreciationData',
  },
}

const RATE_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The limits of this answer (IETF draft): "ip", requests per minute per address; on keyless market answers with a body (not a 304) and DEMO_LIMIT_REACHED also "demo", the calls per UTC day of the demo tier (w=86400).',
    schema: string,
  },
  RateLimit: {
    description:
      'What is left of each policy in its current window (r) and the seconds until the window starts again (t), IETF draft.',
    schema: string,
  },
}
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: integer() } }
const CREDIT_HEADERS = {
  'X-Credits-Used': {
    description:
      'Keyed calls: the credits this answer was charged (0 for a 304; a replayed answer tells what its first answer was charged).',
    schema: integer({ minimum: 0 }),
  },
  'X-Credits-Remaining': {
    description: 'Keyed calls: the balance after this answer (a replayed answer: as it was then).',
    schema: integer({ minimum: 0 }),
  },
}
const REPLAYED = {
  'Idempotent-Replayed': {
    description: `true when this is the stored answer of an earlier call with the same ${IDEMPOTENCY_HEADER}, given again without charge.`,
    schema: { const: 'true' },
  },
}
const VALIDATORS = {
  ETag: {
    description:
      'A weak validator of the answer (over the snapshot and the canonical request, not the credit fields): send it back in If-None-Match to revalidate for free. Absent on a replayed answer.',
    schema: string,
  },
  'Cache-Control': { description: 'private, no-cache: keep it, revalidate before each use.', schema: string },
  Vary: {
    description: "X-API-Key: a cache keeps an answer per key (the credit fields are the account's).",
    schema: string,
  },
}
const TTL_HOURS = IDEMPOTENCY.ttlMs / 3_600_000
const IDEMPOTENCY_KEY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description: `Keyed calls: a key of your choosing (a UUID) that names this call, so that a retry is never charged twice. Within ${TTL_HOURS} hours of its first use, per account, the same key with the same request (method, path, canonical parameters or body) answers the stored answer again (Idempotent-Replayed: true) and charges nothing; with another request it is 422 IDEMPOTENCY_KEY_REUSED; while its first call is in flight, 409 IDEMPOTENCY_KEY_IN_FLIGHT. A call that fails is not stored: its retry runs again. An account keeps its newest ${IDEMPOTENCY.keysPerAccount.toLocaleString('en-US')} keys. Keyless calls ignore it.`,
  schema: { ...string, minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
  example: '6f1c5a0e-2b7d-4c39-9a51-0d6f3e8b2c47',
}
const IF_NONE_MATCH_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of an answer you keep: when it still holds (same snapshot, same request) the answer is 304 Not Modified, charged nothing and not counted against the demo quota.',
  schema: string,
  example: 'W/"04a5eav0239jqr"',
}

function errorResponse(description: string, codes: readonly ErrorCode[], retry = false): Schema {
  return {
    description,
    headers: retry ? { ...RATE_HEADERS, ...RETRY_AFTER } : RATE_HEADERS,
    content: {
      'application/json': {
        schema: ref('Error'),
        examples: Object.fromEntries(
          codes.map((code) => [
            code,
            { value: { status: 'error', error: { code, message: `An example of ${code}.` } } },
          ]),
        ),
      },
    },
  }
}

/** An operation of the document, with the members a chart's path takes from its market path. */
interface OperationObject extends Schema {
  readonly operationId: string
  readonly responses: Readonly<Record<string, Schema>>
}

/** The production year a request names: up to the latest the snapshot can hold. */
function yearParameter(maxYear: number): Schema {
  return {
    description: 'Production year.',
    schema: integer({ minimum: MIN_YEAR, maximum: maxYear }),
    example: EXAMPLE_VEHICLE.year,
  }
}

function marketPath(
  operation: Operation,
  maxYear: number,
  example: ExampleCall | undefined,
): { readonly get: OperationObject } {
  const spec = OPERATION_SPECS[operation]
  const text = DESCRIPTIONS[operation]
  const parameters = spec.parameters.map((name) => {
    const definition = name === 'year' ? yearParameter(maxYear) : PARAMETERS[name]!
    return { name, in: 'query', required: name in EXAMPLE_VEHICLE, ...definition }
  })
  parameters.push(IF_NONE_MATCH_PARAMETER, IDEMPOTENCY_KEY_PARAMETER)
  return {
    get: {
      operationId: operation.replace(/-(.)/g, (_, c: string) => c.toUpperCase()),
      summary: `${text.summary} (${spec.credits} credits)`,
      // The price as a number, for readers of the document (the web reference, llms.txt) that would otherwise parse the
      // summary.
      'x-credits': spec.credits,
      description: `${text.description} Costs ${spec.credits} credits; a failed call costs none. Without X-API-Key: the keyless demo tier.`,
      tags: ['market'],
      parameters,
      responses: {
        '200': {
          description: 'The statistics.',
          headers: { ...RATE_HEADERS, ...VALIDATORS, ...CREDIT_HEADERS, ...REPLAYED },
          content: {
            'application/json': {
              schema: object({ status: { const: 'success' }, data: ref(text.data) }),
              // The answer of the example request from the served snapshot; none when it is not a success.
              ...(example?.status === 200 ? { example: JSON.parse(example.body) as unknown } : {}),
            },
          },
        },
        '304': {
          description:
            'Not Modified: the If-None-Match names this answer, which still holds. Free, and not counted against the demo quota.',
          headers: { ...RATE_HEADERS, ...VALIDATORS, ...CREDIT_HEADERS },
        },
        '400': errorResponse(
          `A parameter is missing, unknown, given twice or not accepted, or the ${IDEMPOTENCY_HEADER} is not 1 to 255 visible ASCII characters (INVALID_PARAMETER, naming it).`,
          ['INVALID_PARAMETER'],
        ),
        '401': errorResponse('The X-API-Key header is present but empty or unknown, or its account is disabled.', [
          'UNAUTHORIZED',
          'ACCOUNT_DISABLED',
        ]),
        '402': errorResponse("The balance is lower than the call's price (with top_up_url).", ['INSUFFICIENT_CREDITS']),
        '404': errorResponse('Fewer than 10 listings match, or a name resolves to nothing (with suggestions).', [
          'INSUFFICIENT_DATA',
        ]),
        ...IDEMPOTENCY_ERRORS,
        '429': errorResponse(
          'The keyless daily quota or the rate limit is used up.',
          ['DEMO_LIMIT_REACHED', 'RATE_LIMIT_EXCEEDED'],
          true,
        ),
        '500': errorResponse('The server failed; no credits were used. Retry.', ['INTERNAL_ERROR']),
        '503': errorResponse(
          'No snapshot is open yet, or the call cannot be recorded at the moment (storage failing): nothing was charged or counted; retry after Retry-After.',
          ['NOT_READY', 'SERVICE_UNAVAILABLE'],
          true,
        ),
      },
    },
  }
}

/** GET /v1/chart/{name}.svg: the operation's path, its answer an SVG image. */
function chartPath(name: ChartName, maxYear: number): Schema {
  const { get } = marketPath(name, maxYear, undefined)
  const text = DESCRIPTIONS[name]
  const credits = OPERATION_SPECS[name].credits
  return {
    get: {
      ...get,
      operationId: `${get.operationId}Chart`,
      summary: `${text.summary} as an SVG chart (${credits} credits)`,
      description: `The answer of GET /v1/market/${name} with the same parameters, drawn as an SVG image to put in a page, a report or a chat answer: a \`<title>\` and, in its \`<desc>\`, every figure it draws in words. Metered exactly as that call (${credits} credits, the demo tier without X-API-Key, failures free, ${IDEMPOTENCY_HEADER}, ETag revalidation); a failure is the usual JSON error.`,
      tags: ['charts'],
      responses: {
        ...get.responses,
        '200': {
          description: 'The chart.',
          headers: get.responses['200']!.headers,
          content: { 'image/svg+xml': { schema: { type: 'string', contentMediaType: 'image/svg+xml' } } },
        },
      },
    },
  }
}

const IDEMPOTENCY_ERRORS = {
  '409': errorResponse(
    `A call with the same ${IDEMPOTENCY_HEADER} is still being answered; retry after Retry-After.`,
    ['IDEMPOTENCY_KEY_IN_FLIGHT'],
    true,
  ),
  '422': errorResponse(`The ${IDEMPOTENCY_HEADER} was used with another request in the last ${TTL_HOURS} hours.`, [
    'IDEMPOTENCY_KEY_REUSED',
  ]),
}

/** A parameter of a batch item: the query parameter's schema, its integers also as their digits and its names as numbers. */
function itemField(name: string, maxYear: number): Schema {
  if (name === 'year') return { type: ['integer', 'string'], minimum: MIN_YEAR, maximum: maxYear }
  const { schema, description } = PARAMETERS[name]! as { schema: Schema; description: string }
  if (schema.type === 'integer') return { ...schema, type: ['integer', 'string'], description }
  if (schema.enum !== undefined) return { ...schema, description }
  return { ...schema, type: ['string', 'number'], description }
}

/** POST /v1/market/batch. */
function batchPath(maxYear: number, example: ExampleCall | undefined): Schema {
  const item = (operation: Operation): Schema => {
    const names = OPERATION_SPECS[operation].parameters
    return {
      type: 'object',
      properties: {
        operation: { const: operation },
        ...Object.fromEntries(names.map((n) => [n, itemField(n, maxYear)])),
      },
      required: ['operation', ...names.filter((n) => n in EXAMPLE_VEHICLE)],
      additionalProperties: false,
    }
  }
  const results = {
    type: 'array',
    description: 'One envelope per item, in the order asked.',
    items: {
      oneOf: [
        object({ status: { const: 'success' }, data: { anyOf: OPERATIONS.map((o) => ref(DESCRIPTIONS[o].data)) } }),
        ref('Error'),
      ],
    },
  }
  return {
    post: {
      operationId: 'batch',
      tags: ['batch'],
      summary: `Up to ${BATCH.maxItems} market calls in one request`,
      description: `Each item is a market operation (named as in its path) with its own parameters, as JSON strings or numbers, and is answered in its own envelope, in order, exactly as its own call would be. Keyed, each item answered costs its operation's price and all the debits commit together: an item that fails (400, 404) is not charged, and once the balance runs out the items that cannot be paid get 402 while cheaper items after them may still be answered. Keyless, each item answered counts against the demo quota, and items past it get 429 DEMO_LIMIT_REACHED in their place. A body that is not a batch is refused whole (400, naming the item). With ${IDEMPOTENCY_HEADER}, a retry gets the stored answer.`,
      parameters: [IDEMPOTENCY_KEY_PARAMETER],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                requests: {
                  type: 'array',
                  minItems: 1,
                  maxItems: BATCH.maxItems,
                  items: { oneOf: OPERATIONS.map(item) },
                },
              },
              required: ['requests'],
              additionalProperties: false,
            },
            example: EXAMPLE_BATCH,
          },
        },
      },
      responses: {
        '200': {
          description: 'Each item answered in its place.',
          headers: { ...RATE_HEADERS, ...CREDIT_HEADERS, ...REPLAYED },
          content: {
            'application/json': {
              schema: object({
                status: { const: 'success' },
                data: object(
                  {
                    results,
                    credits_used: {
                      ...integer({ minimum: 0 }),
                      description: 'The sum of the items answered (keyless: what keyed calls would cost).',
                    },
                    credits_remaining: { ...integer(), description: 'The balance after the batch; only keyed.' },
                  },
                  ['results', 'credits_used'],
                ),
              }),
              // The answer of the example batch from the served snapshot, keyless; none when it is not a success.
              ...(example?.status === 200 ? { example: JSON.parse(example.body) as unknown } : {}),
            },
          },
        },
        '400': errorResponse(
          `The body is not a batch: no \`requests\` array of 1 to ${BATCH.maxItems} objects each naming a market operation (INVALID_PARAMETER, naming the item, such as requests[3].operation), or the ${IDEMPOTENCY_HEADER} is not accepted.`,
          ['INVALID_PARAMETER'],
        ),
        '401': errorResponse('The X-API-Key header is present but empty or unknown, or its account is disabled.', [
          'UNAUTHORIZED',
          'ACCOUNT_DISABLED',
        ]),
        ...IDEMPOTENCY_ERRORS,
        '413': errorResponse(`The body is larger than ${BATCH.maxBodyBytes / 1024} KiB.`, ['PAYLOAD_TOO_LARGE']),
        '415': errorResponse('The body is not application/json.', ['UNSUPPORTED_MEDIA_TYPE']),
        '429': errorResponse('The rate limit is used up (a batch is one request).', ['RATE_LIMIT_EXCEEDED'], true),
        '500': errorResponse('The server failed; nothing was charged. Retry.', ['INTERNAL_ERROR']),
        '503': errorResponse(
          'No snapshot is open yet, or the call cannot be recorded at the moment: nothing was charged or counted; retry after Retry-After.',
          ['NOT_READY', 'SERVICE_UNAVAILABLE'],
          true,
        ),
      },
    },
  }
}

/** A free, keyless catalogue route (data contract 5.6). */
function catalogPath(
  operationId: string,
  summary: string,
  description: string,
  data: string,
  parameters: readonly Schema[],
  example: ExampleCall | undefined,
): Schema {
  const models = parameters.length > 0
  return {
    get: {
      operationId,
      summary: `${summary} (0 credits)`,
      'x-credits': 0,
      description: `${description} Free and keyless: no key is read and the demo quota is not used; only the rate limit applies.`,
      tags: ['catalog'],
      security: [],
      parameters,
      responses: {
        '200': {
          description: 'The catalogue.',
          headers: RATE_HEADERS,
          content: {
            'application/json': {
              schema: object({ status: { const: 'success' }, data: ref(data) }),
              ...(example?.status === 200 ? { example: JSON.parse(example.body) as unknown } : {}),
            },
          },
        },
        '400': errorResponse(
          models
            ? `${parameters.map((p) => p.name).join(', ')}: one is missing, empty, too long or out of range, or a parameter is unknown or given twice (INVALID_PARAMETER, naming it).`
            : 'The route takes no parameters: any is INVALID_PARAMETER, naming it.',
          ['INVALID_PARAMETER'],
        ),
        ...(models
          ? {
              '404': errorResponse(
                parameters.some((p) => p.name === 'year')
                  ? 'The names resolve to nothing (with suggestions), or fewer than 10 listings have that make, model and year.'
                  : 'The make resolves to nothing (with suggestions).',
                ['INSUFFICIENT_DATA'],
              ),
            }
          : {}),
        '429': errorResponse('The rate limit is used up.', ['RATE_LIMIT_EXCEEDED'], true),
        '500': errorResponse('The server failed. Retry.', ['INTERNAL_ERROR']),
        '503': errorResponse('No snapshot is open yet; retry later.', ['NOT_READY']),
      },
    },
  }
}

function schemas(): Record<string, Schema> {
  const side = object({ label: string, avg_price: number, sample_size: integer() })
  const base = {
    make: { ...string, description: 'The make as the request gave it.' },
    model: { ...string, description: 'The model as the request gave it.' },
    year: integer(),
    matched: ref('Matched'),
    credits_used: { ...integer(), description: 'What the call costs (a keyless call shows what a keyed one would).' },
    credits_remaining: { ...integer(), description: 'The balance after the call; only in keyed answers.' },
  }
  const data = (properties: Record<string, Schema>, { year = true } = {}) => {
    const { year: _year, ...yearless } = base
    const common = year ? base : yearless
    return object(
      { ...common, ...properties },
      [...Object.keys(common), ...Object.keys(properties)].filter((k) => k !== 'credits_remaining'),
    )
  }
  const nullable = (schema: Schema, description: string): Schema => ({ oneOf: [schema, { type: 'null' }], description })
  const currency = { const: 'PLN' }
  return {
    Matched: {
      ...object({
        makes: { type: 'array', items: string },
        models: { type: 'array', items: string },
        match_type: { enum: MATCH_TYPES },
        fuel_type: { type: ['string', 'null'] },
        gearbox: { type: ['string', 'null'] },
        body_type: { type: ['string', 'null'] },
        version_words: { type: 'array', items: string },
        unresolved: { type: 'array', items: string },
      }),
      description: 'Canonical names and match type; filters and version words applied; words not applied (unresolved).',
    },
    CatalogMakesData: object({
      makes: {
        type: 'array',
        description: 'Every make with at least one listing, the most listed first, then by name (code-point order).',
        items: object({ make: string, listings: integer({ minimum: 1 }) }),
      },
    }),
    CatalogModelsData: object({
      make: { ...string, description: 'The make as the request gave it.' },
      matched: object({
        makes: { type: 'array', items: string },
        match_type: { enum: MATCH_TYPES.filter((type) => type !== 'family') },
      }),
      models: {
        type: 'array',
        description:
          'Every model of the make with at least one listing, the most listed first, then by name (code-point order).',
        items: object({
          model: string,
          listings: integer({ minimum: 1 }),
          years: {
            type: 'array',
            items: integer(),
            description:
              'The production years with at least 10 listings (those a market operation can answer), oldest first.',
          },
          families: {
            type: 'array',
            items: string,
            description: 'The family names that resolve to this model, among others (3 Series for Seria 3).',
          },
        }),
      },
    }),
    CatalogVersionsData: object({
      make: base.make,
      model: base.model,
      year: base.year,
      matched: base.matched,
      listings: integer({ minimum: MIN_LISTINGS }),
      versions: { type: 'array', items: object({ version: string, listings: integer({ minimum: 1 }) }) },
      generations: { type: 'array', items: object({ generation: string, listings: integer({ minimum: 1 }) }) },
      body_types: { type: 'array', items: object({ body_type: string, listings: integer({ minimum: 1 }) }) },
    }),
    ValuationData: data({
      currency,
      filters: object({
        fuel_type: { enum: [...FUEL_TYPES, null] },
        gearbox: { enum: [...GEARBOXES, null] },
        body_type: { enum: [...BODY_TYPES, null] },
        version: { type: ['string', 'null'] },
        power_hp: { type: ['integer', 'null'] },
        mileage: { type: ['integer', 'null'] },
      }),
      valuation: object({ average: number, median: number, p25: number, p75: number }),
      sample_size: integer(),
      confidence: {
        ...object({ median_low: number, median_high: number, level_pct: number }),
        description:
          "The median's distribution-free confidence interval: two listing prices x(k) and x(n-k+1) of the n sorted prices, with k the largest rank whose binomial tail is at most 2.5%; level_pct is its actual coverage (at least 95.0).",
      },
      mileage_effect: nullable(
        object({ pct_per_10000_km: number, sample_size: integer({ minimum: MIN_LISTINGS }) }),
        "Price change per 10,000 km more, in per cent: a least-squares fit of ln(price) on mileage over the key's listings with a known mileage (fuel_type, gearbox and the model's detail applied, the mileage window not). Null with fewer than 10 such listings or when they all have one mileage.",
      ),
      adjusted: nullable(
        object({ mileage: integer(), median: number, sample_size: integer({ minimum: MIN_LISTINGS }) }),
        "With `mileage`: the median of the fit's listings, each moved to that mileage along the fitted slope. Null without `mileage` or when mileage_effect is null.",
      ),
      asking_price: nullable(
        object({
          price: integer(),
          percentile: number,
          verdict: { enum: ['below_market', 'fair', 'above_market'] },
        }),
        "With `asking_price`: the share of the valuation's listings priced below it (ties count half), in per cent, and the verdict against the unrounded P25 and P75. Null without `asking_price`.",
      ),
    }),
    DepreciationData: data(
      {
        currency,
        curve: {
          type: 'array',
          description:
            'The production years with at least 10 listings (of the fuel, gearbox, body, power and version words, when given), oldest first.',
          items: object({ year: integer(), median: number, sample_size: integer({ minimum: MIN_LISTINGS }) }),
        },
        annual_change_pct: {
          type: ['number', 'null'],
          description:
            "How much higher each newer production year's median is, on average, in per cent: 100 (exp(s) - 1), s the least-squares slope of ln(median) on the production year over the curve's points (unrounded medians). Positive when newer years are dearer, as they usually are: a car then loses roughly that share of its value per year of age. Null with fewer than 3 years.",
        },
      },
      { year: false },
    ),
    PriceHistoryData: data({
      currency,
      months_requested: integer({ minimum: MONTHS.min, maximum: MONTHS.max }),
      trend: {
        type: 'array',
        items: object({
          month: { ...string, pattern: '^[0-9]{4}-[0-9]{2}$' },
          avg_price: number,
          sample_size: integer(),
        }),
      },
    }),
    LiquidityData: data({
      estimated_days_on_market: integer(),
      observed_listing_span: integer(),
      active_listings: integer(),
      sample_size: integer(),
      note: string,
    }),
    ValuationFactorsData: data({
      currency,
      total_sample_size: integer(),
      factors: {
        type: 'array',
        items: object({
          dimension: { enum: ['import_status', 'gearbox', 'fuel_type'] },
          baseline: side,
          comparison: side,
          price_diff_percent: number,
        }),
      },
    }),
    RegionalData: data({
      currency,
      national_average: number,
      total_sample_size: integer(),
      regions: {
        type: 'array',
        items: object({
          region: { enum: [...VOIVODESHIPS] },
          avg_price: number,
          sample_size: integer(),
          vs_national_pct: number,
        }),
      },
    }),
    AccountData: object({
      account_id: string,
      email: string,
      status: { enum: ['active', 'disabled'] },
      credits_remaining: integer(),
      credits_granted: integer(),
      credits_used: integer(),
      created: { ...string, format: 'date-time' },
      key_prefix: { ...string, description: 'The first characters of the current key.' },
    }),
    UsageData: object({
      account_id: string,
      limit: integer({ minimum: USAGE_LIMIT.min, maximum: USAGE_LIMIT.max }),
      transactions: {
        type: 'array',
        description: 'Newest first.',
        items: object({
          id: string,
          time: { ...string, format: 'date-time' },
          type: { enum: ['signup_bonus', 'grant', 'charge', 'failed_call', 'reversal'] },
          credits: {
            ...integer(),
            description: `Signed: a valuation charge is -${OPERATION_CREDITS.valuation}; a failed call 0.`,
          },
          balance_after: integer(),
          endpoint: { type: ['string', 'null'] },
          make: { type: ['string', 'null'] },
          model: { type: ['string', 'null'] },
          year: { type: ['integer', 'null'] },
          status: { ...string, description: 'success, or the error code of a failed call (refunded automatically).' },
          reference: { type: ['string', 'null'] },
          count: {
            ...integer({ minimum: 1 }),
            description: `The calls the entry stands for: 1, but for a failed_call entry, which also counts the same failure repeated right after it that day, and every failure of the day past the account's first ${FAILED_CALL_ENTRIES_PER_DAY} failure entries that day.`,
          },
        }),
      },
    }),
    Error: object({
      status: { const: 'error' },
      error: object(
        {
          code: { enum: Object.keys(ERROR_STATUS) },
          message: string,
          parameter: {
            ...string,
            description: `INVALID_PARAMETER: the parameter at fault (a query parameter, a body member such as requests[3].operation, or the ${IDEMPOTENCY_HEADER} header).`,
          },
          suggestions: {
            type: 'array',
            items: string,
            description:
              "INSUFFICIENT_DATA for a name that resolves to nothing: up to 5 names to try (canonical names and families), best first: those the name starts as a word (3 offers 3 Series), holds as a word or starts, then close ones by edit distance; a model of a known make always gets some of the make's models (its most listed when nothing is close). The message names the first. For version words that fewer than 10 listings hold: the most listed versions of the key.",
          },
          sample_size: { ...integer(), description: 'INSUFFICIENT_DATA: the listings that matched.' },
          filters: {
            type: 'object',
            description: 'INSUFFICIENT_DATA of a filtered valuation: its filters, as its answer would echo them.',
          },
          mileage_window: {
            ...object({ from: integer(), to: integer() }),
            description: 'INSUFFICIENT_DATA of a valuation with a mileage: the km (inclusive) its ±30% window keeps.',
          },
          accepted: {
            type: 'object',
            additionalProperties: { type: 'array', items: string },
            description:
              'INVALID_PARAMETER of fuel_type, gearbox or body_type: each canonical value with the aliases it accepts.',
          },
          register_url: { ...string, description: 'DEMO_LIMIT_REACHED: where to register for a key.' },
          top_up_url: { ...string, description: 'INSUFFICIENT_CREDITS: where to buy credits.' },
          ledger: {
            const: 'failing',
            description: 'SERVICE_UNAVAILABLE from /readyz: writes to the ledger are failing.',
          },
          counters: {
            const: 'failing',
            description: 'SERVICE_UNAVAILABLE from /readyz: writes to the demo and rate counters are failing.',
          },
        },
        ['code', 'message'],
      ),
    }),
  }
}

/** An e-mail address and a code of one, as the registration, sign-in and checkout bodies take them. */
const EMAIL = { ...string, format: 'email', maxLength: ADDRESS_MAX_BYTES }
const CODE = { ...string, pattern: '^[0-9]{6}$' }

function authPath(
  operationId: string,
  summary: string,
  body: Record<string, Schema>,
  example: Record<string, string>,
  data: Record<string, Schema>,
): Schema {
  return {
    post: {
      tags: ['registration'],
      operationId,
      summary,
      security: [],
      requestBody: { required: true, content: { 'application/json': { schema: object(body), example } } },
      responses: {
        '200': {
          description: 'Done.',
          headers: RATE_HEADERS,
          content: { 'application/json': { schema: object({ status: { const: 'success' }, data: object(data) }) } },
        },
        '400': errorResponse(
          'The body or one of its fields is not accepted, or the code is wrong, used up or expired (naming the field).',
          ['INVALID_PARAMETER'],
        ),
        '413': errorResponse('The body is larger than 4 KiB.', ['PAYLOAD_TOO_LARGE']),
        '415': errorResponse('The body is not application/json.', ['UNSUPPORTED_MEDIA_TYPE']),
        '429': errorResponse(
          'Too many codes for this mailbox or client address in the last hour, too many accounts opened from this client address today, or the rate limit.',
          ['RATE_LIMIT_EXCEEDED'],
          true,
        ),
        '500': errorResponse('The server failed. Retry.', ['INTERNAL_ERROR']),
        '503': errorResponse(
          'The e-mail or the ledger cannot be written at the moment; retry after Retry-After.',
          ['SERVICE_UNAVAILABLE'],
          true,
        ),
      },
    },
  }
}

function accountPath(operationId: string, summary: string, data: string, parameters: readonly Schema[]): Schema {
  return {
    get: {
      tags: ['account'],
      operationId,
      summary,
      'x-credits': 0,
      security: [{ ApiKey: [] }],
      parameters,
      responses: {
        '200': {
          description: summary,
          headers: RATE_HEADERS,
          content: { 'application/json': { schema: object({ status: { const: 'success' }, data: ref(data) }) } },
        },
        '400': errorResponse('A parameter is unknown or not accepted.', ['INVALID_PARAMETER']),
        '401': errorResponse('No key, an unknown key, or a disabled account.', ['UNAUTHORIZED', 'ACCOUNT_DISABLED']),
        '429': errorResponse('The rate limit is used up.', ['RATE_LIMIT_EXCEEDED'], true),
        '500': errorResponse('The server failed. Retry.', ['INTERNAL_ERROR']),
      },
    },
  }
}

/**
 * The OpenAPI 3.1.0 description of everything the runtime serves, built from the same
 * parameter bounds, vocabularies, operation costs and error codes the code validates
 * with, so the two cannot drift. Built when the runtime starts and again for each new
 * snapshot: the year's upper bound is the snapshot's, and the example answers, by
 * path, are the answers of its example requests.
 */
export function openApiDocument(maxYear: number, serverUrl: string, examples: ExampleCalls = new Map()): Schema {
  const plain = (operationId: string, description: string, data: Schema) => ({
    get: {
      operationId,
      security: [],
      summary: description,
      responses: {
        '200': {
          description,
          content: { 'application/json': { schema: object({ status: { const: 'success' }, data }) } },
        },
      },
    },
  })
  return {
    openapi: '3.1.0',
    info: {
      title: 'Polish used-car market data',
      version: '1.0.0',
      description: `Aggregated statistics on the Polish used-car market (prices in PLN). Market calls cost prepaid credits; without an X-API-Key header they are answered by the keyless demo tier (${DEMO_QUOTA} per address per day by default). Market answers carry a weak ETag: revalidating with If-None-Match is free. A keyed call may carry an ${IDEMPOTENCY_HEADER}, so that a retry is never charged twice; POST /v1/market/batch answers up to ${BATCH.maxItems} market calls at once.`,
    },
    servers: [{ url: serverUrl }],
    security: [{ ApiKey: [] }, {}],
    tags: [
      { name: 'market', description: 'Paid market statistics.' },
      {
        name: 'batch',
        description: `Several market calls in one request, up to ${BATCH.maxItems}, each at its own price.`,
      },
      {
        name: 'charts',
        description: 'Market answers drawn as SVG images, at the price of the answer they draw.',
      },
      {
        name: 'catalog',
        description: 'The makes and models the data hold, and the years they can be asked for; free and keyless.',
      },
      { name: 'account', description: 'The account of a key; free.' },
      { name: 'registration', description: 'Registration by e-mail one-time code (the web pages use these).' },
      {
        name: 'billing',
        description:
          'Plans bought online through Stripe Checkout, where the server sells them (else these answer 404, and plans are ordered by e-mail).',
      },
    ],
    paths: {
      ...Object.fromEntries(
        OPERATIONS.map((operation) => {
          const path = `/v1/market/${operation}`
          return [path, marketPath(operation, maxYear, examples.get(path))]
        }),
      ),
      '/v1/market/batch': batchPath(maxYear, examples.get('/v1/market/batch')),
      ...Object.fromEntries(CHART_NAMES.map((name) => [`/v1/chart/${name}.svg`, chartPath(name, maxYear)])),
      '/v1/catalog/makes': catalogPath(
        'listMakes',
        'Makes with their listing counts',
        'Every canonical make with at least one listing, with its number of listings, the most listed first.',
        'CatalogMakesData',
        [],
        examples.get('/v1/catalog/makes'),
      ),
      '/v1/catalog/models': catalogPath(
        'listModels',
        "A make's models",
        'Every canonical model of a make with at least one listing: its number of listings, the production years with at least 10 listings (the years the market operations can answer for it), and the family names that resolve to it. The make is resolved as the market operations resolve it (matched).',
        'CatalogModelsData',
        [{ name: 'make', in: 'query', required: true, ...PARAMETERS.make }],
        examples.get('/v1/catalog/models'),
      ),
      '/v1/catalog/versions': catalogPath(
        'listVersions',
        "A model's versions in a production year",
        'The versions, generations and body types the listings of a make, model and year give, with their listings, most first: what `version`, `body_type` or words after a model can narrow a valuation to. INSUFFICIENT_DATA below 10 listings.',
        'CatalogVersionsData',
        [
          { name: 'make', in: 'query', required: true, ...PARAMETERS.make },
          { name: 'model', in: 'query', required: true, ...PARAMETERS.model },
          { name: 'year', in: 'query', required: true, ...yearParameter(maxYear) },
        ],
        examples.get('/v1/catalog/versions'),
      ),
      '/v1/account/me': accountPath(
        'getAccount',
        'The account of the key: balance, totals, status (0 credits).',
        'AccountData',
        [],
      ),
      '/v1/account/usage': accountPath('getUsage', 'Recent transactions, newest first (0 credits).', 'UsageData', [
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: 'Number of transactions.',
          schema: integer({ minimum: USAGE_LIMIT.min, maximum: USAGE_LIMIT.max, default: USAGE_LIMIT.default }),
        },
      ]),
      '/v1/account/keys/rotate': {
        post: {
          tags: ['account'],
          operationId: 'rotateKey',
          summary:
            "Replace the key by a new one, e-mailed to the account's address; the key sent stops working at once (0 credits). A lost key is replaced by registering the address again.",
          'x-credits': 0,
          security: [{ ApiKey: [] }],
          responses: {
            '200': {
              description: 'The new key is on its way by e-mail; it is never in an answer.',
              headers: RATE_HEADERS,
              content: {
                'application/json': {
                  schema: object({
                    status: { const: 'success' },
                    data: object({ email: string, key_sent: { const: true }, key_prefix: string }),
                  }),
                },
              },
            },
            '401': errorResponse('No key, an unknown key, or a disabled account.', [
              'UNAUTHORIZED',
              'ACCOUNT_DISABLED',
            ]),
            '429': errorResponse(
              'Three keys or codes were e-mailed to this address in the last hour, or the rate limit.',
              ['RATE_LIMIT_EXCEEDED'],
              true,
            ),
            '500': errorResponse('The server failed. Retry.', ['INTERNAL_ERROR']),
            '503': errorResponse(
              'The e-mail or the ledger cannot be written at the moment: the account keeps working with a key it gets by registering its address again.',
              ['SERVICE_UNAVAILABLE'],
              true,
            ),
          },
        },
      },
      '/v1/billing/checkout': {
        post: {
          tags: ['billing'],
          operationId: 'startCheckout',
          summary: `Start buying a plan: a Stripe Checkout Session for the plan's price, paid on Stripe's page (card). With a key, the credits go to its account; else to the account of \`email\`, opened for it (its key e-mailed) if there is none. At most ${CHECKOUTS_PER_CLIENT_PER_HOUR} an hour per client address.`,
          security: [{}, { ApiKey: [] }],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['plan'],
                  properties: {
                    plan: { type: 'integer', enum: PLANS.map((p) => p.credits), description: "The plan's credits." },
                    email: { ...EMAIL, description: 'Required without a key.' },
                  },
                },
                example: { plan: PLANS[0].credits },
              },
              'application/x-www-form-urlencoded': {
                schema: {
                  ...object({ plan: string, email: string }),
                  description:
                    'A web form (the /buy page): answered 303 to the payment page, or back to /buy with ?error=CODE.',
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'The Checkout Session: send the buyer to `checkout_url` before `expires_at`.',
              headers: RATE_HEADERS,
              content: {
                'application/json': {
                  schema: object({
                    status: { const: 'success' },
                    data: object({ checkout_url: string, session_id: string, expires_at: string }),
                  }),
                },
              },
            },
            '303': {
              description: "A web form, sent on to the payment page (or back to /buy with the refusal's code).",
            },
            '400': errorResponse('No such plan, no e-mail without a key, or a field not taken (named).', [
              'INVALID_PARAMETER',
            ]),
            '401': errorResponse('A key that is not one.', ['UNAUTHORIZED', 'ACCOUNT_DISABLED']),
            '404': errorResponse('This server does not sell plans online (the message says how to order).', [
              'NOT_FOUND',
            ]),
            '413': errorResponse('The body is larger than 4 KiB.', ['PAYLOAD_TOO_LARGE']),
            '415': errorResponse('The body is neither JSON nor a web form.', ['UNSUPPORTED_MEDIA_TYPE']),
            '429': errorResponse(
              'Too many checkouts from this client address this hour, or the rate limit.',
              ['RATE_LIMIT_EXCEEDED'],
              true,
            ),
            '500': errorResponse('The server failed. Retry.', ['INTERNAL_ERROR']),
            '503': errorResponse('Stripe did not answer; nothing was charged.', ['SERVICE_UNAVAILABLE'], true),
          },
        },
      },
      '/v1/billing/stripe-webhook': {
        post: {
          tags: ['billing'],
          operationId: 'stripeWebhook',
          summary:
            "Stripe's events (for Stripe only): a paid Checkout Session grants its plan's credits once; a refund or a dispute takes them back. Verified by the Stripe-Signature header.",
          security: [],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'type', 'data'],
                  properties: {
                    id: { ...string, description: "The event's id." },
                    type: { ...string, description: 'checkout.session.completed, charge.refunded, ...' },
                    data: { type: 'object', description: 'The object the event is about.' },
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'Handled, or deliberately ignored (`handled` false, `outcome` says why).',
              content: {
                'application/json': {
                  schema: object({
                    status: { const: 'success' },
                    data: object({ received: { const: true }, handled: { type: 'boolean' }, outcome: string }),
                  }),
                },
              },
            },
            '400': errorResponse(
              'The signature does not verify (another secret, a changed body, or older than 5 minutes).',
              ['INVALID_PARAMETER'],
            ),
            '404': errorResponse('This server does not sell plans online.', ['NOT_FOUND']),
            '503': errorResponse(
              'Not recorded now (the ledger, or its e-mail): Stripe delivers it again.',
              ['SERVICE_UNAVAILABLE'],
              true,
            ),
          },
        },
      },
      '/v1/auth/register': authPath(
        'register',
        'Send a 6-digit one-time code to an e-mail address (valid 10 minutes). The answer is the same whether or not the address has an account.',
        { email: EMAIL },
        { email: 'anna.nowak@example.pl' },
        { email: string, code_sent: { const: true }, expires_in: integer() },
      ),
      '/v1/auth/verify': authPath(
        'verifyCode',
        `Exchange the code for an account with ${SIGNUP_CREDITS} free credits, once per address; the key is e-mailed. For an address with an account, a new key is e-mailed instead, the previous one stops working, and no credits are given (a lost key). Five wrong codes use a code up.`,
        { email: EMAIL, code: CODE },
        { email: 'anna.nowak@example.pl', code: '042917' },
        { email: string, key_sent: { const: true } },
      ),
      '/v1/auth/sign-in': authPath(
        'signIn',
        'Sign in to the account page, step 1: e-mail a 6-digit code (valid 10 minutes) to the address of an account. The answer is the same whether or not the address has an account.',
        { email: EMAIL },
        { email: 'anna.nowak@example.pl' },
        { email: string, code_sent: { const: true }, expires_in: integer() },
      ),
      '/v1/auth/session': authPath(
        'openSession',
        `Sign in, step 2: the code for a session of ${SESSION_MS / 3_600_000} hours, in an HttpOnly cookie (${SESSION_COOKIE}, SameSite=Strict) that the account routes take instead of a key. Five wrong codes use a code up.`,
        { email: EMAIL, code: CODE },
        { email: 'anna.nowak@example.pl', code: '042917' },
        { email: string, signed_in: { const: true }, expires_at: string },
      ),
      '/v1/auth/sign-out': {
        post: {
          tags: ['registration'],
          operationId: 'signOut',
          summary: "End the account page's session (its cookie is cleared).",
          security: [],
          responses: {
            '200': {
              description: 'Signed out.',
              content: {
                'application/json': {
                  schema: object({ status: { const: 'success' }, data: object({ signed_out: { const: true } }) }),
                },
              },
            },
          },
        },
      },
      '/v1/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          security: [],
          summary: 'This document (as it is, not in an envelope).',
          responses: {
            '200': {
              description: 'The OpenAPI 3.1.0 document.',
              content: { 'application/json': { schema: { type: 'object', required: ['openapi'] } } },
            },
          },
        },
      },
      '/livez': plain('liveness', 'The process is alive.', object({ alive: { const: true } })),
      '/readyz': {
        get: {
          operationId: 'readiness',
          security: [],
          summary: 'A snapshot is open and served.',
          responses: {
            '200': {
              description: 'Ready.',
              content: {
                'application/json': {
                  schema: object({
                    status: { const: 'success' },
                    data: object({ ready: { const: true }, snapshot: string, as_of: string }),
                  }),
                },
              },
            },
            '503': errorResponse(
              'No snapshot is open, or writes to the ledger or the counters are failing (named in `ledger` or `counters`).',
              ['NOT_READY', 'SERVICE_UNAVAILABLE'],
              true,
            ),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'The key e-mailed after registration.',
        },
      },
      schemas: schemas(),
    },
  }
}

/** The document as served: its JSON and an ETag for conditional requests. */
export interface ServedDocument {
  readonly body: string
  readonly etag: string
  /** The body compressed once, for the clients that take it. */
  readonly encoded: Encoded | undefined
}

export function servedDocument(maxYear: number, serverUrl: string, examples: ExampleCalls): ServedDocument {
  const body = JSON.stringify(openApiDocument(maxYear, serverUrl, examples))
  return { body, etag: etagOf(body), encoded: encode(body, 'application/json') }
}
