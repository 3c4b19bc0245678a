import t from 'tap'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { build, freshDir, otherKey, rows, serve, toCsv } from './support.js'

const data = [...rows(20, (i) => ({ price: 40_000 + i * 100 })), ...rows(3, () => ({ model: 'Polo' }))]

async function setup(t: import('tap').Test, credits: number) {
  const { snapshots } = await build(t, toCsv(data))
  const ledgerDir = freshDir(t)
  const ledger = LmdbLedger.open(ledgerDir)
  t.teardown(() => ledger.close())
  const { account, key } = await ledger.createAccount('kierowca@example.pl', credits, 'signup_bonus', null)
  const served = await serve(t, { snapshots, ledger: ledgerDir, publicUrl: 'https://api.example.test' })
  /** A request with the account's key, another key, or (null) no X-API-Key header at all. */
  const get = (path: string, apiKey: string | null = key) => served.get(path, apiKey === null ? {} : { key: apiKey })
  return { ledger, account, key, get }
}

const golf = 'make=VW&model=Golf&year=2017'

t.test('keyed calls are charged; failures are refunded and recorded; the balance adds up', async (t) => {
  const { ledger, account, get } = await setup(t, 50)
  const valuation = await get(`/v1/market/valuation?${golf}`)
  t.equal(valuation.status, 200)
  t.same([valuation.body.data.credits_used, valuation.body.data.credits_remaining], [8, 42])
  const factors = await get(`/v1/market/valuation-factors?${golf}`)
  t.same(
    [factors.body.data?.credits_used, factors.body.data?.credits_remaining, factors.status],
    [undefined, undefined, 404],
    'too few per side: 404',
  )
  t.equal(factors.body.error.code, 'INSUFFICIENT_DATA')
  const invalid = await get('/v1/market/valuation?make=VW&model=Golf&year=abc')
  t.equal(invalid.status, 400)
  const history = await get(`/v1/market/price-history?${golf}&months=24`)
  t.same([history.body.data.credits_used, history.body.data.credits_remaining], [10, 32])
  t.equal((await ledger.account(account.id))?.balance, 32, 'failures cost nothing')

  const me = await get('/v1/account/me')
  t.same(me.body.data, {
    account_id: account.id,
    email: 'kierowca@example.pl',
    status: 'active',
    credits_remaining: 32,
    credits_granted: 50,
    credits_used: 18,
    created: account.created,
    key_prefix: account.key_prefix,
  })
  const usage = await get('/v1/account/usage?limit=3')
  t.equal(usage.body.data.limit, 3)
  t.same(
    usage.body.data.transactions.map((e: any) => [
      e.type,
      e.endpoint,
      e.credits,
      e.balance_after,
      e.status,
      e.make,
      e.year,
    ]),
    [
      ['charge', 'price-history', -10, 32, 'success', 'VW', 2017],
      ['failed_call', 'valuation', 0, 42, 'INVALID_PARAMETER', 'VW', null],
      ['failed_call', 'valuation-factors', 0, 42, 'INSUFFICIENT_DATA', 'VW', 2017],
    ],
  )
  const all = await get('/v1/account/usage')
  t.equal(all.body.data.transactions.length, 5, 'default limit 50: all five entries')
  t.equal(
    all.body.data.transactions.reduce((sum: number, e: any) => sum + e.credits, 0),
    32,
    'balance = sum of entries',
  )
  for (const limit of ['0', '201', 'x', '5&limit=6'])
    t.equal((await get(`/v1/account/usage?limit=${limit}`)).status, 400, `limit=${limit}`)
})

t.test('a balance below the price is 402 with top_up_url, before any data is read', async (t) => {
  const { get } = await setup(t, 9)
  t.equal((await get(`/v1/market/valuation?${golf}`)).status, 200)
  const refused = await get(`/v1/market/liquidity?${golf}`)
  t.equal(refused.status, 402)
  t.same(refused.body.error, {
    code: 'INSUFFICIENT_CREDITS',
    message: 'This call costs 6 credits; the balance is 1. Buy credits at https://api.example.test/buy',
    top_up_url: 'https://api.example.test/buy',
  })
  t.equal(
    (await get('/v1/market/liquidity?make=VW&model=Golf&year=abc')).status,
    400,
    'parameters are checked before the balance',
  )
})

t.test('keys: missing, empty, unknown, disabled and replaced', async (t) => {
  const { ledger, account, key, get } = await setup(t, 50)
  for (const bad of ['', '   ', 'cm_short', otherKey(key)]) {
    const answer = await get(`/v1/market/valuation?${golf}`, bad)
    t.same([answer.status, answer.body.error.code], [401, 'UNAUTHORIZED'], JSON.stringify(bad))
  }
  t.same((await get('/v1/account/me', null)).body.error.code, 'UNAUTHORIZED', 'account routes need a key')
  const demo = await get(`/v1/market/valuation?${golf}`, null)
  t.same([demo.status, 'credits_remaining' in demo.body.data], [200, false], 'no header at all: the demo tier')

  await ledger.setStatus(account.id, 'disabled')
  const disabled = await get(`/v1/market/valuation?${golf}`)
  t.same([disabled.status, disabled.body.error.code], [401, 'ACCOUNT_DISABLED'], 'refused from the next request on')
  await ledger.setStatus(account.id, 'active')
  const replacement = await ledger.issueKey(account.id)
  t.equal((await get(`/v1/market/valuation?${golf}`)).status, 401, 'the old key stops working')
  t.equal((await get(`/v1/market/valuation?${golf}`, replacement)).body.data.credits_remaining, 42)
})
