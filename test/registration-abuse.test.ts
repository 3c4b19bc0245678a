import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { ACCOUNTS_PER_CLIENT_PER_DAY } from '../runtime/registration.js'
import { smallDisk } from './disk.js'
import { account, build, freshDir, outboxMail, rows, spawnServe, toCsv } from './support.js'

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: { status: string; data?: Record<string, unknown>; error?: Record<string, unknown> }
}

async function setup(t: Test, outbox = freshDir(t), ledgerDir = freshDir(t)) {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const server = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    ledgerDir,
    '--outbox',
    outbox,
    '--rate-limit',
    '0',
    '--trusted-proxy',
    '127.0.0.1',
  ])
  const base = `http://127.0.0.1:${server.port}`
  let clients = 0
  /** A POST from a client address of its own (behind the trusted proxy), unless `from` names one. */
  const post = async (path: string, body: unknown, from = `192.0.2.${++clients % 250}`): Promise<Reply> => {
    const response = await request(`${base}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    })
    return {
      status: response.statusCode,
      headers: response.headers,
      body: (await response.body.json()) as Reply['body'],
    }
  }
  const codeOf = (to: string) => /code is (\d{6})/.exec(outboxMail(outbox, to).at(-1)?.text ?? '')?.[1]
  const keyOf = (to: string) => /API key is (cm_[A-Za-z0-9_-]{43})/.exec(outboxMail(outbox, to).at(-1)?.text ?? '')?.[1]
  const me = async (key: string) => {
    const response = await request(`${base}/v1/account/me`, { headers: { 'x-api-key': key } })
    return (await response.body.json()) as { data: { account_id: string; credits_remaining: number } }
  }
  /** Registers and verifies an address from one client; resolves to the key e-mailed, if any. */
  const signUp = async (email: string, from?: string) => {
    const asked = await post('/v1/auth/register', { email }, from)
    const to = asked.body.data?.email as string | undefined
    const code = to === undefined ? undefined : codeOf(to)
    if (code === undefined) return { asked, verified: undefined, key: undefined }
    const verified = await post('/v1/auth/verify', { email, code }, from)
    return { asked, verified, key: verified.status === 200 ? keyOf(to!) : undefined }
  }
  return { base, post, codeOf, keyOf, me, signUp, outbox, ledgerDir }
}

t.test('answers do not tell whether an address has an account', async (t) => {
  const ledgerDir = freshDir(t)
  const known = Array.from({ length: 120 }, (_, i) => `known-${i}@example.pl`)
  for (const email of known) await account(ledgerDir, email, 0)
  const { post } = await setup(t, freshDir(t), ledgerDir)
  const fresh = Array.from({ length: 120 }, (_, i) => `fresh-${i}@example.pl`)
  const without = (reply: Reply) => JSON.stringify({ ...reply.body, data: { ...reply.body.data, email: undefined } })

  const registered = await post('/v1/auth/register', { email: known[0] })
  const unregistered = await post('/v1/auth/register', { email: fresh[0] })
  t.equal(without(registered), without(unregistered), 'register answers alike')
  for (let attempt = 1; attempt <= 5; attempt++) {
    const a = await post('/v1/auth/verify', { email: known[0], code: '000000' })
    const b = await post('/v1/auth/verify', { email: fresh[0], code: '000000' })
    t.same([a.status, a.body], [b.status, b.body], `a wrong code, attempt ${attempt}: the same answer`)
  }
  const a = await post('/v1/auth/verify', { email: known[1], code: '123456' })
  const b = await post('/v1/auth/verify', { email: fresh[1], code: '123456' })
  t.same([a.status, a.body], [b.status, b.body], 'a code never asked for: the same answer')

  // Time: interleaved, so the machine's own noise falls on both alike.
  const timeOf = async (email: string) => {
    const started = process.hrtime.bigint()
    t.equal((await post('/v1/auth/register', { email })).status, 200)
    return Number(process.hrtime.bigint() - started)
  }
  const knownTimes: number[] = []
  const freshTimes: number[] = []
  for (let i = 2; i < 120; i++) {
    knownTimes.push(await timeOf(known[i]!))
    freshTimes.push(await timeOf(fresh[i]!))
  }
  // The probability that a known address's call is the slower of a pair: 0.5 when the
  // time does not depend on it; 0 or 1 when it does (1.4 ms against 3.5 ms before).
  let slower = 0
  for (const k of knownTimes) for (const f of freshTimes) slower += k > f ? 1 : k === f ? 0.5 : 0
  const share = slower / (knownTimes.length * freshTimes.length)
  // With 118 calls of each, the share's standard deviation is about 0.038 when the time
  // does not depend on the address: the bounds are over 5 of them from 0.5 (before, when it
  // did, the share was 0.14-0.23).
  t.ok(
    share > 0.3 && share < 0.7,
    `register takes as long for a registered address as for a new one (P(slower) = ${share.toFixed(2)})`,
  )
})

t.test('one account per mailbox: the forms of one address all meet the first account', async (t) => {
  const { post, signUp, me, outbox } = await setup(t)
  const first = await signUp('anna.nowak@gmail.com')
  t.ok(first.key, 'the first registration gets a key')
  const accountId = (await me(first.key!)).data.account_id
  const seen = new Set(readdirSync(outbox))
  const variants = [
    'anna.nowak+1@gmail.com',
    'annanowak@gmail.com',
    'a.n.n.a.nowak@googlemail.com',
    'anna.nowak@gmail.com.',
    'ＡＮＮＡ.nowak@gmail.com',
    'ánna.nowak@gmail.com',
    'anna.nowak@GMAIL.COM',
  ]
  const answered: number[] = []
  for (const email of variants) {
    const attempt = await signUp(email)
    answered.push(attempt.asked.status)
    t.equal(attempt.key, undefined, `${email}: no second account`)
  }
  // The mailbox's codes of the hour are spent after the first three: more proof they are one mailbox.
  t.same(answered, [200, 200, 429, 429, 429, 429, 429], 'each spelling counts against the one mailbox')
  const mails = readdirSync(outbox)
    .filter((name) => !seen.has(name) && !name.startsWith('.'))
    .map((name) => JSON.parse(readFileSync(join(outbox, name), 'utf8')) as { to: string; text: string })
  t.same(
    mails.map((m) => m.to),
    ['anna.nowak@gmail.com', 'anna.nowak@gmail.com'],
    "the codes went to the account's own address, never to the spelling typed: whoever verifies one gets its key",
  )
  t.ok(
    mails.every((m) => /your current key stops working/.test(m.text) && !/API key is/.test(m.text)),
    'each telling its owner what it does, and none holding a key',
  )

  const idn = await signUp('jan@bücher.de')
  t.ok(idn.key, 'a Unicode domain registers')
  const idnAccount = (await me(idn.key!)).data.account_id
  const punycode = await signUp('jan@xn--bcher-kva.de')
  t.equal(
    (await me(punycode.key!)).data.account_id,
    idnAccount,
    'its punycode form is the same mailbox: verifying it gives the same account a new key',
  )
  t.equal((await me(idn.key!)).data, undefined, 'which revokes the first')
  t.ok((await signUp('İlona@example.pl')).key)
  t.equal((await signUp('ilona@example.pl')).key, undefined, 'İ folds to i')
  t.ok((await signUp('a.b@wp.pl')).key)
  t.ok((await signUp('ab@wp.pl')).key, 'dots count at domains that do not ignore them')

  for (const [label, email] of [
    ['NUL in the domain', 'x@exa\u0000mple.pl'],
    ['a zero-width space', 'x\u200b@example.pl'],
    ['a byte-order mark', '\ufeffx@example.pl'],
    ['an escape sequence', 'x\u001b[31m@example.pl'],
    ['an OSC title sequence', 'x\u001b]0;owned\u0007@example.pl'],
    ['a C1 control', 'x\u009b31m@example.pl'],
    ['a right-to-left override', 'x\u202e@example.pl'],
    ['a 65-byte local part', `${'a'.repeat(65)}@example.pl`],
    ['a 255-byte address', `${'a'.repeat(60)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.pl`],
    ['a 1,956-byte address', `${'a'.repeat(33)}@${Array.from({ length: 30 }, () => 'x'.repeat(63)).join('.')}.pl`],
    ['two @', 'a@b@example.pl'],
  ] as const) {
    const reply = await post('/v1/auth/register', { email })
    t.same(
      [reply.status, reply.body.error?.code, reply.body.error?.parameter],
      [400, 'INVALID_PARAMETER', 'email'],
      `${label}: refused`,
    )
  }
  t.equal(accountId, (await me(first.key!)).data.account_id)
})

t.test(`at most ${ACCOUNTS_PER_CLIENT_PER_DAY} accounts a day from one client address`, async (t) => {
  const { signUp, post } = await setup(t)
  for (let i = 0; i < ACCOUNTS_PER_CLIENT_PER_DAY; i++)
    t.ok((await signUp(`farm-${i}@example.pl`, '198.51.100.1')).key, `account ${i + 1}`)
  const more = await post('/v1/auth/register', { email: 'farm-more@example.pl' }, '198.51.100.1')
  t.same([more.status, more.body.error?.code], [429, 'RATE_LIMIT_EXCEEDED'], 'the next is refused')
  t.ok(Number(more.headers['retry-after']) > 0)
  t.ok((await signUp('farm-more@example.pl', '198.51.100.2')).key, 'another client address may')
})

t.test(
  'a key e-mail that cannot be written: no account without its key, nothing left behind, a retry works',
  async (t) => {
    const disk = smallDisk(t, 1 << 20)
    const outbox = join(disk.dir, 'outbox')
    const { post, codeOf, keyOf, me, base, ledgerDir } = await setup(t, outbox)
    const email = 'pelny@example.pl'
    t.equal((await post('/v1/auth/register', { email }, '203.0.113.5')).status, 200)
    const code = codeOf(email)!
    disk.fill()
    const verified = await post('/v1/auth/verify', { email, code }, '203.0.113.5')
    t.same(
      [verified.status, verified.body.error?.code],
      [503, 'SERVICE_UNAVAILABLE'],
      'verify says the key could not be sent',
    )
    t.ok(Number(verified.headers['retry-after']) > 0)
    t.same(
      readdirSync(outbox).filter((name) => name.startsWith('.')),
      [],
      'no temporary file is left in the outbox',
    )
    const refused = await post('/v1/auth/register', { email }, '203.0.113.5')
    t.same([refused.status, refused.body.error?.code], [503, 'SERVICE_UNAVAILABLE'], 'a code cannot be sent either')
    t.same(
      readdirSync(outbox).filter((name) => name.startsWith('.')),
      [],
    )

    disk.free()
    t.equal((await post('/v1/auth/register', { email }, '203.0.113.5')).status, 200)
    const again = codeOf(email)
    t.ok(again, 'registering again sends a code, not "the account exists"')
    t.equal((await post('/v1/auth/verify', { email, code: again }, '203.0.113.5')).status, 200)
    const key = keyOf(email)!
    t.equal((await me(key)).data.credits_remaining, 50, 'the key works, with the 50 credits once')
    const usage = await request(`${base}/v1/account/usage`, { headers: { 'x-api-key': key } })
    const entries = ((await usage.body.json()) as { data: { transactions: { type: string }[] } }).data.transactions
    t.same(
      entries.map((e) => e.type),
      ['signup_bonus'],
      'one signup bonus',
    )

    // Replacing a key that works, while its e-mail cannot be written: the key stays.
    const other = await account(ledgerDir, 'rotate-full@example.pl', 50)
    disk.fill()
    const rotate = await request(`${base}/v1/account/keys/rotate`, {
      method: 'POST',
      headers: { 'x-api-key': other.key },
    })
    t.same(
      [rotate.statusCode, ((await rotate.body.json()) as { error?: { code: string } }).error?.code],
      [503, 'SERVICE_UNAVAILABLE'],
      'a new key that cannot be e-mailed is not issued',
    )
    t.equal((await me(other.key)).data.credits_remaining, 50, 'and the key in use keeps working')
    disk.free()
  },
)
