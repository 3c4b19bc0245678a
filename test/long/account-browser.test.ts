import t from 'tap'
import { chromiumMissing, openBrowser, screenshot } from '../chromium.js'
import { account, build, freshDir, outboxMail, rows, spawnServe, toCsv } from '../support.js'

t.test(
  '/account in Chromium: sign in with the e-mailed code, the balance and the calls, a new key, sign out',
  async (t) => {
    const missing = chromiumMissing()
    if (missing !== undefined) return t.fail(missing)
    const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ year: 2017, price: 30_000 + i }))))
    const ledger = freshDir(t)
    const outbox = freshDir(t)
    const { key } = await account(ledger, 'page@example.pl', 120)
    const server = await spawnServe(t, [
      '--snapshots',
      snapshots,
      '--ledger',
      ledger,
      '--outbox',
      outbox,
      '--rate-limit',
      '0',
    ])
    const base = `http://127.0.0.1:${server.port}`
    await fetch(`${base}/v1/market/valuation?make=VW&model=Golf&year=2017`, { headers: { 'x-api-key': key } })

    const { page, seen } = await openBrowser(t)
    await page.goto(`${base}/account`)
    await page.waitForSelector('#signin-email:not([hidden])')
    await page.fill('#signin-address', 'page@example.pl')
    await page.click('#signin-email button[type="submit"]')
    await page.waitForSelector('#signin-code:not([hidden])')
    const code = /one-time code is (\d{6})/.exec(outboxMail(outbox, 'page@example.pl').at(-1)!.text)![1]!
    await page.fill('#signin-otp', code)
    await page.click('#signin-code button[type="submit"]')
    await page.waitForSelector('#account-view:not([hidden])')
    t.equal(await page.textContent('#account-balance'), '112', 'the balance after one valuation')
    t.match(await page.textContent('#transactions'), /valuation VW Golf 2017/, 'the call is listed')
    t.notOk((await page.content()).includes(key), 'the key is nowhere on the page')
    await screenshot(page, 'account')

    page.once('dialog', (dialog) => void dialog.accept())
    await page.click('#rotate')
    await page.waitForSelector('#notice:not([hidden])')
    t.match(await page.textContent('#notice'), /new key is on its way to page@example\.pl/)
    const refused = await fetch(`${base}/v1/account/me`, { headers: { 'x-api-key': key } })
    t.equal(refused.status, 401, 'the old key no longer works')

    await page.click('#sign-out')
    await page.waitForSelector('#signin-email:not([hidden])')
    await page.reload()
    await page.waitForSelector('#signin-email:not([hidden])')
    t.ok(await page.isHidden('#account-view'), 'signed out, also after a reload')
    t.same(seen.problems, [], 'nothing went wrong in the browser')
  },
)
