import t from 'tap'
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
  return { get: served.get, post, mail, codeOf, advance: (ms: number) => (now += ms), now: () => now }
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
  t.match(mail('anna.nowak@example.pl').at(-1)!.text, /has an account already/, 'whose owner is told, without a code')
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
