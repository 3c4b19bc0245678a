import t, { type Test } from 'tap'
import { request } from 'undici'
import { build, carmarket, freshDir, metric, rows, spawnServe, toCsv } from './support.js'
import { freshDatabase } from './services.js'
import { migrate } from '../ledger/pg-schema.js'
import { SmtpRelay, type Received } from './smtp-relay.js'
import type { MailRecord } from '../ledger/types.js'

const FROM = 'carmarket <noreply@example.com>'

/** A server sending mail through `relay`, on a ledger of its own unless given one. */
async function serveWith(t: Test, relay: SmtpRelay, extra: readonly string[] = [], ledger = freshDir(t)) {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const args = ['--snapshots', snapshots, '--ledger', ledger, '--outbox', freshDir(t), '--rate-limit', '0']
  const server = await spawnServe(t, [...args, '--smtp-url', relay.url, '--mail-from', FROM, ...extra])
  return { ...server, ledger, snapshots }
}

async function post(port: number, path: string, body: object): Promise<{ status: number; body: any }> {
  const response = await request(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.statusCode, body: await response.body.json() }
}

function codeIn(message: Received): string {
  return /code is (\d{6})/.exec(message.parsed.text ?? '')![1]!
}

/** The account's mail queue as `carmarket mail list --json` prints it. */
async function mailList(ledger: string, failed = false): Promise<MailRecord[]> {
  const run = await carmarket(['mail', 'list', '--ledger', ledger, '--json', ...(failed ? ['--failed'] : [])])
  return (JSON.parse(run.stdout) as { mail: MailRecord[] }).mail
}

/** Whether `condition` came true within `ms`. */
async function until(condition: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!(await condition()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  return condition()
}

t.test(
  'registration mail goes out over SMTP: a text and an HTML part, From, Message-ID and Date, no key in the log',
  async (t) => {
    const relay = await SmtpRelay.start(t)
    const server = await serveWith(t, relay)
    t.match(
      server.log(),
      `mail      sent through smtp://127.0.0.1:${relay.port} from ${FROM}`,
      'the banner says where mail goes',
    )

    const asked = await post(server.port, '/v1/auth/register', { email: 'anna@example.pl' })
    t.equal(asked.status, 200)
    const [codeMail] = await relay.messagesTo('anna@example.pl')
    t.ok(codeMail, 'the code arrived')
    const parsed = codeMail!.parsed
    t.equal(parsed.from?.text, '"carmarket" <noreply@example.com>')
    t.same(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((a) => a.address) : [], ['anna@example.pl'])
    t.match(
      parsed.messageId,
      /^<m_[0-9a-z]+_[0-9a-f]{24}@example\.com>$/,
      'a Message-ID of the queue id at the From domain',
    )
    t.ok(parsed.date instanceof Date && Math.abs(parsed.date.getTime() - Date.now()) < 60_000, 'a Date')
    t.match(parsed.text, /Your one-time code is \d{6}/, 'a text part')
    t.match(parsed.html, /<p>Your one-time code is \d{6}/, 'and an HTML part saying the same')
    t.match(codeMail!.raw, /Content-Type: multipart\/alternative/i, 'the two as alternatives')
    const code = codeIn(codeMail!)

    t.equal((await post(server.port, '/v1/auth/verify', { email: 'anna@example.pl', code })).status, 200)
    const [, keyMail] = await relay.messagesTo('anna@example.pl', 2)
    const key = /API key is (cm_[A-Za-z0-9_-]{43})/.exec(keyMail!.parsed.text ?? '')![1]!
    t.match(keyMail!.parsed.html, new RegExp(`${key}`), 'the key in the HTML part too')
    t.match(keyMail!.parsed.html, /<a href="http:\/\/127\.0\.0\.1:\d+\/docs">/, 'with its links as links')
    const me = await request(`http://127.0.0.1:${server.port}/v1/account/me`, { headers: { 'x-api-key': key } })
    t.equal(me.statusCode, 200, 'the key mailed works')
    await me.body.dump()
    const metrics = await (await request(`http://127.0.0.1:${server.port}/metrics`)).body.text()
    t.equal(metric(metrics, 'carmarket_registrations_total'), 1, '/metrics counts the registration')

    t.notMatch(server.log(), key, 'the key is in no log line')
    t.notMatch(server.log(), code, 'nor the code')
    t.equal((server.log().match(/"message":"mail sent"/g) ?? []).length, 2, 'each message sent is told once')
    t.same(await mailList(server.ledger), [], 'and leaves the queue: nothing of a message sent is kept')
  },
)

t.test(
  'a relay that is down fails no registration: the mail waits in the ledger, through a restart of the runtime',
  async (t) => {
    const relay = await SmtpRelay.start(t)
    await relay.stop()
    const first = await serveWith(t, relay, ['--mail-retry-after', '1'])
    const asked = await post(first.port, '/v1/auth/register', { email: 'jan@example.pl' })
    t.equal(asked.status, 200, 'the registration is accepted')
    t.ok(
      await until(() => /"message":"mail not sent; it is tried again later"/.test(first.log())),
      'the attempt failed and is to be tried again',
    )
    t.notMatch(first.log(), /Your one-time code/, 'the log tells the failure, not the message')
    first.child.kill('SIGKILL')
    await new Promise((resolve) => first.child.once('exit', resolve))
    const waiting = await mailList(first.ledger)
    t.same(
      waiting.map((m) => [m.state, m.kind, m.to]),
      [['queued', 'code', 'jan@example.pl']],
      'the message waits in the ledger after the runtime was killed',
    )
    t.ok(waiting[0]!.attempts >= 1, 'with its failed attempts')

    await relay.listen()
    const second = await serveWith(t, relay, ['--mail-retry-after', '1'], first.ledger)
    const arrived = await relay.messagesTo('jan@example.pl', 1, 20_000)
    t.equal(arrived.length, 1, 'a runtime started again sends it once the relay is back')
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    t.equal((await relay.messagesTo('jan@example.pl', 2, 0)).length, 1, 'once')
    t.ok(await until(async () => (await mailList(second.ledger)).length === 0), 'and the queue is empty')
    t.equal(
      (await post(second.port, '/v1/auth/verify', { email: 'jan@example.pl', code: codeIn(arrived[0]!) })).status,
      200,
    )
  },
)

t.test(
  'mail the relay refuses for good, or that waits too long, is given up: mail list --failed and /metrics show it',
  async (t) => {
    const relay = await SmtpRelay.start(t)
    relay.refuse.set('gone@example.pl', 550)
    relay.refuse.set('later@example.pl', 451)
    const server = await serveWith(t, relay, ['--mail-retry-after', '1', '--mail-give-up-after', '3'])
    t.equal((await post(server.port, '/v1/auth/register', { email: 'gone@example.pl' })).status, 200)
    t.equal((await post(server.port, '/v1/auth/register', { email: 'later@example.pl' })).status, 200)
    t.ok(await until(async () => (await mailList(server.ledger, true)).length === 2, 20_000), 'both given up')
    const failed = await mailList(server.ledger, true)
    const byAddress = new Map(failed.map((m) => [m.to, m]))
    t.equal(byAddress.get('gone@example.pl')!.attempts, 1, 'a 5xx to the recipient at the first attempt')
    t.match(byAddress.get('gone@example.pl')!.last_error, /550/)
    t.ok(byAddress.get('later@example.pl')!.attempts >= 2, 'a 4xx tried again until its time ran out')
    t.match(byAddress.get('later@example.pl')!.last_error, /451/)
    t.notOk(JSON.stringify(failed).includes('code is'), 'nothing of their text is kept')
    t.equal(relay.received.length, 0)
    t.equal((server.log().match(/"level":"error","message":"mail given up/g) ?? []).length, 2, 'each told as an error')

    const metrics = await (await request(`http://127.0.0.1:${server.port}/metrics`)).body.text()
    t.equal(metric(metrics, 'carmarket_mail_total{outcome="given_up"}'), 2)
    t.ok(metric(metrics, 'carmarket_mail_total{outcome="retried"}')! >= 1)
    t.equal(metric(metrics, 'carmarket_mail_queue_messages{state="failed"}'), 2)
    t.equal(metric(metrics, 'carmarket_mail_queue_messages{state="queued"}'), 0)
  },
)

t.test('two runtimes on one PostgreSQL ledger share the queue: every message sent once', async (t) => {
  const relay = await SmtpRelay.start(t)
  const ledger = await freshDatabase(t)
  await migrate(ledger)
  const a = await serveWith(t, relay, [], ledger)
  const b = await serveWith(t, relay, [], ledger)
  const addresses = Array.from({ length: 12 }, (_, i) => `user${i}@example.pl`)
  const answers = await Promise.all(
    addresses.map((email, i) => post((i % 2 === 0 ? a : b).port, '/v1/auth/register', { email })),
  )
  t.same(
    answers.map((r) => r.status),
    addresses.map(() => 200),
  )
  t.ok(await until(() => relay.received.length >= 12), 'every code arrived')
  // Both runtimes look at the queue every second: time for a second sending, were there one.
  await new Promise((resolve) => setTimeout(resolve, 2_500))
  t.same(
    relay.received.flatMap((m) => m.envelopeTo).sort(),
    [...addresses].sort(),
    'each address got exactly one message',
  )
  t.equal(new Set(relay.received.map((m) => m.parsed.messageId)).size, 12, 'twelve messages, twelve Message-IDs')
  const sentBy = [a, b].map((s) => (s.log().match(/"message":"mail sent"/g) ?? []).length)
  t.equal(sentBy[0]! + sentBy[1]!, 12, `sent by the two runtimes between them (${sentBy.join(' and ')})`)
  t.same(await mailList(ledger), [], 'the queue is empty')
})

t.test('--smtp-url is checked at start, and needs --mail-from', async (t) => {
  const snapshots = freshDir(t)
  const noFrom = await carmarket(['serve', '--snapshots', snapshots, '--smtp-url', 'smtp://127.0.0.1:25'])
  t.equal(noFrom.code, 2)
  t.match(noFrom.stderr, /--smtp-url needs --mail-from/)
  const notSmtp = await carmarket([
    'serve',
    '--snapshots',
    snapshots,
    '--smtp-url',
    'http://127.0.0.1:25',
    '--mail-from',
    FROM,
  ])
  t.equal(notSmtp.code, 2)
  t.match(notSmtp.stderr, /--smtp-url must be an SMTP relay's address/)
  const badFrom = await carmarket([
    'serve',
    '--snapshots',
    snapshots,
    '--smtp-url',
    'smtp://h:25',
    '--mail-from',
    'x <y>\r\nBcc: z',
  ])
  t.equal(badFrom.code, 2)
  t.match(badFrom.stderr, /--mail-from must be an address/)
})
