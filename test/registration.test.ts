import t from 'tap'
import { keyPrefix } from '../ledger/keys.js'
import { OutboxMailer } from '../runtime/mailer.js'
import { build, freshDir, outboxMail, rows, serve, toCsv } from './support.js'

async function setup(t: import('tap').Test) {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const outbox = freshDir(t)
  let now = Date.parse('2026-11-22T10:00:00Z')
  const served = await serve(t, { snapshots, mailer: new OutboxMailer(outbox), clock: () => now })
  const post = (path: string, body: string, type = 'application/json') =>
    served.post(path, body, { headers: { 'content-type': type } })
  const mail = (to: string) => outboxMail(outbox, to)
  const codeOf = (to: string) => /code is (\d{6})/.exec(mail(to).at(-1)!.text)![1]!
  /** A POST without a body, sent with `key` if given. */
  const postKeyed = (path: string, key?: string) => served.post(path, undefined, key === undefined ? {} : { key })
  return { get: served.get, post, postKeyed, mail, codeOf, advance: (ms: number) => (now += ms), now: () => now }
}

t.test('register, verify, and the key arrives by e-mail with 50 credits', async (t) => {
  const { get, post, mail, codeOf } = await setup(t)
  const asked = await post('/v1/auth/register', JSON.stringify({ email: ' Anna.Nowak@Example.PL ' }))
  t.same([asked.status, asked.body.data], [200, { email: 'anna.nowak@example.pl', code_sent: true, expires_in: 600 }])
  const code = codeOf('anna.nowak@example.pl')
  const wrong = code === '000000' ? '000001' : '000000'
  t.same((await post('/v1/auth/verify', JSON.stringify({ email: 'anna.nowak@example.pl', code: wrong }))).body.error, {
    code: 'INVALID_PARAMETER',
    message: 'The code is wrong.',
    parameter: 'code',
  })
  const verified = await post('/v1/auth/verify', JSON.stringify({ email: 'ANNA.NOWAK@example.pl', code }))
  t.same([verified.status, verified.body.data], [200, { email: 'anna.nowak@example.pl', key_sent: true }])
  const keyMail = mail('anna.nowak@example.pl').at(-1)!.text
  const key = /API key is (cm_[A-Za-z0-9_-]{43})/.exec(keyMail)![1]!
  // The first call, ready to paste, against the public address; and where the reference is.
  const call = `curl -H "X-API-Key: ${key}" 'http://localhost/v1/market/valuation?make=VW&model=Golf&year=2017'`
  t.ok(
    keyMail.split('\n').some((line) => line.trim() === call),
    'the key e-mail shows the first call with the key',
  )
  t.match(keyMail, /http:\/\/localhost\/docs\b/)
  t.match(keyMail, /http:\/\/localhost\/v1\/openapi\.json/)
  const account = (await get('/v1/account/me', { key })).body.data as { credits_remaining: number; email: string }
  t.same([account.email, account.credits_remaining], ['anna.nowak@example.pl', 50])
  const usage = (await get('/v1/account/usage', { key })).body.data.transactions as { type: string; credits: number }[]
  t.same(
    usage.map((e) => [e.type, e.credits]),
    [['signup_bonus', 50]],
  )
  const first = await get('/v1/market/valuation?make=VW&model=Golf&year=2017', { key })
  t.equal(first.status, 200, 'the first call the e-mail shows is answered')

  t.equal(
    (await post('/v1/auth/verify', JSON.stringify({ email: 'anna.nowak@example.pl', code }))).status,
    400,
    'a code works once',
  )
  const again = await post('/v1/auth/register', JSON.stringify({ email: 'anna.nowak@example.pl' }))
  t.same(again.body.data, asked.body.data, 'the same answer for a registered address')
  t.match(
    mail('anna.nowak@example.pl').at(-1)!.text,
    /a new key comes by e-mail, and your current key stops working/,
    'whose owner gets a code, told what it does',
  )
})

t.test(
  'a lost key: registering the address again mails a code, and verifying it a new key that revokes the old',
  async (t) => {
    const { get, post, mail, codeOf } = await setup(t)
    const register = () => post('/v1/auth/register', JSON.stringify({ email: 'lost@example.pl' }))
    const verify = (code: string) => post('/v1/auth/verify', JSON.stringify({ email: 'lost@example.pl', code }))
    const keyIn = (text: string) => /API key is (cm_[A-Za-z0-9_-]{43})/.exec(text)![1]!
    await register()
    await verify(codeOf('lost@example.pl'))
    const first = keyIn(mail('lost@example.pl').at(-1)!.text)
    t.equal((await get('/v1/market/valuation?make=VW&model=Golf&year=2017', { key: first })).status, 200)

    const asked = await register()
    t.same(
      asked.body.data,
      { email: 'lost@example.pl', code_sent: true, expires_in: 600 },
      'the answer of a new address',
    )
    const verified = await verify(codeOf('lost@example.pl'))
    t.same(verified.body.data, { email: 'lost@example.pl', key_sent: true }, 'and of its verification')
    const message = mail('lost@example.pl').at(-1)!
    t.equal(message.subject, 'Your new carmarket API key')
    t.match(message.text, /replaces your previous key, which no longer works; your balance of 42 credits is unchanged/)
    const second = keyIn(message.text)
    t.not(second, first)
    t.equal((await get('/v1/account/me', { key: first })).status, 401, 'the old key stops working')
    const me = await get('/v1/account/me', { key: second })
    t.equal(me.body.data.credits_remaining, 42, 'the new one works, with the balance as it was')
    const usage = (await get('/v1/account/usage', { key: second })).body.data.transactions as { type: string }[]
    t.same(
      usage.map((e) => e.type),
      ['charge', 'signup_bonus'],
      'no second bonus',
    )
  },
)

t.test('POST /v1/account/keys/rotate mails a new key and revokes the one it was sent with', async (t) => {
  const { get, post, postKeyed, mail, codeOf } = await setup(t)
  await post('/v1/auth/register', JSON.stringify({ email: 'rotate@example.pl' }))
  await post('/v1/auth/verify', JSON.stringify({ email: 'rotate@example.pl', code: codeOf('rotate@example.pl') }))
  const keyIn = (text: string) => /API key is (cm_[A-Za-z0-9_-]{43})/.exec(text)![1]!
  const old = keyIn(mail('rotate@example.pl').at(-1)!.text)
  const rotate = (key?: string) => postKeyed('/v1/account/keys/rotate', key)
  const rotated = await rotate(old)
  t.equal(rotated.status, 200)
  const fresh = keyIn(mail('rotate@example.pl').at(-1)!.text)
  t.same(rotated.body.data, { email: 'rotate@example.pl', key_sent: true, key_prefix: keyPrefix(fresh) })
  t.equal((await get('/v1/account/me', { key: old })).status, 401, 'the key it was sent with stops working')
  t.equal((await get('/v1/account/me', { key: fresh })).body.data.credits_remaining, 50)
  t.equal((await rotate()).body.error.code, 'UNAUTHORIZED', 'a key is needed')
  t.equal((await rotate(old)).body.error.code, 'UNAUTHORIZED', 'a revoked one is refused')
  // The code of the registration and two rotations are three messages counted: the hour's quota for the mailbox.
  t.equal((await rotate(fresh)).status, 200)
  const newest = keyIn(mail('rotate@example.pl').at(-1)!.text)
  const again = await rotate(newest)
  t.equal(again.body.error.code, 'RATE_LIMIT_EXCEEDED', 'the mailbox gets at most three codes or keys an hour')
  t.equal((await get('/v1/account/me', { key: newest })).status, 200, 'and the key refused a rotation keeps working')
})

t.test('codes expire, five wrong tries use one up, and codes are limited per address', async (t) => {
  const { post, codeOf, advance, now } = await setup(t)
  const email = 'jan@example.pl'
  await post('/v1/auth/register', JSON.stringify({ email }))
  const first = codeOf(email)
  advance(10 * 60_000 + 1)
  t.match(
    (await post('/v1/auth/verify', JSON.stringify({ email, code: first }))).body.error.message,
    /no valid code/,
    'expired after 10 minutes',
  )

  await post('/v1/auth/register', JSON.stringify({ email }))
  const second = codeOf(email)
  const wrong = second === '111111' ? '222222' : '111111'
  for (let i = 0; i < 4; i++)
    t.match((await post('/v1/auth/verify', JSON.stringify({ email, code: wrong }))).body.error.message, /wrong/)
  t.match(
    (await post('/v1/auth/verify', JSON.stringify({ email, code: wrong }))).body.error.message,
    /Too many wrong codes/,
  )
  t.match(
    (await post('/v1/auth/verify', JSON.stringify({ email, code: second }))).body.error.message,
    /no valid code/,
    'the right code no longer works',
  )

  t.equal((await post('/v1/auth/register', JSON.stringify({ email }))).status, 200, 'the third code this hour')
  const refused = await post('/v1/auth/register', JSON.stringify({ email }))
  // Counted in fixed hours: retry when this one ends.
  const hourEnds = (Math.floor(now() / 3_600_000) + 1) * 3_600_000
  t.same(
    [refused.status, refused.body.error.code, refused.headers['retry-after']],
    [429, 'RATE_LIMIT_EXCEEDED', String(Math.ceil((hourEnds - now()) / 1000))],
  )
  advance(3_600_000)
  t.equal((await post('/v1/auth/register', JSON.stringify({ email }))).status, 200, 'a new hour')
})

t.test('bodies are checked: type, size, JSON, fields', async (t) => {
  const { get, post } = await setup(t)
  t.same((await post('/v1/auth/register', 'email=a@b.pl', 'application/x-www-form-urlencoded')).status, 415)
  t.same((await post('/v1/auth/register', '{"email":')).body.error, {
    code: 'INVALID_PARAMETER',
    message: 'The body is not valid JSON.',
    parameter: 'body',
  })
  t.same((await post('/v1/auth/register', '[]')).body.error.parameter, 'body')
  t.same((await post('/v1/auth/register', JSON.stringify({ email: 'x'.repeat(5000) }))).status, 413)
  t.same((await post('/v1/auth/register', JSON.stringify({ email: 'not-an-address' }))).body.error.parameter, 'email')
  t.same(
    (await post('/v1/auth/verify', JSON.stringify({ email: 'a@example.pl', code: '12345' }))).body.error.parameter,
    'code',
  )
  // A field missing is required, not malformed; a field the route does not take is named.
  t.same((await post('/v1/auth/register', '{}')).body.error, {
    code: 'INVALID_PARAMETER',
    message: 'email is required',
    parameter: 'email',
  })
  t.same((await post('/v1/auth/register', JSON.stringify({ mail: 'a@example.pl' }))).body.error, {
    code: 'INVALID_PARAMETER',
    message: 'email is required; the body has "mail" instead (this takes email)',
    parameter: 'email',
  })
  t.same((await post('/v1/auth/verify', JSON.stringify({ email: 'a@example.pl', kod: '123456' }))).body.error, {
    code: 'INVALID_PARAMETER',
    message: 'code is required; the body has "kod" instead (this takes email and code)',
    parameter: 'code',
  })
  const extra = JSON.stringify({ email: 'a@example.pl', name: 'Anna', plan: 'free' })
  t.same((await post('/v1/auth/register', extra)).body.error, {
    code: 'INVALID_PARAMETER',
    message: 'unknown fields "name", "plan"; this takes email',
    parameter: 'name',
  })
  const nothing = await post('/v1/auth/register', JSON.stringify({ email: null }))
  t.equal(nothing.body.error.message, 'email must be a string')
  const got = await get('/v1/auth/register')
  t.same([got.status, got.headers.allow], [405, 'POST'])
})
