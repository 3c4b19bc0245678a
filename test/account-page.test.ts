import t from 'tap'
import { request } from 'undici'
import { OutboxMailer } from '../runtime/mailer.js'
import { SESSION_MS } from '../runtime/sign-in.js'
import { account, build, freshDir, outboxMail, rows, serve, toCsv } from './support.js'

const GOLF = '/v1/market/valuation?make=VW&model=Golf&year=2017'

async function setup(t: import('tap').Test) {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ year: 2017, price: 30_000 + i }))))
  const outbox = freshDir(t)
  const ledger = freshDir(t)
  let now = Date.now()
  const served = await serve(t, { snapshots, ledger, mailer: new OutboxMailer(outbox), clock: () => now })
  /** A POST as the site's own pages send it (their Origin), with the session's cookie if given. */
  const post = async (path: string, body: object | undefined, cookie?: string, origin = 'http://localhost') => {
    const response = await request(`${served.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, ...(cookie === undefined ? {} : { cookie }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as any }
  }
  const get = async (path: string, cookie?: string, key?: string) => {
    const headers = { ...(cookie === undefined ? {} : { cookie }), ...(key === undefined ? {} : { 'x-api-key': key }) }
    const response = await request(`${served.base}${path}`, { headers })
    return { status: response.statusCode, body: (await response.body.json()) as any }
  }
  const codeOf = (to: string) => /one-time code is (\d{6})/.exec(outboxMail(outbox, to).at(-1)?.text ?? '')?.[1]
  return { served, ledger, outbox, post, get, codeOf, advance: (ms: number) => (now += ms) }
}

t.test('sign in to the account page with an e-mail code: a session cookie for the account routes only', async (t) => {
  const { ledger, outbox, post, get, codeOf } = await setup(t)
  const { key } = await account(ledger, 'owner@example.pl', 100)
  const known = await post('/v1/auth/sign-in', { email: 'Owner@Example.PL' })
  const unknown = await post('/v1/auth/sign-in', { email: 'nobody@example.pl' })
  t.same(
    [known.status, { ...known.body.data, email: undefined }],
    [unknown.status, { ...unknown.body.data, email: undefined }],
    'the same answer whether or not the address has an account',
  )
  t.notOk(
    /\d{6}/.test(outboxMail(outbox, 'nobody@example.pl')[0]!.text),
    'an address without one is told so, without a code',
  )
  const code = codeOf('owner@example.pl')!
  const wrong = await post('/v1/auth/session', {
    email: 'owner@example.pl',
    code: code === '000000' ? '000001' : '000000',
  })
  t.same([wrong.status, wrong.body.error.parameter], [400, 'code'])
  const signedIn = await post('/v1/auth/session', { email: 'owner@example.pl', code })
  t.equal(signedIn.status, 200)
  const setCookie = String(signedIn.headers['set-cookie'])
  t.match(setCookie, /^carmarket_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/)
  t.notMatch(JSON.stringify(signedIn.body), /cm_/, 'no key in the answer')
  const cookie = setCookie.split(';')[0]!
  t.equal((await post('/v1/auth/session', { email: 'owner@example.pl', code })).status, 400, 'a code works once')

  const me = await get('/v1/account/me', cookie)
  t.same([me.status, me.body.data.email, me.body.data.credits_remaining], [200, 'owner@example.pl', 100])
  t.equal((await get('/v1/account/usage?limit=5', cookie)).body.data.transactions.length, 1)
  const market = await get(GOLF, cookie)
  t.equal(market.status, 200)
  t.equal(
    market.body.data.credits_remaining,
    undefined,
    'a market call with the cookie alone is keyless: no account pays',
  )
  t.equal((await get('/v1/account/me', cookie)).body.data.credits_remaining, 100)

  const forged = await post('/v1/account/keys/rotate', undefined, cookie, 'https://evil.example')
  t.same([forged.status, forged.body.error.code], [401, 'UNAUTHORIZED'], "another site's page cannot use the session")
  t.equal((await get('/v1/account/me', undefined, key)).status, 200, 'and the key is untouched')
  const rotated = await post('/v1/account/keys/rotate', undefined, cookie)
  t.equal(rotated.status, 200, 'the key is replaced from the session')
  t.equal((await get('/v1/account/me', undefined, key)).status, 401, 'the old key stops working')
  t.match(outboxMail(outbox, 'owner@example.pl').at(-1)!.text, /Your API key is cm_/, 'the new one is e-mailed')
  t.equal((await get('/v1/account/me', cookie)).status, 200, 'and the session goes on')

  const out = await post('/v1/auth/sign-out', undefined, cookie)
  t.match(String(out.headers['set-cookie']), /^carmarket_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/)
  const after = await get('/v1/account/me', cookie)
  t.same(
    [after.status, after.body.error.code],
    [401, 'UNAUTHORIZED'],
    'signed out: the session is over on the server too',
  )
})

t.test('a session ends after 12 hours, and five wrong codes use a code up', async (t) => {
  const { ledger, post, get, codeOf, advance } = await setup(t)
  await account(ledger, 'late@example.pl', 10)
  await post('/v1/auth/sign-in', { email: 'late@example.pl' })
  const code = codeOf('late@example.pl')!
  const wrong = code === '111111' ? '222222' : '111111'
  for (let i = 0; i < 5; i++) await post('/v1/auth/session', { email: 'late@example.pl', code: wrong })
  const used = await post('/v1/auth/session', { email: 'late@example.pl', code })
  t.same(
    [used.status, used.body.error.code],
    [400, 'INVALID_PARAMETER'],
    'the right code, after five wrong ones, no longer works',
  )
  await post('/v1/auth/sign-in', { email: 'late@example.pl' })
  const signedIn = await post('/v1/auth/session', { email: 'late@example.pl', code: codeOf('late@example.pl')! })
  const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!
  t.equal((await get('/v1/account/me', cookie)).status, 200)
  advance(SESSION_MS + 1_000)
  const ended = await get('/v1/account/me', cookie)
  t.same([ended.status, ended.body.error.code], [401, 'UNAUTHORIZED'], 'twelve hours on, the session has ended')
  const forged = await get('/v1/account/me', `carmarket_session=${'A'.repeat(43)}`)
  t.equal(forged.status, 401, 'a made-up token is no session')
})
