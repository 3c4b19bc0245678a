import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import tap, { type Test } from 'tap'
import { Agent, request, type Dispatcher } from 'undici'
import type { Operation } from '../format/schema.js'
import { IDEMPOTENCY, type Call, type Ledger } from '../ledger/types.js'
import { OPERATION_CREDITS } from '../query/prices.js'
import { canonicalQuery } from '../runtime/canonical.js'
import { fingerprint } from '../runtime/idempotency.js'
import { OutboxMailer } from '../runtime/mailer.js'
import { ENGINES, balanceAddsUp, openTestLedger, type Engine } from './ledger-engines.js'
import { build, freshDir, rows, serve, toCsv, type Built } from './support.js'

// A 2017 Golf varied enough in fuel, gearbox, import status, month and region for every market operation to answer,
// and a 2017 Polo for a second vehicle.
const CSV = toCsv([
  ...rows(30, (i) => ({
    price: 40_000 + i * 500,
    fuel_type: i % 2 === 0 ? 'Diesel' : 'Benzyna',
    gearbox: i % 3 === 0 ? 'Automatyczna' : 'Manualna',
    imported: i % 2 === 0 ? 'true' : 'false',
    first_seen: `2026-0${(i % 6) + 4}-10`,
    voivodeship: i < 15 ? 'mazowieckie' : 'śląskie',
  })),
  ...rows(12, (i) => ({ model: 'Polo', price: 20_000 + i })),
])

const GOLF = 'make=VW&model=Golf&year=2017'
const VALUATION = `/v1/market/valuation?${GOLF}`
/** A Golf request of each market operation (depreciation takes no year). */
const MARKET: readonly (readonly [Operation, string])[] = [
  ['valuation', VALUATION],
  ['price-history', `/v1/market/price-history?${GOLF}`],
  ['liquidity', `/v1/market/liquidity?${GOLF}`],
  ['valuation-factors', `/v1/market/valuation-factors?${GOLF}`],
  ['regional', `/v1/market/regional?${GOLF}`],
  ['depreciation', '/v1/market/depreciation?make=VW&model=Golf'],
]
const PRICE = OPERATION_CREDITS.valuation

/** An answer as it came over the wire: its body parsed when it has one. */
interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly body: any
}

interface Ask {
  readonly key?: string
  /** Sent as Idempotency-Key; a list sends the header once per item. */
  readonly idem?: string | readonly string[]
  readonly headers?: readonly string[]
  readonly dispatcher?: Dispatcher
}

async function send(
  base: string,
  method: 'GET' | 'HEAD' | 'POST',
  path: string,
  ask: Ask,
  body?: string,
): Promise<Answer> {
  const headers: string[] = []
  if (ask.key !== undefined) headers.push('x-api-key', ask.key)
  for (const idem of typeof ask.idem === 'string' ? [ask.idem] : (ask.idem ?? [])) headers.push('idempotency-key', idem)
  if (body !== undefined) headers.push('content-type', 'application/json')
  headers.push(...(ask.headers ?? []))
  const options = { method, headers, body, ...(ask.dispatcher === undefined ? {} : { dispatcher: ask.dispatcher }) }
  const response = await request(`${base}${path}`, options)
  const text = await response.body.text()
  return {
    status: response.statusCode,
    headers: response.headers,
    text,
    body: text === '' ? undefined : JSON.parse(text),
  }
}

const get = (base: string, path: string, ask: Ask = {}) => send(base, 'GET', path, ask)
const head = (base: string, path: string, ask: Ask = {}) => send(base, 'HEAD', path, ask)
const batch = (base: string, body: unknown, ask: Ask = {}) =>
  send(base, 'POST', '/v1/market/batch', ask, typeof body === 'string' ? body : JSON.stringify(body))

/** A call answered for real: 200, charged `credits`, leaving `remaining`, and not given as a replay. */
function charged(t: Test, answer: Answer, credits: number, remaining: number, what: string): void {
  t.same(
    [
      answer.status,
      answer.headers['idempotent-replayed'],
      answer.headers['x-credits-used'],
      answer.headers['x-credits-remaining'],
      answer.body?.data?.credits_used,
      answer.body?.data?.credits_remaining,
    ],
    [200, undefined, String(credits), String(remaining), credits, remaining],
    `${what}: answered and charged ${credits}, ${remaining} left`,
  )
}

/** `again` is `first` given again: its bytes and credit headers, marked as a replay, without an ETag. */
function replayed(t: Test, again: Answer, first: Answer, what: string): void {
  t.same(
    [
      again.status,
      again.headers['idempotent-replayed'],
      again.headers['x-credits-used'],
      again.headers['x-credits-remaining'],
      again.headers.etag,
    ],
    [200, 'true', first.headers['x-credits-used'], first.headers['x-credits-remaining'], undefined],
    `${what}: a replay with the first answer's credit headers`,
  )
  t.equal(again.text, first.text, `${what}: byte for byte the first answer`)
}

function refused(t: Test, answer: Answer, status: number, code: string, what: string): void {
  t.same([answer.status, answer.body?.error?.code], [status, code], `${what}: ${status} ${code}`)
}

/** The money checks after a scenario: balance = sum of entries, and exactly `charges` charge entries. */
async function books(t: Test, ledger: Ledger, id: string, balance: number, charges: number): Promise<void> {
  await balanceAddsUp(t, ledger, id, balance)
  const entries = await ledger.entries(id, 10_000)
  t.equal(entries.filter((e) => e.type === 'charge').length, charges, `${charges} charge entries`)
}

/** How many failed calls with `code` the account's failure entries count. */
async function failures(ledger: Ledger, id: string, code: string): Promise<number> {
  const entries = await ledger.entries(id, 10_000)
  return entries.filter((e) => e.type === 'failed_call' && e.status === code).reduce((sum, e) => sum + e.count, 0)
}

interface Market {
  readonly base: string
  /** The ledger's location: a folder, or a PostgreSQL URL. */
  readonly location: string
  /** A handle of the test's own on the ledger the server uses. */
  readonly ledger: Ledger
  /** A new account with `credits`. */
  open(credits: number): Promise<{ id: string; key: string }>
}

let accounts = 0

/** The rows of a statement run on the PostgreSQL database at `url`, outside the engine. */
async function sql(url: string, text: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}

/** Runs `work` for from, ..., to - 1, a few dozen at a time, as a busy server's connections would: how many were true. */
async function concurrently(from: number, to: number, work: (i: number) => Promise<boolean>): Promise<number> {
  let next = from
  let count = 0
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < to) if (await work(next++)) count++
    }),
  )
  return count
}

let built: Promise<Built> | undefined

/** A server on a fresh ledger of `engine`, and the test's own handle on that ledger. */
async function market(t: Test, engine: Engine, options: { readonly demoQuota?: number } = {}): Promise<Market> {
  // One snapshot serves every test of the file: they only read it.
  const { snapshots } = await (built ??= build(tap, CSV))
  const location = await engine.fresh(t)
  const ledger = await openTestLedger(t, location)
  const served = await serve(t, { snapshots, ledger: location, mailer: new OutboxMailer(freshDir(t)), ...options })
  return {
    base: served.base,
    location,
    ledger,
    async open(credits) {
      const { account, key } = await ledger.createAccount(`buyer${++accounts}@example.pl`, credits, 'grant', 'test')
      return { id: account.id, key }
    },
  }
}

for (const engine of ENGINES) {
  tap.test(`Idempotency-Key on the ${engine.name} ledger`, async (t) => {
    const m = await market(t, engine)
    const { base, ledger } = m

    t.test(
      'a retry of any market call answers the stored answer again, free, even once the balance is spent',
      async (t) => {
        const total = MARKET.reduce((sum, [operation]) => sum + OPERATION_CREDITS[operation], 0)
        const { id, key } = await m.open(total)
        const first = new Map<Operation, Answer>()
        let left = total
        for (const [operation, path] of MARKET) {
          left -= OPERATION_CREDITS[operation]
          const answer = await get(base, path, { key, idem: `first-${operation}` })
          charged(t, answer, OPERATION_CREDITS[operation], left, operation)
          t.ok(answer.headers.etag, `${operation}: a real answer has an ETag`)
          first.set(operation, answer)
        }
        t.equal(left, 0, 'the account is spent')
        for (const [operation, path] of MARKET)
          replayed(t, await get(base, path, { key, idem: `first-${operation}` }), first.get(operation)!, operation)
        // The same parameters in another order and another percent-encoding are the same request.
        replayed(
          t,
          await get(base, '/v1/market/valuation?year=2017&make=V%57&model=Golf', { key, idem: 'first-valuation' }),
          first.get('valuation')!,
          'valuation asked in another spelling',
        )
        await books(t, ledger, id, 0, MARKET.length)
      },
    )

    t.test('the same key with another request is 422 IDEMPOTENCY_KEY_REUSED, charged nothing', async (t) => {
      const { id, key } = await m.open(100)
      const first = await get(base, VALUATION, { key, idem: 'k-reused' })
      charged(t, first, PRICE, 100 - PRICE, 'the first call')
      const others = [
        ['another make spelling', '/v1/market/valuation?make=Volkswagen&model=Golf&year=2017'],
        ['another year', '/v1/market/valuation?make=VW&model=Golf&year=2016'],
        ['a parameter more', `${VALUATION}&fuel_type=Diesel`],
        ['another operation', `/v1/market/regional?${GOLF}`],
      ] as const
      for (const [what, path] of others)
        refused(t, await get(base, path, { key, idem: 'k-reused' }), 422, 'IDEMPOTENCY_KEY_REUSED', what)
      const asHead = await head(base, VALUATION, { key, idem: 'k-reused' })
      t.equal(asHead.status, 422, 'HEAD instead of GET: 422')
      const asBatch = { requests: [{ operation: 'valuation', make: 'VW', model: 'Golf', year: 2017 }] }
      const batched = await batch(base, asBatch, { key, idem: 'k-reused' })
      refused(t, batched, 422, 'IDEMPOTENCY_KEY_REUSED', 'the same request as a batch')
      replayed(t, await get(base, VALUATION, { key, idem: 'k-reused' }), first, 'the first request again')
      await books(t, ledger, id, 100 - PRICE, 1)
    })

    t.test('keys are per account: another account with the same key makes its own call', async (t) => {
      const a = await m.open(50)
      const b = await m.open(30)
      const ofA = await get(base, VALUATION, { key: a.key, idem: 'shared-key' })
      charged(t, ofA, PRICE, 50 - PRICE, 'account A')
      const ofB = await get(base, VALUATION, { key: b.key, idem: 'shared-key' })
      charged(t, ofB, PRICE, 30 - PRICE, 'account B, same key and request')
      // B's own call with the same key, not A's, is what B's retry gives.
      replayed(t, await get(base, VALUATION, { key: b.key, idem: 'shared-key' }), ofB, 'account B again')
      // Another request under the key is refused for B as for A: the key is B's own now.
      refused(
        t,
        await get(base, `/v1/market/regional?${GOLF}`, { key: b.key, idem: 'shared-key' }),
        422,
        'IDEMPOTENCY_KEY_REUSED',
        'account B, another request',
      )
      await books(t, ledger, a.id, 50 - PRICE, 1)
      await books(t, ledger, b.id, 30 - PRICE, 1)
    })

    t.test('a key that is not 1 to 255 visible ASCII characters, given once, is 400, charged nothing', async (t) => {
      const { id, key } = await m.open(100)
      const bad: readonly (readonly [string, string | readonly string[]])[] = [
        ['empty', ''],
        ['256 characters', 'k'.repeat(256)],
        ['a space inside', 'my key'],
        ['a non-ASCII character', 'klucz-é'],
        ['given twice', ['one', 'two']],
      ]
      const polo = { requests: [{ operation: 'liquidity', make: 'VW', model: 'Polo', year: 2017 }] }
      for (const [what, idem] of bad) {
        const answer = await get(base, VALUATION, { key, idem })
        t.same(
          [answer.status, answer.body?.error?.code, answer.body?.error?.parameter],
          [400, 'INVALID_PARAMETER', 'Idempotency-Key'],
          `${what}: 400 naming Idempotency-Key`,
        )
        const inBatch = await batch(base, polo, { key, idem })
        t.same(
          [inBatch.status, inBatch.body?.error?.code, inBatch.body?.error?.parameter],
          [400, 'INVALID_PARAMETER', 'Idempotency-Key'],
          `${what}, on a batch: 400 naming Idempotency-Key`,
        )
      }
      await books(t, ledger, id, 100, 0)
      // The bounds of what a key may be are accepted.
      const longest = await get(base, VALUATION, { key, idem: 'k'.repeat(255) })
      charged(t, longest, PRICE, 100 - PRICE, '255 characters')
      const edges = await get(base, VALUATION, { key, idem: '!~' })
      charged(t, edges, PRICE, 100 - 2 * PRICE, 'the first and the last visible ASCII characters')
      await books(t, ledger, id, 100 - 2 * PRICE, 2)
    })

    t.test('twenty identical keyed calls at once are charged exactly once', async (t) => {
      const { id, key } = await m.open(100)
      const dispatcher = new Agent({ connections: 20 })
      t.teardown(() => dispatcher.close())
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => get(base, VALUATION, { key, idem: 'at-once', dispatcher })),
      )
      const ok = answers.filter((a) => a.status === 200)
      const inFlight = answers.filter((a) => a.status === 409)
      t.equal(ok.length + inFlight.length, 20, `every answer is 200 or 409 (${ok.length} and ${inFlight.length})`)
      const real = ok.filter((a) => a.headers['idempotent-replayed'] === undefined)
      t.equal(real.length, 1, 'one answer is the real call')
      charged(t, real[0]!, PRICE, 100 - PRICE, 'the real call')
      t.ok(
        ok.every((a) => a === real[0] || (a.headers['idempotent-replayed'] === 'true' && a.text === real[0]!.text)),
        'the other successes are replays of it, byte for byte',
      )
      t.ok(
        inFlight.every((a) => a.body?.error?.code === 'IDEMPOTENCY_KEY_IN_FLIGHT' && a.headers['retry-after'] === '1'),
        'the refusals are IDEMPOTENCY_KEY_IN_FLIGHT with Retry-After: 1',
      )
      replayed(t, await get(base, VALUATION, { key, idem: 'at-once' }), real[0]!, 'a retry afterwards')
      await books(t, ledger, id, 100 - PRICE, 1)
    })

    t.test('a failed call is not stored: its retry runs again', async (t) => {
      const poor = await m.open(5)
      refused(
        t,
        await get(base, VALUATION, { key: poor.key, idem: 'k-poor' }),
        402,
        'INSUFFICIENT_CREDITS',
        'at 5 credits',
      )
      await books(t, ledger, poor.id, 5, 0)
      await ledger.grant(poor.id, 10, 'test')
      const paid = await get(base, VALUATION, { key: poor.key, idem: 'k-poor' })
      charged(t, paid, PRICE, 15 - PRICE, 'the same key after a grant')
      replayed(t, await get(base, VALUATION, { key: poor.key, idem: 'k-poor' }), paid, 'then again, below the price')
      await books(t, ledger, poor.id, 15 - PRICE, 1)

      const { id, key } = await m.open(100)
      const invalid = '/v1/market/valuation?make=VW&model=Golf&year=1800'
      const unknown = '/v1/market/valuation?make=VW&model=Nonexistent&year=2017'
      for (const attempt of ['first', 'retry']) {
        refused(t, await get(base, invalid, { key, idem: 'k-400' }), 400, 'INVALID_PARAMETER', `year 1800, ${attempt}`)
        refused(
          t,
          await get(base, unknown, { key, idem: 'k-404' }),
          404,
          'INSUFFICIENT_DATA',
          `unknown model, ${attempt}`,
        )
      }
      // Each retry was answered as a call of its own, so each is counted as a failure of its own.
      t.same(
        [await failures(ledger, id, 'INVALID_PARAMETER'), await failures(ledger, id, 'INSUFFICIENT_DATA')],
        [2, 2],
        'both attempts of each are recorded as failed calls',
      )
      // Nothing is kept under the keys: another request may take them.
      charged(t, await get(base, VALUATION, { key, idem: 'k-400' }), PRICE, 100 - PRICE, 'the 400 key, a valid request')
      charged(
        t,
        await get(base, `/v1/market/regional?${GOLF}`, { key, idem: 'k-404' }),
        OPERATION_CREDITS.regional,
        100 - PRICE - OPERATION_CREDITS.regional,
        'the 404 key, a valid request',
      )
      await books(t, ledger, id, 100 - PRICE - OPERATION_CREDITS.regional, 2)
    })

    t.test('a 304 with a key charges nothing and keeps nothing', async (t) => {
      const { id, key } = await m.open(100)
      const plain = await get(base, VALUATION, { key })
      let left = 100 - PRICE
      charged(t, plain, PRICE, left, 'valuation without Idempotency-Key')
      const etag = plain.headers.etag as string
      const regional = await get(base, `/v1/market/regional?${GOLF}`, { key })
      left -= OPERATION_CREDITS.regional
      charged(t, regional, OPERATION_CREDITS.regional, left, 'regional without Idempotency-Key')
      const notModified = await get(base, VALUATION, { key, idem: 'k-304', headers: ['if-none-match', etag] })
      t.same([notModified.status, notModified.text], [304, ''], 'If-None-Match with a key: 304')
      const other = await get(base, `/v1/market/regional?${GOLF}`, {
        key,
        idem: 'k-304-other',
        headers: ['if-none-match', regional.headers.etag as string],
      })
      t.equal(other.status, 304, 'another 304 with a key')
      await books(t, ledger, id, left, 2)
      left -= PRICE
      const real = await get(base, VALUATION, { key, idem: 'k-304' })
      charged(t, real, PRICE, left, 'the 304 key, the same request')
      left -= PRICE
      charged(
        t,
        await get(base, VALUATION, { key, idem: 'k-304-other' }),
        PRICE,
        left,
        'the other key, another request',
      )
      replayed(t, await get(base, VALUATION, { key, idem: 'k-304' }), real, 'the 304 key once used')
      await books(t, ledger, id, left, 4)
    })

    t.test('a batch retried with the same body is replayed; another body under its key is 422', async (t) => {
      const { id, key } = await m.open(100)
      const body = {
        requests: [
          { operation: 'valuation', make: 'VW', model: 'Golf', year: 2017 },
          { operation: 'liquidity', make: 'VW', model: 'Polo', year: 2017 },
        ],
      }
      const cost = PRICE + OPERATION_CREDITS.liquidity
      const first = await batch(base, body, { key, idem: 'b-1' })
      t.same(
        [
          first.status,
          first.body?.data?.results?.map((r: { status: string }) => r.status),
          first.body?.data?.credits_used,
          first.body?.data?.credits_remaining,
          first.headers['x-credits-used'],
          first.headers['x-credits-remaining'],
          first.headers['idempotent-replayed'],
        ],
        [200, ['success', 'success'], cost, 100 - cost, String(cost), String(100 - cost), undefined],
        'the batch is answered and charged',
      )
      // Members in another order and other whitespace are the same body.
      const respelled =
        '{ "requests" : [\n  {"year": 2017, "model": "Golf", "make": "VW", "operation": "valuation"},\n' +
        '  {"model":"Polo","operation":"liquidity","year":2017,"make":"VW"} ] }'
      replayed(t, await batch(base, respelled, { key, idem: 'b-1' }), first, 'the same body respelled')
      const reversed = { requests: [...body.requests].reverse() }
      refused(t, await batch(base, reversed, { key, idem: 'b-1' }), 422, 'IDEMPOTENCY_KEY_REUSED', 'the items reversed')
      const another = { requests: [body.requests[0]!] }
      refused(t, await batch(base, another, { key, idem: 'b-1' }), 422, 'IDEMPOTENCY_KEY_REUSED', 'another body')
      refused(t, await get(base, VALUATION, { key, idem: 'b-1' }), 422, 'IDEMPOTENCY_KEY_REUSED', 'a market call')
      await books(t, ledger, id, 100 - cost, 2)
    })

    t.test('a batch whose items all failed is not stored: its retry runs again', async (t) => {
      const { id, key } = await m.open(100)
      const failing = {
        requests: [
          { operation: 'valuation', make: 'VW', model: 'Golf', year: 1800 },
          { operation: 'valuation', make: 'VW', model: 'Nonexistent', year: 2017 },
        ],
      }
      for (const attempt of ['first', 'retry']) {
        const answer = await batch(base, failing, { key, idem: 'b-failing' })
        t.same(
          [
            answer.status,
            answer.body?.data?.results?.map((r: { error?: { code: string } }) => r.error?.code),
            answer.body?.data?.credits_used,
            answer.headers['idempotent-replayed'],
          ],
          [200, ['INVALID_PARAMETER', 'INSUFFICIENT_DATA'], 0, undefined],
          `${attempt}: every item failed, nothing charged, not a replay`,
        )
      }
      t.same(
        [await failures(ledger, id, 'INVALID_PARAMETER'), await failures(ledger, id, 'INSUFFICIENT_DATA')],
        [2, 2],
        'each attempt recorded its failures',
      )
      await books(t, ledger, id, 100, 0)
      const valid = { requests: [{ operation: 'valuation', make: 'VW', model: 'Golf', year: 2017 }] }
      const answer = await batch(base, valid, { key, idem: 'b-failing' })
      t.same(
        [answer.status, answer.body?.data?.credits_used, answer.headers['idempotent-replayed']],
        [200, PRICE, undefined],
        'the key then takes another body',
      )
      await books(t, ledger, id, 100 - PRICE, 1)
    })

    t.test('keys are forgotten 24 hours after their first use', async (t) => {
      const { id, key } = await m.open(100)
      const first = await get(base, VALUATION, { key, idem: 'k-old' })
      charged(t, first, PRICE, 100 - PRICE, 'the first call')
      charged(
        t,
        await get(base, `/v1/market/regional?${GOLF}`, { key, idem: 'k-old-other' }),
        OPERATION_CREDITS.regional,
        100 - PRICE - OPERATION_CREDITS.regional,
        'a call under another key',
      )
      replayed(t, await get(base, VALUATION, { key, idem: 'k-old' }), first, 'before the sweep')
      // A key's age is judged by the ledger's clock: LMDB's is this process's, which the sweep is told is a day on;
      // PostgreSQL's is the server's, so there the keys are made a day old, and the sweep must delete them.
      if (engine.name === 'postgresql') {
        await sql(m.location, `UPDATE carmarket_idempotency SET created = created - interval '1 day 1 second'`)
        await ledger.sweep(Date.now())
        t.same(
          await sql(
            m.location,
            `SELECT (SELECT count(*)::integer FROM carmarket_idempotency) AS kept, idempotency_count AS counted
               FROM carmarket_accounts WHERE id = '${id}'`,
          ),
          [{ kept: 0, counted: 0 }],
          'the sweep deleted the keys, and the account counts none',
        )
      } else await ledger.sweep(Date.now() + IDEMPOTENCY.ttlMs + 1_000)
      let left = 100 - PRICE - OPERATION_CREDITS.regional - PRICE
      const again = await get(base, VALUATION, { key, idem: 'k-old' })
      charged(t, again, PRICE, left, 'the same key and request after the sweep')
      left -= PRICE
      charged(
        t,
        await get(base, VALUATION, { key, idem: 'k-old-other' }),
        PRICE,
        left,
        'the other key, another request',
      )
      replayed(t, await get(base, VALUATION, { key, idem: 'k-old' }), again, 'the new answer is kept')
      await books(t, ledger, id, left, 4)
    })

    t.test('keyless calls ignore Idempotency-Key', async (t) => {
      const demo = await market(t, engine, { demoQuota: 2 })
      const malformed = await get(demo.base, VALUATION, { idem: 'not a key' })
      t.same(
        [malformed.status, malformed.body?.data?.credits_used, malformed.headers['idempotent-replayed']],
        [200, PRICE, undefined],
        'a malformed key without X-API-Key: answered',
      )
      const second = await get(demo.base, VALUATION, { idem: 'demo-key' })
      t.same([second.status, second.headers['idempotent-replayed']], [200, undefined], 'a keyless call with a key')
      refused(
        t,
        await get(demo.base, VALUATION, { idem: 'demo-key' }),
        429,
        'DEMO_LIMIT_REACHED',
        'the same again: not a replay but a third demo call',
      )
    })
  })
}

tap.test(
  'a key held by a call in flight is 409 for the same request and 422 for another, and taken over once its lease passes',
  async (t) => {
    const held = []
    for (const engine of ENGINES) {
      const m = await market(t, engine)
      const { id, key } = await m.open(100)
      // Taken up as a call takes it up, and then never answered: what a process killed mid-call leaves behind.
      const params = new Map([
        ['make', 'VW'],
        ['model', 'Golf'],
        ['year', '2017'],
      ])
      const start = await m.ledger.startIdempotent(id, {
        key: 'k-held',
        fingerprint: fingerprint('GET', '/v1/market/valuation', canonicalQuery(params)),
      })
      t.equal(start.state, 'started', `${engine.name}: the key is held`)
      for (const path of [VALUATION, '/v1/market/valuation?year=2017&model=Golf&make=V%57']) {
        const answer = await get(m.base, path, { key, idem: 'k-held' })
        t.same(
          [answer.status, answer.body?.error?.code, answer.headers['retry-after']],
          [409, 'IDEMPOTENCY_KEY_IN_FLIGHT', '1'],
          `${engine.name}: ${path}: 409 with Retry-After: 1`,
        )
      }
      refused(
        t,
        await get(m.base, '/v1/market/valuation?make=Volkswagen&model=Golf&year=2017', { key, idem: 'k-held' }),
        422,
        'IDEMPOTENCY_KEY_REUSED',
        `${engine.name}: another request`,
      )
      await books(t, m.ledger, id, 100, 0)
      held.push({ engine, m, id, key })
    }
    // The one long wait of this file, for both engines at once: a lease is measured on the clock, and nothing shortens it.
    await sleep(IDEMPOTENCY.leaseMs + 2_000)
    for (const { engine, m, id, key } of held) {
      const answer = await get(m.base, VALUATION, { key, idem: 'k-held' })
      charged(t, answer, PRICE, 100 - PRICE, `${engine.name}: after the lease, the call runs`)
      replayed(t, await get(m.base, VALUATION, { key, idem: 'k-held' }), answer, `${engine.name}: and is kept`)
      await books(t, m.ledger, id, 100 - PRICE, 1)
    }
  },
)

for (const engine of ENGINES)
  tap.test(`an account on the ${engine.name} ledger keeps its newest ${IDEMPOTENCY.keysPerAccount} keys`, async (t) => {
    const location = await engine.fresh(t)
    const ledger = await openTestLedger(t, location)
    const limit = IDEMPOTENCY.keysPerAccount
    const credits = 2 * limit
    const { account } = await ledger.createAccount('many-keys@example.pl', credits, 'grant', 'test')
    const call: Call = { endpoint: 'liquidity', make: 'VW', model: 'Golf', year: 2017 }
    const use = (i: number) => ({ key: `key-${i}`, fingerprint: fingerprint('GET', '/v1/market/liquidity', `n=${i}`) })
    const charge = async (i: number, token: string) => {
      const result = await ledger.chargeAll(account.id, {
        debits: [{ credits: 1, call }],
        remember: { ...use(i), token, parts: `answer ${i}` },
      })
      return result.ok && result.outcomes[0]!.charged
    }
    // As a call keeps its key: taken up, then its answer stored with its debit.
    const keep = async (i: number) => {
      const started = await ledger.startIdempotent(account.id, use(i))
      return started.state === 'started' && (await charge(i, started.token))
    }
    // The first two in order, so that they are the oldest; the rest by many calls at once, whose debits the ledger
    // commits together (a debit stores a key not taken up as well; taking up each is a commit of its own).
    t.ok((await keep(0)) && (await keep(1)), 'the first two keys are kept')
    // Without statistics (this server runs without autovacuum, and the tables were empty when the ledger's plans were
    // made), each key stored must cost what the first one did: a look-up by key that scanned an account's keys would
    // make the account's 10,000th key cost 10,000 times its first.
    const kept = 2 + (await concurrently(2, limit, (i) => charge(i, 'no-token')))
    t.equal(kept, limit, `${limit} keys kept`)
    t.same(
      await ledger.startIdempotent(account.id, use(0)),
      { state: 'done', answer: { parts: 'answer 0', outcomes: [{ charged: true, balance: credits - 1 }] } },
      `at ${limit} keys, the first is still kept`,
    )
    t.ok(await keep(limit), 'one key more')
    t.same(
      await ledger.startIdempotent(account.id, use(1)),
      { state: 'done', answer: { parts: 'answer 1', outcomes: [{ charged: true, balance: credits - 2 }] } },
      'the second is still kept',
    )
    t.equal(
      (await ledger.startIdempotent(account.id, use(0))).state,
      'started',
      'the first is forgotten: it is taken up anew',
    )
    // balanceAddsUp reads 10,000 entries at most; this account has more.
    const after = (await ledger.account(account.id))!
    const entries = await ledger.entries(account.id, 4 * limit)
    t.same(
      [after.balance, entries.reduce((sum, e) => sum + e.credits, 0), after.entries],
      [credits - limit - 1, credits - limit - 1, entries.length],
      'balance = sum of entries',
    )
    t.equal(entries.filter((e) => e.type === 'charge').length, limit + 1, `${limit + 1} charge entries`)
  })
