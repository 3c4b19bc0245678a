import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { BATCH } from '../runtime/batch-call.js'
import { OutboxMailer } from '../runtime/mailer.js'
import type { Entry } from '../ledger/types.js'
import { ENGINES, balanceAddsUp, openTestLedger, type Engine } from './ledger-engines.js'
import {
  account,
  build,
  freshDir,
  otherKey,
  rows,
  serve,
  spawnServe,
  toCsv,
  type ApiAnswer,
  type Served,
  type TestRuntimeOptions,
} from './support.js'

/**
 * Golf 2017 with both sides of the import and gearbox comparisons (valuation-factors), two
 * older Golf years (a depreciation curve), Polo 2017, and a model whose name is a number.
 */
const DATA = toCsv([
  ...rows(30, (i) => ({
    price: 40_000 + i * 500,
    mileage_km: 80_000 + i * 2000,
    imported: i % 2 ? 'true' : 'false',
    gearbox: i % 3 ? 'Manualna' : 'Automatyczna',
    first_seen: '2026-09-01',
  })),
  ...rows(24, (i) => ({ year: 2015 + (i % 2), price: 30_000 + (i % 2) * 4000 + i * 100 })),
  ...rows(12, (i) => ({ model: 'Polo', price: 20_000 + i })),
  ...rows(12, (i) => ({ make: 'Mazda', model: '3', price: 35_000 + i * 10 })),
])

/** The price of each operation, as the specification states it. */
const PRICE: Readonly<Record<string, number>> = {
  valuation: 8,
  'price-history': 10,
  liquidity: 6,
  'valuation-factors': 12,
  regional: 8,
  depreciation: 10,
}

/** Any instant will do: a fixed clock keeps every call of a test in one rate-limit minute and one demo day. */
const NOW = Date.UTC(2026, 9, 1, 12)

const BATCH_PATH = '/v1/market/batch'

type Item = Readonly<Record<string, unknown>>

const golf = (operation: string, more: Item = {}): Item => ({
  operation,
  make: 'VW',
  model: 'Golf',
  year: 2017,
  ...more,
})

/** The GET an item stands for: its parameters as a query string, null ones left out. */
function getPath(item: Item): string {
  const { operation, ...fields } = item
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) if (value !== null) query.set(name, String(value))
  return `/v1/market/${String(operation)}?${query}`
}

/** What the GET of an item answers, without the balance a keyed GET adds: the data its batch result must repeat. */
async function answerOf(t: Test, served: Served, item: Item, key?: string): Promise<Record<string, unknown>> {
  const answer = await served.get(getPath(item), key === undefined ? {} : { key })
  t.equal(answer.status, 200, `GET ${getPath(item)} answers`)
  const { credits_remaining: _, ...data } = answer.body.data as Record<string, unknown>
  return data
}

let built: Promise<string> | undefined
/** The snapshots folder of DATA, built once for the whole file (nothing writes to it). */
function snapshotsFolder(): Promise<string> {
  built ??= build(t, DATA).then((b) => b.snapshots)
  return built
}

/** A server on a fresh ledger of the engine; a roomy demo quota unless told otherwise. */
async function setUp(t: Test, engine: Engine, options: Partial<TestRuntimeOptions> = {}) {
  const snapshots = await snapshotsFolder()
  const ledger = await engine.fresh(t)
  const served = await serve(t, {
    snapshots,
    ledger,
    mailer: new OutboxMailer(freshDir(t)),
    demoQuota: 10_000,
    ...options,
  })
  return { served, ledger, snapshots }
}

/** The account's entries, oldest first. */
async function history(t: Test, location: string, id: string): Promise<Entry[]> {
  const ledger = await openTestLedger(t, location)
  return (await ledger.entries(id, 10_000)).reverse()
}

/** The charge entries as the figures a test expects of them. */
function chargesOf(entries: readonly Entry[]) {
  return entries
    .filter((e) => e.type === 'charge')
    .map((e) => ({
      endpoint: e.endpoint,
      make: e.make,
      model: e.model,
      year: e.year,
      credits: e.credits,
      balance_after: e.balance_after,
    }))
}

function creditHeaders(answer: ApiAnswer): [unknown, unknown] {
  return [answer.headers['x-credits-used'], answer.headers['x-credits-remaining']]
}

for (const engine of ENGINES) {
  t.test(
    `${engine.name}: a keyed batch answers each item as its GET would, in order, and charges exactly the items answered`,
    async (t) => {
      const { served, ledger } = await setUp(t, engine)
      const { id, key } = await account(ledger, 'flota@example.pl', 200)
      const items: Item[] = [
        golf('valuation'),
        golf('price-history', { year: '2017', months: 3 }),
        { operation: 'liquidity', make: 'VW', model: 'Polo', year: 2017 },
        golf('valuation', { year: 2017.5 }),
        golf('valuation-factors'),
        golf('valuation', { months: 3 }),
        golf('regional'),
        { operation: 'valuation', make: 'VW', model: 'Passat', year: 2017 },
        { operation: 'depreciation', make: 'VW', model: 'Golf', fuel_type: null },
        golf('liquidity', { year: true }),
        { operation: 'valuation', make: 'Mazda', model: 3, year: 2017, gearbox: null, mileage: null },
        golf('regional', { model: {} }),
        golf('price-history', { months: [] }),
      ]
      const answered = [0, 1, 2, 4, 6, 8, 10]
      // Keyless GETs give the reference figures without touching the account.
      const expected = new Map<number, Record<string, unknown>>()
      for (const i of answered) expected.set(i, await answerOf(t, served, items[i]!))
      const missing = await served.get(getPath(items[7]!))
      t.strictSame(
        [missing.status, missing.body.error?.code],
        [404, 'INSUFFICIENT_DATA'],
        'the GET of Passat finds no data either',
      )

      const reply = await served.post(BATCH_PATH, { requests: items }, { key })
      t.equal(reply.status, 200, 'the batch is answered')
      t.equal(reply.body.status, 'success')
      const results = reply.body.data.results as any[]
      t.equal(results.length, items.length, 'one result per item')

      let balance = 200
      for (const i of answered) {
        balance -= PRICE[items[i]!.operation as string]!
        t.strictSame(
          results[i],
          { status: 'success', data: { ...expected.get(i), credits_remaining: balance } },
          `item ${i} (${String(items[i]!.operation)}) is its GET's data, its price and the balance after it`,
        )
        t.equal(results[i].data.credits_used, PRICE[items[i]!.operation as string], `item ${i} costs its price`)
      }
      t.equal(results[0].data.year, 2017, 'a year given as a number is read as its digits')
      t.strictSame(results[10].data.matched.models, ['3'], 'a model given as a number is the model of that name')
      const failures = [
        [3, 'INVALID_PARAMETER', 'year'],
        [5, 'INVALID_PARAMETER', 'months'],
        [7, 'INSUFFICIENT_DATA', undefined],
        [9, 'INVALID_PARAMETER', 'year'],
        [11, 'INVALID_PARAMETER', 'model'],
        [12, 'INVALID_PARAMETER', 'months'],
      ] as const
      for (const [i, code, parameter] of failures) {
        t.strictSame(
          [results[i].status, results[i].error?.code, results[i].error?.parameter],
          ['error', code, parameter],
          `item ${i} fails in its place with ${code}`,
        )
        t.notOk('data' in results[i], `item ${i} has no data`)
      }
      t.strictSame(
        [reply.body.data.credits_used, reply.body.data.credits_remaining],
        [62, 138],
        'the batch used the sum of the items charged',
      )
      t.strictSame(creditHeaders(reply), ['62', '138'], 'and says so in its headers')

      const entries = await history(t, ledger, id)
      let after = 200
      t.strictSame(
        chargesOf(entries),
        answered.map((i) => {
          const { operation, make, model, year } = items[i]!
          const credits = PRICE[operation as string]!
          after -= credits
          return {
            endpoint: operation,
            make,
            model: String(model),
            year: year === undefined ? null : Number(year),
            credits: -credits,
            balance_after: after,
          }
        }),
        'one charge entry per item answered, in order, with its call',
      )
      await balanceAddsUp(t, await openTestLedger(t, ledger), id, 138)

      const usage = await served.get('/v1/account/usage?limit=100', { key })
      t.equal(usage.status, 200, 'the usage history is answered')
      const failed = (usage.body.data.transactions as Entry[]).filter((e) => e.type === 'failed_call')
      const seen = failed.map((e) => [e.endpoint, e.make, e.model, e.status, e.credits, e.count]).sort()
      const wanted = failures
        .map(([i, code]) => {
          const item = items[i]!
          const model = typeof item.model === 'string' ? item.model : null
          return [item.operation, item.make, model, code, 0, 1]
        })
        .sort()
      t.strictSame(
        seen,
        wanted,
        'each failed item is a zero-credit failed_call entry with its code in the usage history',
      )
    },
  )

  t.test(
    `${engine.name}: when the balance runs out an item it cannot pay is refused with 402 and cheaper ones after it are still charged`,
    async (t) => {
      const { served, ledger } = await setUp(t, engine)
      const { id, key } = await account(ledger, 'mala@example.pl', 15)
      const reply = await served.post(
        BATCH_PATH,
        { requests: [golf('valuation'), golf('valuation-factors'), golf('liquidity')] },
        { key },
      )
      t.equal(reply.status, 200, 'the batch is answered')
      const results = reply.body.data.results as any[]
      t.strictSame(
        results.map((r) => [r.status, r.data?.credits_used, r.data?.credits_remaining, r.error?.code]),
        [
          ['success', 8, 7, undefined],
          ['error', undefined, undefined, 'INSUFFICIENT_CREDITS'],
          ['success', 6, 1, undefined],
        ],
      )
      t.type(results[1].error.top_up_url, 'string', 'the refusal names where to buy credits')
      t.strictSame([reply.body.data.credits_used, reply.body.data.credits_remaining], [14, 1])
      t.strictSame(creditHeaders(reply), ['14', '1'])

      const single = await served.get(getPath(golf('valuation')), { key })
      t.strictSame(
        [single.status, single.body.error?.code],
        [402, 'INSUFFICIENT_CREDITS'],
        'a GET at balance 1 is refused',
      )
      t.equal(results[1].error.top_up_url, single.body.error?.top_up_url, 'with the same top-up address')

      const broke = await served.post(
        BATCH_PATH,
        { requests: [golf('valuation'), golf('regional', { model: 'Polo' })] },
        { key },
      )
      t.equal(broke.status, 200, 'a batch that can pay for nothing is still answered')
      t.strictSame(
        (broke.body.data.results as any[]).map((r) => [r.status, r.error?.code]),
        [
          ['error', 'INSUFFICIENT_CREDITS'],
          ['error', 'INSUFFICIENT_CREDITS'],
        ],
      )
      t.strictSame([broke.body.data.credits_used, broke.body.data.credits_remaining], [0, 1])
      t.strictSame(creditHeaders(broke), ['0', '1'])

      const entries = await history(t, ledger, id)
      t.strictSame(
        chargesOf(entries),
        [
          { endpoint: 'valuation', make: 'VW', model: 'Golf', year: 2017, credits: -8, balance_after: 7 },
          { endpoint: 'liquidity', make: 'VW', model: 'Golf', year: 2017, credits: -6, balance_after: 1 },
        ],
        'exactly the two items paid for are charged',
      )
      await balanceAddsUp(t, await openTestLedger(t, ledger), id, 1)
    },
  )

  t.test(`${engine.name}: a disabled account or an unknown key is refused for the whole batch`, async (t) => {
    const { served, ledger } = await setUp(t, engine)
    const { id, key } = await account(ledger, 'zamknieta@example.pl', 100)
    const body = { requests: [golf('valuation'), golf('liquidity')] }

    const unknown = await served.post(BATCH_PATH, body, { key: otherKey(key) })
    t.strictSame([unknown.status, unknown.body.error?.code], [401, 'UNAUTHORIZED'])
    t.notOk('data' in unknown.body, 'nothing is answered')

    const ledgerHere = await openTestLedger(t, ledger)
    await ledgerHere.setStatus(id, 'disabled')
    const disabled = await served.post(BATCH_PATH, body, { key })
    t.strictSame([disabled.status, disabled.body.error?.code], [401, 'ACCOUNT_DISABLED'])
    t.notOk('data' in disabled.body, 'nothing is answered')
    t.strictSame(chargesOf(await ledgerHere.entries(id, 100)), [], 'nothing is charged')
    await balanceAddsUp(t, ledgerHere, id, 100)
  })

  t.test(
    `${engine.name}: a body that is not a batch is refused whole, charging nothing and recording one failed call`,
    async (t) => {
      const { served, ledger } = await setUp(t, engine, { demoQuota: 1, clock: () => NOW })
      const { id, key } = await account(ledger, 'zle@example.pl', 100)
      const ledgerHere = await openTestLedger(t, ledger)
      const valid = golf('valuation')
      const refused: [string, unknown, string][] = [
        ['not JSON', '{"requests":[', 'body'],
        ['a JSON array', JSON.stringify([valid]), 'body'],
        ['a JSON string', '"requests"', 'body'],
        ['no requests', {}, 'requests'],
        ['requests not an array', { requests: valid }, 'requests'],
        ['no items', { requests: [] }, 'requests'],
        ['one item too many', { requests: Array.from({ length: BATCH.maxItems + 1 }, () => valid) }, 'requests'],
        ['a fourth item that is a string', { requests: [valid, valid, valid, 'valuation'] }, 'requests[3]'],
        ['a null item', { requests: [valid, null] }, 'requests[1]'],
        ['an array item', { requests: [[valid]] }, 'requests[0]'],
        [
          'a fourth item without an operation',
          { requests: [valid, valid, valid, { make: 'VW', model: 'Golf', year: 2017 }] },
          'requests[3].operation',
        ],
        ['an unknown operation', { requests: [golf('appraisal')] }, 'requests[0].operation'],
        ['another top-level member', { requests: [valid], limit: 5 }, 'limit'],
      ]
      const batchFailures = async () =>
        (await ledgerHere.entries(id, 1000))
          .filter((e) => e.type === 'failed_call' && e.endpoint === 'batch')
          .reduce((sum, e) => sum + e.count, 0)
      for (const [what, body, parameter] of refused) {
        for (const asKey of [key, undefined]) {
          const who = asKey === undefined ? 'keyless' : 'keyed'
          const before = await batchFailures()
          const answer = await served.post(BATCH_PATH, body, asKey === undefined ? {} : { key: asKey })
          t.strictSame(
            [answer.status, answer.body.error?.code, answer.body.error?.parameter],
            [400, 'INVALID_PARAMETER', parameter],
            `${what} (${who}): 400 naming ${parameter}`,
          )
          t.notOk('data' in answer.body, `${what} (${who}): nothing is answered`)
          if (parameter.startsWith('requests['))
            t.ok(
              String(answer.body.error?.message).includes(parameter.slice(0, parameter.indexOf(']') + 1)),
              `${what} (${who}): the message names the item's index`,
            )
          // Repeats of one failure add to the count of one entry, so the count tells each refusal recorded.
          t.equal(
            (await batchFailures()) - before,
            asKey === undefined ? 0 : 1,
            `${what} (${who}): ${asKey === undefined ? 'no account to record it for' : 'one failed call of endpoint batch recorded'}`,
          )
        }
      }

      const oversized = {
        requests: [valid],
        pad: 'x'.repeat(BATCH.maxBodyBytes),
      }
      const other: [string, () => Promise<ApiAnswer>, number, string][] = [
        ['a body over the size limit', () => served.post(BATCH_PATH, oversized, { key }), 413, 'PAYLOAD_TOO_LARGE'],
        [
          'a body not sent as JSON',
          () =>
            served.post(BATCH_PATH, JSON.stringify({ requests: [valid] }), {
              key,
              headers: { 'content-type': 'text/plain' },
            }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        ],
        [
          'a query string',
          () => served.post(`${BATCH_PATH}?make=VW`, { requests: [valid] }, { key }),
          400,
          'INVALID_PARAMETER',
        ],
        ['a GET', () => served.get(BATCH_PATH, { key }), 405, 'METHOD_NOT_ALLOWED'],
      ]
      for (const [what, send, status, code] of other) {
        const answer = await send()
        t.strictSame([answer.status, answer.body.error?.code], [status, code], `${what}: ${status} ${code}`)
        t.notOk('data' in answer.body, `${what}: nothing is answered`)
        if (code === 'METHOD_NOT_ALLOWED') t.equal(answer.headers.allow, 'POST', 'the route takes POST only')
      }

      t.strictSame(chargesOf(await ledgerHere.entries(id, 1000)), [], 'nothing was charged')
      await balanceAddsUp(t, ledgerHere, id, 100)
      const demo = await served.get(getPath(valid))
      t.equal(demo.status, 200, 'the keyless refusals used none of the demo quota')
    },
  )

  t.test(
    `${engine.name}: a batch of ${BATCH.maxItems} items in a body of exactly ${BATCH.maxBodyBytes} bytes is answered whole`,
    async (t) => {
      const { served, ledger } = await setUp(t, engine)
      const { id, key } = await account(ledger, 'pelna@example.pl', 1000)
      const operations = Object.keys(PRICE)
      const items = Array.from({ length: BATCH.maxItems }, (_, i) => {
        const operation = operations[i % operations.length]!
        return operation === 'depreciation'
          ? { operation, make: 'VW', model: 'Golf' }
          : { operation, make: 'VW', model: 'Golf', year: 2017 }
      })
      const json = JSON.stringify({ requests: items })
      const padded = `${json.slice(0, -1)}${' '.repeat(BATCH.maxBodyBytes - json.length)}}`
      t.equal(Buffer.byteLength(padded), BATCH.maxBodyBytes)
      const expected = new Map<string, Record<string, unknown>>()
      for (const item of items)
        if (!expected.has(item.operation)) expected.set(item.operation, await answerOf(t, served, item))

      const reply = await served.post(BATCH_PATH, padded, { key })
      t.equal(reply.status, 200, 'the batch is answered')
      const results = reply.body.data.results as any[]
      t.equal(results.length, BATCH.maxItems, 'every item has its result')
      let balance = 1000
      const wanted = items.map((item) => {
        balance -= PRICE[item.operation]!
        return { status: 'success', data: { ...expected.get(item.operation), credits_remaining: balance } }
      })
      t.strictSame(results, wanted, 'each is its GET answer with the balance after it')
      const used = 1000 - balance
      t.strictSame([reply.body.data.credits_used, reply.body.data.credits_remaining], [used, balance])
      t.strictSame(creditHeaders(reply), [String(used), String(balance)])

      const over = await served.post(BATCH_PATH, `${padded.slice(0, -1)} }`, { key })
      t.strictSame([over.status, over.body.error?.code], [413, 'PAYLOAD_TOO_LARGE'], 'one byte more is too large')

      const entries = await history(t, ledger, id)
      t.strictSame(
        chargesOf(entries).map((c) => [c.endpoint, c.credits]),
        items.map((item) => [item.operation, -PRICE[item.operation]!]),
        'one charge per item, in order, and none for the refused body',
      )
      await balanceAddsUp(t, await openTestLedger(t, ledger), id, balance)
    },
  )

  t.test(
    `${engine.name}: keyless, each item answered counts against the demo quota and those past it are refused in their place`,
    async (t) => {
      const publicUrl = 'https://api.example.test'
      const { served, ledger } = await setUp(t, engine, { demoQuota: 5, clock: () => NOW, publicUrl })
      const { key } = await account(ledger, 'wzor@example.pl', 1000)
      const items: Item[] = [
        golf('valuation'),
        { operation: 'valuation', make: 'VW', model: 'Passat', year: 2017 },
        golf('liquidity'),
        golf('valuation', { year: 2017.5 }),
        golf('regional'),
        golf('price-history'),
        { operation: 'depreciation', make: 'VW', model: 'Golf' },
        golf('valuation-factors'),
        { operation: 'liquidity', make: 'VW', model: 'Polo', year: 2017 },
      ]
      const answered = [0, 2, 4, 5, 6]
      // Keyed GETs give the reference figures without using the address's demo calls.
      const expected = new Map<number, Record<string, unknown>>()
      for (const i of answered) expected.set(i, await answerOf(t, served, items[i]!, key))

      const reply = await served.post(BATCH_PATH, { requests: items })
      t.equal(reply.status, 200, 'the batch is answered')
      const results = reply.body.data.results as any[]
      t.equal(results.length, items.length, 'one result per item')
      for (const i of answered)
        t.strictSame(results[i], { status: 'success', data: expected.get(i) }, `item ${i} is answered, with its price`)
      t.strictSame(
        [3, 1, 7, 8].map((i) => [results[i].status, results[i].error?.code]),
        [
          ['error', 'INVALID_PARAMETER'],
          ['error', 'INSUFFICIENT_DATA'],
          ['error', 'DEMO_LIMIT_REACHED'],
          ['error', 'DEMO_LIMIT_REACHED'],
        ],
        'failed items keep their own errors and use no demo call; those past the quota are refused',
      )
      t.equal(reply.body.data.credits_used, 8 + 6 + 8 + 10 + 10, 'credits_used is the sum of the items answered')
      t.notOk('credits_remaining' in reply.body.data, 'no balance in the batch')
      t.notOk(
        results.some((r) => r.data !== undefined && 'credits_remaining' in r.data),
        'no balance in any item',
      )
      t.equal(reply.headers['x-credits-remaining'], undefined, 'no balance header')
      t.match(
        [reply.headers['ratelimit-policy'], reply.headers.ratelimit],
        [/^"demo";q=5;w=86400$/, /^"demo";r=0;t=\d+$/],
        'the demo calls left today (none), as for a single call',
      )

      const single = await served.get(getPath(items[0]!))
      t.strictSame(
        [single.status, single.body.error?.code],
        [429, 'DEMO_LIMIT_REACHED'],
        'the quota is used up for GETs too',
      )
      t.match(
        single.body.error?.register_url,
        /^https:\/\/api\.example\.test\//,
        'a GET refused names where to register',
      )
      t.equal(
        results[7].error.register_url,
        single.body.error?.register_url,
        'the refused items name where to register',
      )
      t.equal(results[8].error.register_url, single.body.error?.register_url)

      const again = await served.post(BATCH_PATH, { requests: [items[1], items[0]] })
      t.equal(again.status, 200, 'a batch past the quota is still answered')
      t.strictSame(
        (again.body.data.results as any[]).map((r) => r.error?.code),
        ['INSUFFICIENT_DATA', 'DEMO_LIMIT_REACHED'],
      )
      t.equal(again.body.data.credits_used, 0)
    },
  )

  t.test(`${engine.name}: a batch is one request against the rate limit, however many items it holds`, async (t) => {
    const { served } = await setUp(t, engine, { rateLimit: 3, clock: () => NOW })
    const items = Array.from({ length: 20 }, () => golf('liquidity'))
    for (let i = 1; i <= 3; i++) {
      const reply = await served.post(BATCH_PATH, { requests: items })
      t.strictSame([reply.status, reply.body.data?.results.length], [200, 20], `batch ${i} of 20 items passes`)
    }
    const fourth = await served.post(BATCH_PATH, { requests: [golf('liquidity')] })
    t.strictSame(
      [fourth.status, fourth.body.error?.code],
      [429, 'RATE_LIMIT_EXCEEDED'],
      'the fourth request is refused',
    )
  })

  t.test(
    `${engine.name}: concurrent batches and GETs on one account, through two servers, never overspend it`,
    async (t) => {
      const snapshots = await snapshotsFolder()
      const ledger = await engine.fresh(t)
      const start = 500
      const { id, key } = await account(ledger, 'wspolne@example.pl', start)
      const args = ['--snapshots', snapshots, '--ledger', ledger, '--rate-limit', '0']
      const servers = [await spawnServe(t, args), await spawnServe(t, args)]
      const dispatcher = new Agent({ connections: 16 })
      t.teardown(() => dispatcher.close())
      const polo = (operation: string): Item => ({ operation, make: 'VW', model: 'Polo', year: 2017 })
      const items = [
        golf('valuation'),
        golf('liquidity'),
        golf('regional'),
        polo('valuation'),
        polo('liquidity'),
        golf('regional'),
        golf('valuation'),
        polo('liquidity'),
      ]
      const batches = 12
      const gets = 40
      const batchDemand = items.reduce((sum, item) => sum + PRICE[item.operation as string]!, 0)
      const demand = batches * batchDemand + gets * 8
      t.ok(demand > start, `the calls ask for ${demand} credits of ${start}`)

      const send = async (i: number, method: 'GET' | 'POST', path: string, body?: string) => {
        const { port } = servers[i % 2]!
        const headers = { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }
        const response = await request(`http://127.0.0.1:${port}${path}`, { method, headers, body, dispatcher })
        return { status: response.statusCode, body: (await response.body.json()) as any }
      }
      const calls = Array.from({ length: batches + gets }, (_, i) =>
        i % 4 === 0 && i / 4 < batches
          ? send(i, 'POST', BATCH_PATH, JSON.stringify({ requests: items })).then((r) => ({ batch: r }))
          : send(i, 'GET', getPath(golf('valuation'))).then((r) => ({ single: r })),
      )
      const answers = await Promise.all(calls)

      const acknowledged: number[] = []
      const refusedPrices: number[] = []
      const singles: [number, string | undefined][] = []
      const batchStatuses: number[] = []
      // A ledger starved past its statement timeout by the machine's load answers 503 and charges nothing: such calls
      // are left out of the sums (the ledger's entries below would show a charge they made).
      let unavailable = 0
      let answeredDemand = 0
      const starved = (status: number, body: any) => status === 503 && body.error?.code === 'SERVICE_UNAVAILABLE'
      // What breaks the rule that the debits of one batch commit together, with no other call between them.
      const broken: string[] = []
      let used = 0
      for (const answer of answers) {
        if ('single' in answer) {
          const { status, body } = answer.single
          if (starved(status, body)) {
            unavailable++
            continue
          }
          answeredDemand += 8
          if (status === 200) {
            acknowledged.push(body.data.credits_remaining)
            used += 8
          } else {
            singles.push([status, body.error?.code])
            refusedPrices.push(8)
          }
          continue
        }
        const { status, body } = answer.batch
        if (starved(status, body)) {
          unavailable++
          continue
        }
        answeredDemand += batchDemand
        batchStatuses.push(status)
        if (status !== 200) continue
        let balance = body.data.credits_remaining + body.data.credits_used
        let charged = 0
        const results = body.data.results as any[]
        results.forEach((result, i) => {
          const price = PRICE[items[i]!.operation as string]!
          if (result.status === 'success') {
            balance -= price
            charged += price
            if (result.data.credits_remaining !== balance)
              broken.push(`item ${i} left ${result.data.credits_remaining}, not ${balance}`)
            acknowledged.push(result.data.credits_remaining)
          } else {
            if (result.error?.code !== 'INSUFFICIENT_CREDITS' || balance >= price)
              broken.push(`item ${i} refused with ${result.error?.code} at balance ${balance}`)
            refusedPrices.push(price)
          }
        })
        if (charged !== body.data.credits_used)
          broken.push(`credits_used ${body.data.credits_used}, charged ${charged}`)
        used += charged
      }
      t.ok(
        unavailable < answers.length,
        `${answers.length - unavailable} calls of ${answers.length} reached the ledger`,
      )
      t.strictSame(batchStatuses, Array(batchStatuses.length).fill(200), 'every batch is answered')
      t.strictSame(
        broken,
        [],
        "each batch's balances follow one another by its items' prices, and only unpayable items are refused",
      )
      t.strictSame(
        singles.filter(([status, code]) => status !== 402 || code !== 'INSUFFICIENT_CREDITS'),
        [],
        'a GET that fails is refused for credits',
      )

      const ledgerHere = await openTestLedger(t, ledger)
      const final = (await ledgerHere.account(id))!.balance
      t.equal(final, start - used, 'the balance went down by exactly what was acknowledged')
      t.ok(
        refusedPrices.length > 0 || answeredDemand <= start,
        'the calls that reached the ledger asked for more than the balance, and some were refused',
      )
      t.ok(final >= 0 && final < Math.min(...refusedPrices), `nothing the final balance ${final} could pay was refused`)
      t.equal(new Set(acknowledged).size, acknowledged.length, 'every charge acknowledged its own balance')
      const charges = chargesOf(await ledgerHere.entries(id, 10_000))
      t.strictSame(
        charges.map((c) => c.balance_after).sort((a, b) => a - b),
        [...acknowledged].sort((a, b) => a - b),
        'the ledger holds exactly the charges acknowledged',
      )
      await balanceAddsUp(t, ledgerHere, id, final)
    },
  )
}
