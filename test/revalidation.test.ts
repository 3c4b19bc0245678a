import t, { type Test } from 'tap'
import { request } from 'undici'
import type { Operation } from '../format/schema.js'
import type { Ledger } from '../ledger/types.js'
import { OPERATION_CREDITS } from '../query/prices.js'
import { OutboxMailer } from '../runtime/mailer.js'
import { ENGINES, balanceAddsUp, openTestLedger } from './ledger-engines.js'
import { account, build, demoCalls, freshDir, rows, serve, toCsv, type Reply, header } from './support.js'

// A 2017 Golf with enough imported and domestic listings for every operation to answer, and a 2017 Polo.
const DATA = toCsv([
  ...rows(30, (i) => ({ price: 40_000 + i * 500, imported: i % 2 === 0 ? 'true' : 'false' })),
  ...rows(12, (i) => ({ model: 'Polo', price: 20_000 + i })),
])

const GOLF = 'make=VW&model=Golf&year=2017'
const VALUATION = `/v1/market/valuation?${GOLF}`

/** A request that answers 200 for each market operation, and its price. */
const CALLS: readonly (readonly [Operation, string])[] = [
  ['valuation', GOLF],
  ['price-history', GOLF],
  ['liquidity', GOLF],
  ['valuation-factors', GOLF],
  ['regional', GOLF],
  ['depreciation', 'make=VW&model=Golf'],
]

const REVALIDATE = 'private, no-cache'
const WEAK_ETAG = /^W\/"[A-Za-z0-9_-]+"$/

/** An answer as it came, body unparsed: a 304 has none to parse. */
async function fetchReply(
  base: string,
  path: string,
  options: { readonly key?: string; readonly ifNoneMatch?: string; readonly method?: 'GET' | 'HEAD' } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {}
  if (options.key !== undefined) headers['x-api-key'] = options.key
  if (options.ifNoneMatch !== undefined) headers['if-none-match'] = options.ifNoneMatch
  const response = await request(`${base}${path}`, { method: options.method ?? 'GET', headers })
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
}

function etagOf(reply: Reply): string {
  return header(reply, 'etag') ?? ''
}

/** The entity tag as a strong one: the same opaque part without W/. */
function strong(etag: string): string {
  return etag.replace(/^W\//, '')
}

/** A 200 of a market call, with the protocol's headers; keyed, the credits it reports. */
function checkFresh(t: Test, reply: Reply, what: string, credits?: { used: number; remaining: number }): void {
  t.equal(reply.status, 200, `${what}: 200`)
  t.match(etagOf(reply), WEAK_ETAG, `${what}: a weak ETag`)
  t.equal(header(reply, 'cache-control'), REVALIDATE, `${what}: revalidated before each use`)
  t.equal(header(reply, 'vary'), 'X-API-Key', `${what}: kept per key`)
  if (credits === undefined) return
  const data = (JSON.parse(reply.text) as { data: { credits_used: number; credits_remaining: number } }).data
  t.same(
    [header(reply, 'x-credits-used'), header(reply, 'x-credits-remaining'), data.credits_remaining],
    [String(credits.used), String(credits.remaining), credits.remaining],
    `${what}: the price and the balance after it`,
  )
}

/** A 304: no body nor a body's headers, the validator and the caching policy, and (keyed) nothing charged. */
function checkNotModified(t: Test, reply: Reply, etag: string, what: string, balance?: number): void {
  t.equal(reply.status, 304, `${what}: 304`)
  t.same(
    [reply.text, header(reply, 'content-type'), header(reply, 'content-length')],
    ['', undefined, undefined],
    `${what}: no body`,
  )
  t.same(
    [header(reply, 'etag'), header(reply, 'cache-control'), header(reply, 'vary')],
    [etag, REVALIDATE, 'X-API-Key'],
    `${what}: validator kept`,
  )
  if (balance !== undefined)
    t.same(
      [header(reply, 'x-credits-used'), header(reply, 'x-credits-remaining')],
      ['0', String(balance)],
      `${what}: charged nothing, the balance told`,
    )
}

/** An error answer: its status and code, never kept by anyone, and no validator. */
function checkError(t: Test, reply: Reply, status: number, code: string, what: string): void {
  const body = JSON.parse(reply.text) as { error?: { code?: string } }
  t.same([reply.status, body.error?.code], [status, code], `${what}: ${status} ${code}`)
  t.same([header(reply, 'cache-control'), header(reply, 'etag')], ['no-store', undefined], `${what}: no-store, no ETag`)
}

/** How many entries of each type an account has. */
async function entryTypes(ledger: Ledger, id: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const entry of await ledger.entries(id, 10_000)) counts[entry.type] = (counts[entry.type] ?? 0) + entry.count
  return counts
}

t.test(
  'every market 200, keyed or keyless, carries a weak ETag and private, no-cache; keyed ones the credits',
  async (t) => {
    const { snapshots } = await build(t, DATA)
    const ledgerDir = freshDir(t)
    const { id, key } = await account(ledgerDir, 'etag@example.pl', 1_000)
    const { base } = await serve(t, { snapshots, ledger: ledgerDir, demoQuota: 100 })
    let balance = 1_000
    for (const [operation, query] of CALLS) {
      const path = `/v1/market/${operation}?${query}`
      const keyless = await fetchReply(base, path)
      checkFresh(t, keyless, `${operation} keyless`)
      const keyed = await fetchReply(base, path, { key })
      balance -= OPERATION_CREDITS[operation]
      checkFresh(t, keyed, `${operation} keyed`, { used: OPERATION_CREDITS[operation], remaining: balance })
      t.equal(etagOf(keyed), etagOf(keyless), `${operation}: the same ETag for a keyed and a keyless caller`)
      const again = await fetchReply(base, path, { key, ifNoneMatch: etagOf(keyed) })
      checkNotModified(t, again, etagOf(keyed), `${operation} revalidated`, balance)
    }
    t.equal(
      new Set(await Promise.all(CALLS.map(async ([o, q]) => etagOf(await fetchReply(base, `/v1/market/${o}?${q}`)))))
        .size,
      CALLS.length,
      'one ETag per operation',
    )

    const ledger = await openTestLedger(t, ledgerDir)
    await balanceAddsUp(t, ledger, id, balance)
    t.same(
      await entryTypes(ledger, id),
      { grant: 1, charge: CALLS.length },
      'each 200 charged once, each 304 not at all',
    )
  },
)

t.test('the ETag names the snapshot and the canonical request, not the caller or the balance', async (t) => {
  const { snapshots } = await build(t, DATA)
  const ledgerDir = freshDir(t)
  const one = await account(ledgerDir, 'one@example.pl', 100)
  const two = await account(ledgerDir, 'two@example.pl', 500)
  const { base } = await serve(t, { snapshots, ledger: ledgerDir, demoQuota: 100 })
  const etag = async (path: string, key?: string) => {
    const reply = await fetchReply(base, path, key === undefined ? {} : { key })
    t.equal(reply.status, 200, `${path} answers`)
    return etagOf(reply)
  }

  const first = await etag(VALUATION)
  t.match(first, WEAK_ETAG)
  const same = {
    'one account': await etag(VALUATION, one.key),
    'the same account again, another balance': await etag(VALUATION, one.key),
    'another account': await etag(VALUATION, two.key),
    'parameters in another order': await etag('/v1/market/valuation?year=2017&make=VW&model=Golf'),
    'parameters percent-encoded': await etag('/v1/market/valuation?%6Dake=%56%57&model=G%6Flf&year=%32017'),
  }
  for (const [what, tag] of Object.entries(same)) t.equal(tag, first, `the same ETag for ${what}`)

  const others = {
    'another model': await etag('/v1/market/valuation?make=VW&model=Polo&year=2017'),
    'the make spelled in full': await etag('/v1/market/valuation?make=Volkswagen&model=Golf&year=2017'),
    'the make in lower case': await etag('/v1/market/valuation?make=vw&model=Golf&year=2017'),
    'a further parameter': await etag(`${VALUATION}&mileage=100000`),
    'another operation': await etag(`/v1/market/regional?${GOLF}`),
    'another operation, another parameter': await etag(`/v1/market/price-history?${GOLF}&months=6`),
  }
  const all = [first, ...Object.values(others)]
  t.equal(new Set(all).size, all.length, `each differs from the others: ${Object.keys(others).join(', ')}`)

  const ledger = await openTestLedger(t, ledgerDir)
  await balanceAddsUp(t, ledger, one.id, 100 - 2 * 8)
  await balanceAddsUp(t, ledger, two.id, 500 - 8)
})

for (const engine of ENGINES) {
  t.test(
    `${engine.name} ledger: a matching If-None-Match is 304 and charged nothing; others are charged`,
    async (t) => {
      const { snapshots } = await build(t, DATA)
      const location = await engine.fresh(t)
      const rich = await account(location, 'rich@example.pl', 100)
      const broke = await account(location, 'broke@example.pl', 0)
      const { base } = await serve(t, {
        snapshots,
        ledger: location,
        mailer: new OutboxMailer(freshDir(t)),
        demoQuota: 100,
      })
      const ledger = await openTestLedger(t, location)

      const fresh = await fetchReply(base, VALUATION, { key: rich.key })
      checkFresh(t, fresh, 'first call', { used: 8, remaining: 92 })
      const etag = etagOf(fresh)
      const richEntries = await ledger.entries(rich.id, 10_000)
      const brokeEntries = await ledger.entries(broke.id, 10_000)

      const matching = {
        'the ETag itself': etag,
        'the ETag in a list': `W/"x", ${etag}`,
        'the ETag without W/': strong(etag),
        'the strong form in a list': `"y",${strong(etag)}`,
        '*': '*',
      }
      for (const [what, ifNoneMatch] of Object.entries(matching)) {
        checkNotModified(
          t,
          await fetchReply(base, VALUATION, { key: rich.key, ifNoneMatch }),
          etag,
          `keyed, ${what}`,
          92,
        )
        checkNotModified(t, await fetchReply(base, VALUATION, { ifNoneMatch }), etag, `keyless, ${what}`)
      }
      checkNotModified(
        t,
        await fetchReply(base, VALUATION, { key: rich.key, ifNoneMatch: etag, method: 'HEAD' }),
        etag,
        'HEAD',
        92,
      )
      checkNotModified(
        t,
        await fetchReply(base, '/v1/market/valuation?year=2017&model=Golf&make=VW', {
          key: rich.key,
          ifNoneMatch: etag,
        }),
        etag,
        'the same request spelled another way',
        92,
      )
      checkNotModified(
        t,
        await fetchReply(base, VALUATION, { key: broke.key, ifNoneMatch: etag }),
        etag,
        'balance 0',
        0,
      )
      t.same(await ledger.entries(rich.id, 10_000), richEntries, 'no entry for any 304')
      t.same(await ledger.entries(broke.id, 10_000), brokeEntries, 'no entry for the 304 at balance 0')
      checkError(
        t,
        await fetchReply(base, VALUATION, { key: broke.key }),
        402,
        'INSUFFICIENT_CREDITS',
        'balance 0, plain',
      )

      const other = await fetchReply(base, VALUATION, { key: rich.key, ifNoneMatch: 'W/"not-this-one"' })
      checkFresh(t, other, 'a non-matching If-None-Match', { used: 8, remaining: 84 })
      t.equal(etagOf(other), etag)
      const polo = await fetchReply(base, '/v1/market/valuation?make=VW&model=Polo&year=2017', {
        key: rich.key,
        ifNoneMatch: etag,
      })
      checkFresh(t, polo, "another request's ETag", { used: 8, remaining: 76 })

      for (const ifNoneMatch of [etag, '*']) {
        const invalid = await fetchReply(base, '/v1/market/valuation?make=VW&model=Golf&year=abc', {
          key: rich.key,
          ifNoneMatch,
        })
        checkError(t, invalid, 400, 'INVALID_PARAMETER', `an invalid parameter with If-None-Match ${ifNoneMatch}`)
        const unknown = await fetchReply(base, `${VALUATION}&colour=red`, { ifNoneMatch })
        checkError(t, unknown, 400, 'INVALID_PARAMETER', `an unknown parameter with If-None-Match ${ifNoneMatch}`)
      }

      // `*` names any answer there is: a request without one is its 404, never a 304.
      const none = await fetchReply(base, '/v1/market/valuation?make=VW&model=Golf&year=2016', {
        key: rich.key,
        ifNoneMatch: '*',
      })
      checkError(t, none, 404, 'INSUFFICIENT_DATA', 'If-None-Match * of a request without data')
      const noneKeyless = await fetchReply(base, '/v1/market/valuation?make=VW&model=Golf&year=2016', {
        ifNoneMatch: 'W/"x", *',
      })
      checkError(t, noneKeyless, 404, 'INSUFFICIENT_DATA', 'a list with * of a request without data, keyless')

      await balanceAddsUp(t, ledger, rich.id, 76)
      t.same(
        await entryTypes(ledger, rich.id),
        { grant: 1, charge: 3, failed_call: 3 },
        'three 200s charged; the two 400s and the 404 recorded at no cost',
      )
      await balanceAddsUp(t, ledger, broke.id, 0)
    },
  )
}

t.test('304s do not count against the demo quota', async (t) => {
  const { snapshots } = await build(t, DATA)
  const ledgerDir = freshDir(t)
  const { base } = await serve(t, { snapshots, ledger: ledgerDir, demoQuota: 1 })
  const fresh = await fetchReply(base, VALUATION)
  checkFresh(t, fresh, 'the one demo call')
  const etag = etagOf(fresh)
  for (let i = 0; i < 5; i++)
    checkNotModified(t, await fetchReply(base, VALUATION, { ifNoneMatch: etag }), etag, `304 number ${i + 1}`)
  checkNotModified(t, await fetchReply(base, VALUATION, { ifNoneMatch: etag, method: 'HEAD' }), etag, 'HEAD')
  checkError(t, await fetchReply(base, VALUATION), 429, 'DEMO_LIMIT_REACHED', 'a plain call past the quota')
  checkNotModified(t, await fetchReply(base, VALUATION, { ifNoneMatch: etag }), etag, 'a 304 after the 429')
  t.equal(demoCalls(t, ledgerDir), 1, 'only the 200 was counted')
})

t.test('a new snapshot served: the old ETag is stale, answered 200 and charged, with the new ETag', async (t) => {
  const first = await build(t, DATA)
  const ledgerDir = freshDir(t)
  const { id, key } = await account(ledgerDir, 'swap@example.pl', 100)
  const { base, runtime, get } = await serve(t, { snapshots: first.snapshots, ledger: ledgerDir, demoQuota: 100 })
  const before = await fetchReply(base, VALUATION, { key })
  checkFresh(t, before, 'before', { used: 8, remaining: 92 })
  const old = etagOf(before)

  // The same rows again: only the build differs, and that alone makes the answers new.
  const second = await build(t, DATA, { snapshots: first.snapshots })
  t.not(await runtime.reload(), 'refused')
  t.equal((await get('/readyz')).body.data?.snapshot, second.report.build_id, 'the new build is served')

  const stale = await fetchReply(base, VALUATION, { key, ifNoneMatch: old })
  checkFresh(t, stale, 'the old ETag after the swap', { used: 8, remaining: 84 })
  const renewed = etagOf(stale)
  t.not(renewed, old, 'a new ETag')
  const keyless = await fetchReply(base, VALUATION, { ifNoneMatch: old })
  checkFresh(t, keyless, 'keyless, the old ETag after the swap')
  t.equal(etagOf(keyless), renewed)
  checkNotModified(t, await fetchReply(base, VALUATION, { key, ifNoneMatch: renewed }), renewed, 'the new ETag', 84)

  const ledger = await openTestLedger(t, ledgerDir)
  await balanceAddsUp(t, ledger, id, 84)
  t.same(await entryTypes(ledger, id), { grant: 1, charge: 2 })
})

t.test('errors carry no-store and no ETag; batch answers no ETag', async (t) => {
  const { snapshots } = await build(t, DATA)
  const ledgerDir = freshDir(t)
  const rich = await account(ledgerDir, 'rich@example.pl', 100)
  const broke = await account(ledgerDir, 'broke@example.pl', 0)
  const { base, post } = await serve(t, { snapshots, ledger: ledgerDir, demoQuota: 1 })

  checkError(t, await fetchReply(base, '/v1/market/valuation?make=VW&model=Golf'), 400, 'INVALID_PARAMETER', '400')
  checkError(
    t,
    await fetchReply(base, '/v1/market/valuation?make=VW&model=Golf&year=2016', { key: rich.key }),
    404,
    'INSUFFICIENT_DATA',
    '404',
  )
  checkError(t, await fetchReply(base, VALUATION, { key: `${rich.key}x` }), 401, 'UNAUTHORIZED', '401')
  checkError(t, await fetchReply(base, VALUATION, { key: broke.key }), 402, 'INSUFFICIENT_CREDITS', '402')
  checkFresh(t, await fetchReply(base, VALUATION), 'the one demo call')
  checkError(t, await fetchReply(base, VALUATION), 429, 'DEMO_LIMIT_REACHED', '429')
  checkError(
    t,
    await fetchReply(base, VALUATION, { ifNoneMatch: 'W/"not-this-one"' }),
    429,
    'DEMO_LIMIT_REACHED',
    '429 with a non-matching If-None-Match',
  )

  const batch = { requests: [{ operation: 'valuation', make: 'VW', model: 'Golf', year: 2017 }] }
  const keyed = await post('/v1/market/batch', batch, { key: rich.key })
  t.same([keyed.status, keyed.body.data?.credits_used, header(keyed, 'etag')], [200, 8, undefined], 'keyed batch')
  const keyless = await post('/v1/market/batch', batch)
  t.same([keyless.status, header(keyless, 'etag')], [200, undefined], 'keyless batch')

  const ledger = await openTestLedger(t, ledgerDir)
  await balanceAddsUp(t, ledger, rich.id, 92)
  t.same(
    await entryTypes(ledger, rich.id),
    { grant: 1, charge: 1, failed_call: 1 },
    'the batch charged; the 404 recorded',
  )
  await balanceAddsUp(t, ledger, broke.id, 0)
})
