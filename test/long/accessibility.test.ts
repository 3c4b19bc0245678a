import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { chromiumMissing, openBrowser, screenshot } from '../chromium.js'
import { build, freshDir, rows, serve, toCsv } from '../support.js'

/** Every page of the site scanned with axe-core in Chromium, as a person with a phone or a laptop meets it. */

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: readonly { readonly target: readonly string[] }[]
}

/** axe-core's violations of the page as it stands, the serious and critical ones, as lines a failure can show. */
async function serious(page: Page): Promise<string[]> {
  // Evaluated by the browser's debugger protocol, which the pages' Content-Security-Policy does not govern.
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(AXE)
  const violations = (await page.evaluate('window.axe.run(document).then((r) => r.violations)')) as Violation[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

const missing = chromiumMissing()
if (missing !== undefined) t.fail(missing)
else await scan()

async function scan(): Promise<void> {
  const { snapshots } = await build(
    t,
    toCsv([
      ...rows(30, (i) => ({
        price: 40_000 + i * 500,
        mileage_km: 60_000 + i * 3_000,
        imported: i % 2 ? 'true' : 'false',
      })),
      ...rows(12, (i) => ({ year: 2016, price: 35_000 + i * 300 })),
    ]),
  )
  const server = await serve(t, { snapshots, ledger: freshDir(t) })
  const { page } = await openBrowser(t)

  const check = async (t: Test, name: string, path: string, ready?: () => Promise<void>) => {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await page.goto(`${server.base}${path}`)
      await ready?.()
      t.same(await serious(page), [], `${name} at ${width} px: no serious or critical violation`)
    }
  }

  for (const [name, path] of [
    ['the home page', '/'],
    ['the API reference', '/docs'],
    ['registration', '/register'],
    ['the account page', '/account'],
    ['buying credits', '/buy'],
  ] as const)
    await t.test(name, (t) => check(t, name, path))

  await t.test('the explorer, with a view drawn', (t) =>
    check(t, 'the explorer', '/explore', async () => {
      for (const [field, value] of Object.entries({ make: 'VW', model: 'Golf', year: '2017', asking_price: '45000' }))
        await page.locator(`#${field}`).fill(value)
      await page.getByRole('button', { name: 'Show the market' }).click()
      await page.locator('#view[aria-busy="false"]').waitFor({ state: 'attached' })
      await page
        .locator('details.figures')
        .first()
        .evaluate((d) => ((d as unknown as { open: boolean }).open = true))
      await screenshot(page, `explore-scanned-${page.viewportSize()!.width}`)
    }),
  )
}
