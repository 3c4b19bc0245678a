import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { request } from 'undici'
import { KEY_MAIL_WINDOW_MS } from '../../runtime/billing.js'
import { chromiumMissing, openBrowser, screenshot } from '../chromium.js'
import { openTestLedger } from '../ledger-engines.js'
import { SECRET_KEY, StripeStandIn, WEBHOOK_SECRET } from '../stripe-standin.js'
import { build, freshDir, outboxMail, rows, spawnServe, toCsv } from '../support.js'

const STRIPE_ENV = { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET }

t.test(
  'from /buy in Chromium to credits on the key: plan, e-mail, the payment page, back, and the key by e-mail',
  async (t) => {
    const missing = chromiumMissing()
    if (missing !== undefined) return t.fail(missing)
    const standIn = await StripeStandIn.start(t)
    const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const outbox = freshDir(t)
    const server = await spawnServe(
      t,
      ['--snapshots', snapshots, '--ledger', freshDir(t), '--outbox', outbox, '--rate-limit', '0'],
      { env: { ...process.env, ...STRIPE_ENV, CARMARKET_STRIPE_API_BASE: standIn.origin } },
    )
    const base = `http://127.0.0.1:${server.port}`
    standIn.webhookUrl = `${base}/v1/billing/stripe-webhook`
    const { page, seen } = await openBrowser(t)
    await page.goto(`${base}/`)
    await page.click('a[href="/buy?plan=15000"]')
    t.equal(new URL(page.url()).pathname, '/buy', "a plan's Buy link leads to /buy")
    t.ok(await page.isChecked('input[name="plan"][value="15000"]'), 'with that plan chosen')
    await page.fill('#email', 'browser@example.pl')
    await screenshot(page, 'buy-form')
    await Promise.all([page.waitForURL(`${standIn.origin}/pay/**`), page.click('button[type="submit"]')])
    t.match(page.url(), `${standIn.origin}/pay/cs_test_`, "the form goes on to the provider's payment page")
    await Promise.all([page.waitForURL(`${base}/buy?paid=**`), page.click('#pay')])
    t.match(await page.textContent('[role="status"]'), /Thank you/, 'and back, thanked')
    await screenshot(page, 'buy-paid')
    const mail = outboxMail(outbox, 'browser@example.pl')
    const key = /API key is (cm_[A-Za-z0-9_-]{43})/.exec(mail.at(-1)?.text ?? '')?.[1]
    t.ok(key, 'the key is e-mailed')
    const me = await request(`${base}/v1/account/me`, { headers: { 'x-api-key': key ?? '' } })
    t.equal(((await me.body.json()) as { data: { credits_remaining: number } }).data.credits_remaining, 15_000)
    t.same(
      seen.problems.filter((p) => !p.includes(standIn.origin)),
      [],
      'nothing went wrong in the browser',
    )

    await page.goto(`${base}/buy?cancelled=1`)
    t.match(await page.textContent('[role="status"]'), /cancelled; nothing was charged/)
  },
)

t.test(
  'a runtime killed around the grant: Stripe delivering the event again grants once, and the key goes out',
  async (t) => {
    // Six rounds, each of which may wait out the window the key's mail has once or twice.
    t.setTimeout(240_000)
    const standIn = await StripeStandIn.start(t)
    const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const ledger = freshDir(t)
    const outbox = freshDir(t)
    const start = () =>
      spawnServe(t, ['--snapshots', snapshots, '--ledger', ledger, '--outbox', outbox, '--rate-limit', '0'], {
        env: { ...process.env, ...STRIPE_ENV, CARMARKET_STRIPE_API_BASE: standIn.origin },
      })
    // Kills land before, during and after the grant's commit; each buyer's event is delivered until it is answered 200.
    for (const delay of [0, 1, 2, 4, 8, 16]) {
      const first = await start()
      const base = `http://127.0.0.1:${first.port}`
      standIn.webhookUrl = `${base}/v1/billing/stripe-webhook`
      const email = `crash${delay}@example.pl`
      const started = await request(`${base}/v1/billing/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 5000, email }),
      })
      const id = ((await started.body.json()) as { data: { session_id: string } }).data.session_id
      const session = standIn.sessions.get(id)!
      Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: `pi_${delay}` })
      const payload = standIn.eventPayload('checkout.session.completed', session)
      const delivered = standIn.post(payload, standIn.signature(payload)).catch(() => ({ status: 0, body: undefined }))
      await sleep(delay)
      first.child.kill('SIGKILL')
      await delivered
      await new Promise((resolve) => first.child.once('exit', resolve))

      const second = await start()
      standIn.webhookUrl = `http://127.0.0.1:${second.port}/v1/billing/stripe-webhook`
      let answer = await standIn.post(payload, standIn.signature(payload))
      // Within the window the first runtime had to mail the key, the event is to be told again later (as Stripe does).
      for (let tries = 0; answer.status === 503 && tries < 3; tries++) {
        await sleep(KEY_MAIL_WINDOW_MS)
        answer = await standIn.post(payload, standIn.signature(payload))
      }
      t.equal(answer.status, 200, `killed after ${delay} ms: answered once the event is told again`)
      const keys = outboxMail(outbox, email).filter((m) => /API key is/.test(m.text))
      t.ok(keys.length >= 1, `killed after ${delay} ms: a key was e-mailed`)
      const key = /API key is (cm_[A-Za-z0-9_-]{43})/.exec(keys.at(-1)!.text)![1]!
      const me = await request(`http://127.0.0.1:${second.port}/v1/account/me`, { headers: { 'x-api-key': key } })
      t.equal(
        ((await me.body.json()) as { data: { credits_remaining: number } }).data.credits_remaining,
        5_000,
        `killed after ${delay} ms: the newest key works, and the credits were granted once`,
      )
      second.child.kill('SIGKILL')
      await new Promise((resolve) => second.child.once('exit', resolve))
    }
    const opened = await openTestLedger(t, ledger)
    for (const delay of [0, 1, 2, 4, 8, 16]) {
      const account = (await opened.accountByEmail(`crash${delay}@example.pl`))!
      const entries = await opened.entries(account.id, 100)
      t.same(
        entries.map((e) => [e.type, e.credits]),
        [['grant', 5_000]],
        `crash${delay}: one account, one grant`,
      )
    }
  },
)
