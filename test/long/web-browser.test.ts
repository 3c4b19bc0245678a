import t from 'tap'
import { request } from 'undici'
import { SIGNUP_CREDITS } from '../../query/prices.js'
import { CODES_PER_EMAIL } from '../../runtime/registration.js'
import { chromiumMissing, openBrowser, screenshot } from '../chromium.js'
import { build, freshDir, outboxMail, rows, spawnServe, toCsv } from '../support.js'

/**
 * Run in the page: the table cells (of displayed tables, less the header row a narrow
 * screen hides) not within the screen's width, which a reader would have to scroll to,
 * if they noticed them at all.
 */
const CELLS_OUT_OF_SIGHT = `[...document.querySelectorAll('td, th')]
  .filter((cell) => cell.getClientRects().length > 0)
  .filter((cell) => (cell.closest('thead') ?? cell).getBoundingClientRect().width > 1)
  .filter((cell) => {
    const box = cell.getBoundingClientRect()
    return box.left < 0 || box.right > window.innerWidth + 0.5
  })
  .map((cell) => cell.closest('table').querySelector('th').textContent + ': ' + cell.textContent.slice(0, 40))`

const missing = chromiumMissing()
if (missing !== undefined) {
  t.fail(missing)
} else {
  await endToEnd()
}

async function endToEnd(): Promise<void> {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const outbox = freshDir(t)
  const { port } = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    freshDir(t),
    '--outbox',
    outbox,
    '--rate-limit',
    '0',
    '--public-url',
    'https://cars.example.test',
    '--sales-email',
    'sales@cars.example.test',
    '--no-request-log',
  ])
  const base = `http://127.0.0.1:${port}`
  const { page, seen } = await openBrowser(t)

  const mail = (to: string) => outboxMail(outbox, to)
  /** What the API itself answers to a registration body: the message the page must show. */
  const apiMessage = async (path: string, body: object) => {
    const response = await request(`${base}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    })
    return ((await response.body.json()) as { error: { message: string } }).error.message
  }

  await t.test('the landing page shows the plans and the free credits', async (t) => {
    await page.goto(`${base}/`)
    t.equal(await page.locator('#plans').count(), 1, 'the #plans anchor of the navigation')
    const plans = await page.locator('#plans').innerText()
    for (const [credits, price] of [
      ['5,000', '$49'],
      ['15,000', '$129'],
      ['40,000', '$299'],
      ['100,000', '$699'],
    ]) {
      t.match(plans, `${credits} credits\n${price}`, `${credits} credits for ${price}`)
    }
    t.match(plans, `${SIGNUP_CREDITS} credits\n$0`, 'the free credits of registration')
    t.match(plans, /sales@cars\.example\.test/, 'how to buy without a checkout: the sales address given')
    await page.goto(`${base}/#plans`)
    t.ok(await page.locator('#plans').isVisible(), 'the anchor scrolls into view')
    await page.goto(`${base}/`)
    await screenshot(page, 'landing')
  })

  await t.test('the API reference renders the operations', async (t) => {
    await page.goto(`${base}/docs`)
    const valuation = page.locator('#get-v1-market-valuation')
    t.ok(await valuation.isVisible())
    const text = await valuation.innerText()
    t.match(text, /GET\s+\/v1\/market\/valuation/)
    t.match(text, /8 credits/)
    t.match(text, /fuel_type/)
    t.match(text, /curl/)
    await page.getByRole('link', { name: 'GET /v1/account/me' }).click()
    t.match(page.url(), /#get-v1-account-me$/, 'the contents link to each operation')
    await page.goto(`${base}/docs`)
    await screenshot(page, 'docs')
  })

  await t.test('registration: a bad address, a wrong code, then the key by e-mail', async (t) => {
    const email = 'anna.nowak@example.pl'
    await page.goto(`${base}/register`)
    await screenshot(page, 'register-1-email')
    const error = page.locator('#error')

    await page.getByLabel('E-mail address').fill('not-an-address')
    await page.getByRole('button', { name: 'Send me a code' }).click()
    await error.waitFor()
    t.equal(
      await error.innerText(),
      await apiMessage('/v1/auth/register', { email: 'not-an-address' }),
      "a bad address: the API's message",
    )
    t.equal(await page.getByLabel('E-mail address').getAttribute('aria-invalid'), 'true', 'and the field is marked')
    await screenshot(page, 'register-2-bad-email')

    await page.getByLabel('E-mail address').fill(email)
    await page.getByRole('button', { name: 'Send me a code' }).click()
    await page.getByLabel('Code from the e-mail').waitFor()
    t.ok(await error.isHidden(), 'the old error is gone')
    t.match(
      await page.locator('#code-step').innerText(),
      `We sent a 6-digit code to ${email}. It is valid for 10 minutes.`,
    )
    await screenshot(page, 'register-3-code')
    const code = /code is (\d{6})/.exec(mail(email).at(-1)!.text)![1]!

    await page.getByLabel('Code from the e-mail').fill(code === '000000' ? '000001' : '000000')
    await page.getByRole('button', { name: 'Create my account' }).click()
    await error.waitFor()
    t.equal(await error.innerText(), 'The code is wrong.', "a wrong code: the API's message")
    await screenshot(page, 'register-4-wrong-code')

    await page.getByLabel('Code from the e-mail').fill(code)
    await page.getByRole('button', { name: 'Create my account' }).click()
    await page.getByRole('heading', { name: 'Your key is on its way' }).waitFor()
    t.ok(await page.locator('#code-step').isHidden(), 'the code form is gone')
    const done = await page.locator('#done-step').innerText()
    t.match(done, email)
    const firstCall = [
      'curl \\',
      '  -H "X-API-Key: ${KEY:?set KEY to your key}" \\',
      "  'https://cars.example.test/v1/market/valuation?make=VW&model=Golf&year=2017'",
    ]
    t.match(done, firstCall.join('\n'), 'the first call to make with the key')
    await screenshot(page, 'register-5-done')

    const key = /API key is (cm_[A-Za-z0-9_-]{43})/.exec(mail(email).at(-1)!.text)?.[1]
    t.ok(key, 'the key arrives as a second message')
    t.notMatch(await page.content(), key!, 'and is never shown on the page')
    const me = await request(`${base}/v1/account/me`, { headers: { 'x-api-key': key! } })
    t.equal(me.statusCode, 200)
    t.match(
      ((await me.body.json()) as { data: object }).data,
      { email, status: 'active', credits_remaining: SIGNUP_CREDITS },
      'the key works, with the free credits',
    )
  })

  await t.test("registration: the rate limit shows the API's message", async (t) => {
    const email = 'busy@example.pl'
    await page.goto(`${base}/register`)
    await page.getByLabel('E-mail address').fill(email)
    await page.getByRole('button', { name: 'Send me a code' }).click()
    await page.getByLabel('Code from the e-mail').waitFor()
    const resend = page.getByRole('button', { name: 'Send a new code' })
    for (let sent = 1; sent < CODES_PER_EMAIL; sent++) {
      await resend.click()
      await page.locator('#notice').getByText(`A new code is on its way to ${email}.`).waitFor()
    }
    t.equal(mail(email).length, CODES_PER_EMAIL, 'a code per click')
    await resend.click()
    await page.locator('#error').waitFor()
    t.equal(await page.locator('#error').innerText(), `Too many registration requests for ${email}; try later.`)
    t.ok(await page.locator('#notice').isHidden())
    await screenshot(page, 'register-6-rate-limit')
  })

  await t.test('every page fits a narrow screen: every column of every table in sight, the title first', async (t) => {
    for (const [width, height] of [
      [360, 780],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height })
      for (const path of ['/', '/register', '/docs']) {
        await page.goto(`${base}${path}`)
        const at = `${width} px, ${path}`
        const fits = await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')
        t.equal(fits, true, `${at}: no sideways scrolling`)
        t.same(await page.evaluate(CELLS_OUT_OF_SIGHT), [], `${at}: every table cell within the screen`)
      }
      await page.goto(`${base}/docs`)
      const title = await page.locator('h1').boundingBox()
      t.ok(title !== null && title.y + title.height <= height, `${width} px: the /docs title is on the first screen`)
      const description = page.locator('#get-v1-market-valuation td[data-label="Description"]').first()
      t.ok(await description.isVisible(), `${width} px: the parameters' descriptions show`)
    }
    await screenshot(page, 'docs-narrow')
    await page.goto(`${base}/`)
    await screenshot(page, 'landing-narrow')
    await page.goto(`${base}/register`)
    await screenshot(page, 'register-narrow')
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  await t.test('no console error, failed request or request off this machine', async (t) => {
    t.same(seen.problems, [], 'no page error, failed request or outside request')
    // The browser logs each error answer of the API it was meant to get; nothing else may show.
    t.same(seen.consoleErrors, ['400 /v1/auth/register', '400 /v1/auth/verify', '429 /v1/auth/register'])
  })
}
