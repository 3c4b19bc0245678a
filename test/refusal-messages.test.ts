import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { openLedger } from '../cli/engines.js'
import { balanceAddsUp, openTestLedger } from './ledger-engines.js'
import { account, build, carmarket, freshDir, rows, serve, spawnServe, toCsv } from './support.js'

// A 2017 Golf and a 2017 Polo, both with enough listings to answer.
const DATA = toCsv([
  ...rows(30, (i) => ({ price: 40_000 + i * 500 })),
  ...rows(12, (i) => ({ model: 'Polo', price: 20_000 + i })),
])

const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'
const ITEM = { operation: 'valuation', make: 'VW', model: 'Golf', year: 2017 }

interface ErrorBody {
  readonly code?: string
  readonly message?: string
  readonly register_url?: string
  readonly top_up_url?: string
}

/** A batch item's envelope, as the results list gives it. */
interface ItemBody {
  readonly status: string
  readonly data?: { readonly credits_used?: number; readonly credits_remaining?: number }
  readonly error?: ErrorBody
}

/** Disables an account on the ledger at `location` (before a server is started on it, or beside one). */
async function disable(location: string, id: string): Promise<void> {
  const ledger = await openLedger(location)
  try {
    await ledger.setStatus(id, 'disabled')
  } finally {
    await ledger.close()
  }
}

for (const publicUrl of ['https://cars.example.test', 'https://cars.example.test/api']) {
  t.test(`at ${publicUrl}: the demo limit names where to register, a short balance where to buy credits`, async (t) => {
    const { snapshots } = await build(t, DATA)
    const ledgerDir = freshDir(t)
    const { id, key } = await account(ledgerDir, 'short@example.pl', 5)
    const { get } = await serve(t, { snapshots, ledger: ledgerDir, demoQuota: 1, publicUrl })

    t.equal((await get(VALUATION)).status, 200, 'the one demo call')
    const demo = await get(VALUATION)
    const register = `${publicUrl}/register`
    t.same([demo.status, demo.body.error?.code], [429, 'DEMO_LIMIT_REACHED'])
    t.equal(demo.body.error?.register_url, register, 'register_url is the public URL/register')
    t.ok(String(demo.body.error?.message).includes(register), `the message names ${register}`)

    const short = await get(VALUATION, { key })
    const topUp = `${publicUrl}/buy`
    t.same([short.status, short.body.error?.code], [402, 'INSUFFICIENT_CREDITS'])
    t.equal(short.body.error?.top_up_url, topUp, 'top_up_url is the public URL/buy')
    t.ok(String(short.body.error?.message).includes(topUp), `the message names ${topUp}`)

    await balanceAddsUp(t, await openTestLedger(t, ledgerDir), id, 5)
  })
}

t.test('a disabled account is told the support address: support@ the public host, or the one given', async (t) => {
  const { snapshots } = await build(t, DATA)
  const cases = [
    { options: {}, support: 'support@cars.example.test' },
    { options: { supportEmail: 'help@cars.example.org' }, support: 'help@cars.example.org' },
  ]
  for (const { options, support } of cases) {
    const ledgerDir = freshDir(t)
    const { id, key } = await account(ledgerDir, 'gone@example.pl', 100)
    await disable(ledgerDir, id)
    const { get } = await serve(t, { snapshots, ledger: ledgerDir, publicUrl: 'https://cars.example.test', ...options })
    const refused = await get(VALUATION, { key })
    t.same([refused.status, refused.body.error?.code], [401, 'ACCOUNT_DISABLED'], support)
    t.ok(String(refused.body.error?.message).includes(support), `the message names ${support}`)
    await balanceAddsUp(t, await openTestLedger(t, ledgerDir), id, 100)
  }
})

t.test(
  'carmarket serve --support-email (or CARMARKET_SUPPORT_EMAIL) names the address; a wrong one stops it',
  async (t) => {
    const { snapshots } = await build(t, DATA)
    const support = 'help@cars.example.org'
    const ways: [string, string[], NodeJS.ProcessEnv | undefined][] = [
      ['--support-email', ['--support-email', support], undefined],
      ['CARMARKET_SUPPORT_EMAIL', [], { ...process.env, CARMARKET_SUPPORT_EMAIL: support }],
    ]
    for (const [way, args, env] of ways) {
      const ledgerDir = freshDir(t)
      const { id, key } = await account(ledgerDir, 'gone@example.pl', 100)
      await disable(ledgerDir, id)
      const server = await spawnServe(
        t,
        [
          '--snapshots',
          snapshots,
          '--ledger',
          ledgerDir,
          '--outbox',
          join(ledgerDir, 'outbox'),
          '--rate-limit',
          '0',
          '--no-request-log',
          ...args,
        ],
        env === undefined ? {} : { env },
      )
      const base = `http://127.0.0.1:${server.port}`
      const refused = await request(`${base}${VALUATION}`, { headers: { 'x-api-key': key } })
      const body = (await refused.body.json()) as { error?: ErrorBody }
      t.same([refused.statusCode, body.error?.code], [401, 'ACCOUNT_DISABLED'], way)
      t.ok(String(body.error?.message).includes(support), `${way}: the message names ${support}`)
      const home = await request(`${base}/`)
      t.equal(home.statusCode, 200)
      t.ok((await home.body.text()).includes(`mailto:${support}`), `${way}: the home page links to ${support}`)
    }

    const ledgerDir = join(freshDir(t), 'ledger')
    const wrong = await carmarket([
      'serve',
      '--snapshots',
      snapshots,
      '--ledger',
      ledgerDir,
      '--port',
      '0',
      '--support-email',
      'not-an-address',
    ])
    t.equal(wrong.code, 2, 'a usage error')
    t.notMatch(wrong.stderr, /serving on/, 'it never listened')
    t.notOk(existsSync(ledgerDir), 'nor opened the ledger')
  },
)

t.test('batch items past the demo quota or the balance name where to register or buy credits', async (t) => {
  const publicUrl = 'https://cars.example.test/api'
  const { snapshots } = await build(t, DATA)
  const ledgerDir = freshDir(t)
  const { id, key } = await account(ledgerDir, 'batch@example.pl', 10)
  const { post } = await serve(t, { snapshots, ledger: ledgerDir, demoQuota: 1, publicUrl })
  const requests = [ITEM, ITEM, ITEM]

  const keyless = await post('/v1/market/batch', { requests })
  t.equal(keyless.status, 200)
  const demoItems = keyless.body.data?.results as ItemBody[]
  t.same(
    demoItems.map((item) => item.error?.code ?? item.status),
    ['success', 'DEMO_LIMIT_REACHED', 'DEMO_LIMIT_REACHED'],
    'the first within the quota, the rest past it',
  )
  for (const item of demoItems.slice(1)) {
    t.equal(item.error?.register_url, `${publicUrl}/register`)
    t.ok(String(item.error?.message).includes(`${publicUrl}/register`), 'the message names the registration URL')
  }

  const keyed = await post('/v1/market/batch', { requests }, { key })
  t.equal(keyed.status, 200)
  const paidItems = keyed.body.data?.results as ItemBody[]
  t.same(
    paidItems.map((item) => item.error?.code ?? item.status),
    ['success', 'INSUFFICIENT_CREDITS', 'INSUFFICIENT_CREDITS'],
    'the first paid, the rest past the balance',
  )
  t.same([keyed.body.data?.credits_used, keyed.body.data?.credits_remaining], [8, 2])
  for (const item of paidItems.slice(1)) {
    t.equal(item.error?.top_up_url, `${publicUrl}/buy`)
    t.ok(String(item.error?.message).includes(`${publicUrl}/buy`), 'the message names the top-up URL')
  }

  const ledger = await openTestLedger(t, ledgerDir)
  await balanceAddsUp(t, ledger, id, 2)
  const charges = (await ledger.entries(id, 100)).filter((e) => e.type === 'charge')
  t.same(
    charges.map((e) => e.credits),
    [-8],
    'one item charged',
  )
})
