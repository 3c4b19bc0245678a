import { join } from 'node:path'
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import type {
  DepreciationData,
  LiquidityData,
  PriceHistoryData,
  RegionalData,
  ValuationData,
  ValuationFactorsData,
} from '../../query/answers.js'
import { OPERATION_CREDITS, SIGNUP_CREDITS } from '../../query/prices.js'
import { chromiumMissing, openBrowser, screenshot } from '../chromium.js'
import { account, build, demoCalls, freshDir, outboxMail, rows, serve, toCsv, type Served } from '../support.js'

/** Four voivodeships of the 16: the map has regions with listings and regions without. */
const REGIONS = ['mazowieckie', 'śląskie', 'pomorskie', 'lubelskie'] as const
/**
 * 2017 Golfs listed over six months in four voivodeships, imported or not, of two
 * gearboxes and two fuels (so every factor has its 10 listings a side), most of them
 * closed, of two versions and two bodies; 2015 and 2016 Golfs for a depreciation curve, which tell no
 * version; too few Polos for any answer.
 */
const DATA = toCsv([
  ...rows(60, (i) => ({
    price: 40_000 + i * 400 + (i % 3 === 0 ? 4_000 : 0),
    mileage_km: 60_000 + i * 3_000,
    voivodeship: REGIONS[i % 4],
    imported: i % 2 === 0 ? 'true' : 'false',
    gearbox: i % 3 === 0 ? 'Automatyczna' : 'Manualna',
    fuel_type: i % 4 < 2 ? 'Benzyna' : 'Diesel',
    first_seen: `2026-0${4 + (i % 6)}-0${1 + (i % 5)}`,
    last_seen: '2026-09-20',
    active: i % 10 === 0 ? 'true' : 'false',
    version: i % 3 === 0 ? '2.0 TSI GTI' : '1.6 TDI Highline',
    body_type: i % 3 === 1 ? 'Kombi' : 'Kompakt',
  })),
  ...rows(12, (i) => ({ year: 2015, price: 30_000 + i * 300 })),
  ...rows(12, (i) => ({ year: 2016, price: 35_000 + i * 300 })),
  ...rows(4, () => ({ model: 'Polo' })),
])

/** The form as a visitor fills it, and the same request as the API's query of each part. */
const FORM = { make: 'VW', model: 'Golf', year: '2017', mileage: '100000', asking_price: '47000' }
const GOLF = 'make=VW&model=Golf&year=2017'
const QUERIES = {
  valuation: `/v1/market/valuation?${GOLF}&mileage=100000&asking_price=47000`,
  'price-history': `/v1/market/price-history?${GOLF}&months=24`,
  depreciation: '/v1/market/depreciation?make=VW&model=Golf',
  regional: `/v1/market/regional?${GOLF}`,
  liquidity: `/v1/market/liquidity?${GOLF}`,
  'valuation-factors': `/v1/market/valuation-factors?${GOLF}`,
} as const
type Part = keyof typeof QUERIES
const PARTS = Object.keys(QUERIES) as Part[]
const PER_VIEW = PARTS.reduce((sum, part) => sum + OPERATION_CREDITS[part], 0)
const panel = (part: Part) => `#get-v1-market-${part}`

/** Amounts and counts as an independent formatter writes them: 52,900 PLN. */
const count = (n: number) => n.toLocaleString('en-US')
const pln = (n: number) => `${count(n)} PLN`

/** What the page shows of one chart, read in the browser (as a string: the test's types know no DOM). */
interface Shown {
  readonly hidden: boolean
  readonly svg: boolean
  readonly title: string
  readonly takeaway: string
  readonly words: string
  /** Whether the figures in words are folded away (a disclosure), not shown as body text. */
  readonly wordsFolded: boolean
  /** The marks of what the visitor asked about (the production year on the depreciation curve). */
  readonly asked: number
  /** Points of a line (circles with a tooltip), tiles of the map and bars (groups with a tooltip). */
  readonly points: number
  readonly groups: number
  readonly filled: number
  readonly labelledBy: string
}
const SHOWN = `(selector) => {
  const figure = document.querySelector(selector)
  const svg = figure.querySelector('.chart svg')
  const ids = (svg?.getAttribute('aria-labelledby') ?? '').split(' ')
  return {
    hidden: figure.hidden,
    svg: svg !== null,
    title: svg?.querySelector('title')?.textContent ?? '',
    takeaway: figure.querySelector('.takeaway').textContent,
    words: figure.querySelector('.words').textContent,
    wordsFolded: !figure.querySelector('details.figures').open,
    asked: svg === null ? 0 : svg.querySelectorAll('.asked').length,
    points: svg === null ? 0 : svg.querySelectorAll('circle > title').length,
    groups: svg === null ? 0 : svg.querySelectorAll('g > title').length,
    filled: svg === null ? 0 : [...svg.querySelectorAll('g > title')].map((title) => title.parentNode.querySelector(':scope > rect')).filter((r) => r !== null).filter((r) => r.getAttribute('stroke-dasharray') === null).length,
    labelledBy: ids.map((id) => document.getElementById(id)?.localName ?? '?').join(' '),
  }
}`

const missing = chromiumMissing()
if (missing !== undefined) t.fail(missing)
else await explorer()

async function explorer(): Promise<void> {
  const { snapshots } = await build(t, DATA)
  const ledger = freshDir(t)
  const server = await serve(t, { snapshots, ledger })
  const grant = async (on = ledger) => (await account(on, `buyer${++accounts}@example.pl`, 1_000)).key
  let accounts = 0
  const outbox = join(ledger, 'outbox')
  const { context, page, seen } = await openBrowser(t)

  await t.test('the form suggests from the catalogue, keyless', async (t) => {
    await page.goto(`${server.base}/explore`)
    await page.locator('#makes option[value="Volkswagen"]').waitFor({ state: 'attached' })
    await page.getByLabel('Make').fill('VW')
    await page.locator('#models option').first().waitFor({ state: 'attached' })
    t.same(await options(page, 'models'), ['Golf', 'Polo'], "the make's models, from GET /v1/catalog/models")
    await page.getByLabel('Model').fill('Golf')
    t.same(await options(page, 'years'), ['2017', '2016', '2015'], "the model's years, newest first")
    await page.waitForLoadState('networkidle')
    t.equal(
      seen.requests.filter((r) => new URL(r.url).pathname === '/v1/catalog/models').length,
      1,
      "the make's models asked once: leaving its field asks nothing again (nor empties the years)",
    )
    t.equal(demoCalls(t, ledger), 0, 'the catalogue is not counted against the demo quota')
  })

  await t.test(
    'the versions and bodies of the chosen model and year are offered once its listings tell them',
    async (t) => {
      await page.goto(`${server.base}/explore`)
      const year = page.getByLabel('Production year', { exact: true })
      t.ok(await page.locator('#version-field').isHidden(), 'no version field before a model and year')
      await fill(page, { make: 'VW', model: 'Golf' })
      await year.fill('2017')
      await year.blur()
      await page.locator('#version-field').waitFor({ state: 'visible' })
      t.same(await options(page, 'versions'), ['1.6 TDI Highline', '2.0 TSI GTI'], 'from GET /v1/catalog/versions')
      const bodies = `[...document.querySelectorAll('#body_type option')].map((o) => o.value)`
      t.same(await page.evaluate(bodies), ['', 'Kompakt', 'Kombi'], 'and its body types, the most listed first')
      await year.fill('2015')
      await year.blur()
      await page.locator('#version-field').waitFor({ state: 'hidden' })
      t.ok(await page.locator('#body-field').isHidden(), 'a year whose listings tell neither offers neither')
    },
  )

  await t.test('keyless: five demo calls, then the way to register in the last part', async (t) => {
    await page.goto(`${server.base}/explore`)
    // By keyboard: each field in turn, the form sent with Enter.
    await page.getByLabel('Make').focus()
    for (const value of [FORM.make, FORM.model, FORM.year]) {
      await page.keyboard.type(value)
      await page.keyboard.press('Tab')
    }
    await page.getByLabel(/^Mileage/).fill(FORM.mileage)
    await page.getByLabel(/^Asking price/).fill(FORM.asking_price)
    await page.getByLabel(/^Asking price/).press('Enter')
    await finished(page)
    const answers = await known(server, await grant())
    for (const part of PARTS.slice(0, 5)) await checkPart(t, page, part, answers)
    const v = answers.valuation
    const card = page.locator('#headline')
    t.equal(await card.locator('h2').innerText(), 'Volkswagen Golf 2017', 'the headline: the car asked about')
    t.equal(await card.locator('.range').innerText(), `${count(v.valuation.p25)}–${count(v.valuation.p75)} PLN`)
    const sentence = await card.locator('.sentence').innerText()
    t.match(sentence, `the median, ${pln(v.valuation.median)}, is known to within ±`, 'how sure the median is')
    t.match(sentence, `An asking price of ${pln(v.asking_price!.price)} is `, 'the verdict on the asking price')
    const sixth = page.locator(`${panel('valuation-factors')} .state`)
    t.match(await sixth.innerText(), /Not asked for: the free demo/, 'the sixth part: not asked for')
    t.equal(await page.locator('#view .message.error').count(), 0, 'and no part shown as refused')
    t.equal(
      seen.requests.filter((r) => new URL(r.url).pathname === '/v1/market/valuation-factors').length,
      0,
      'no call made that the demo would refuse',
    )
    const note = page.locator('#demo')
    t.match(await note.innerText(), /free demo answers 5 market calls a day .*1 part of this view was not asked for/)
    t.match(await note.locator('a').getAttribute('href'), /\/register$/, 'one offer to register')
    t.equal(await page.locator('#account').innerText(), 'Demo calls left today: 0 of 5.', 'what is left of the demo')
    await widths(t, page, 'explore-keyless')

    // The demo spent already (here, by the view above; its answers, which the browser would revalidate for free,
    // forgotten): one note, no part asked for after the first refusal, no refusal in red.
    await (await context.newCDPSession(page)).send('Network.clearBrowserCache')
    await page.reload()
    await fill(page, FORM)
    await page.getByRole('button', { name: 'Show the market' }).click()
    await finished(page)
    t.equal(await page.locator('#view .state.unloaded').count(), PARTS.length, 'every part: not asked for')
    t.equal(await page.locator('#view .message.error').count(), 0, 'no refusal in red')
    t.match(await note.innerText(), `${PARTS.length} parts of this view were not asked for`)
    await screenshot(page, 'explore-demo-spent-1280')
  })

  let key = ''
  await t.test('with a key from registration: the credits before and after, and a part they do not pay', async (t) => {
    const email = 'kasia@example.pl'
    await server.post('/v1/auth/register', { email })
    const code = /code is (\d{6})/.exec(outboxMail(outbox, email).at(-1)!.text)![1]!
    await server.post('/v1/auth/verify', { email, code })
    key = /API key is (cm_[A-Za-z0-9_-]{43})/.exec(outboxMail(outbox, email).at(-1)!.text)![1]!

    // The keyless view's answers are in the browser's cache, and revalidating them is free (see below): a fresh start.
    await (await context.newCDPSession(page)).send('Network.clearBrowserCache')
    // From the register page's last step, which links the explorer ready for the key.
    await page.goto(`${server.base}/register`)
    t.equal(await page.locator('#to-explorer').getAttribute('href'), '/explore#key', 'registration leads here')
    await page.goto(`${server.base}/explore#key`)
    t.ok(await page.evaluate("document.getElementById('key-box').open"), 'the key box open')
    t.equal(await page.evaluate('document.activeElement.id'), 'key', 'its field ready for the key')
    await fill(page, FORM)
    await useKey(page, key)
    await page.getByRole('button', { name: 'Show the market' }).click()
    await finished(page)
    const answers = await known(server, await grant())
    for (const part of PARTS.slice(0, 5)) await checkPart(t, page, part, answers)
    const paid = PER_VIEW - OPERATION_CREDITS['valuation-factors']
    t.ok(
      SIGNUP_CREDITS >= paid && SIGNUP_CREDITS - paid < OPERATION_CREDITS['valuation-factors'],
      'the data: the free credits pay all but the last part',
    )
    const refused = page.locator(`${panel('valuation-factors')} .state`)
    const unpaid = await server.get(QUERIES['valuation-factors'], { key })
    t.equal(unpaid.body.error?.code, 'INSUFFICIENT_CREDITS', unpaid.text)
    t.equal(
      await refused.innerText().then((s) => s.replace(/ Top up your credits$/, '')),
      unpaid.body.error?.message,
      "the last part: the API's own INSUFFICIENT_CREDITS message",
    )
    t.match(await refused.locator('a').getAttribute('href'), /\/buy$/, 'with a link to top up')
    t.equal(
      await page.locator('#account').innerText(),
      `Credits: ${SIGNUP_CREDITS} before this view, ${SIGNUP_CREDITS - paid} after it (${paid} used).`,
    )
    const me = await server.get('/v1/account/me', { key })
    t.equal(
      (me.body.data as { credits_remaining: number }).credits_remaining,
      SIGNUP_CREDITS - paid,
      'as the ledger says',
    )
    t.equal(await page.locator(`${panel('price-history')} .credits`).innerText(), '10 credits', "each part's price")
    await screenshot(page, 'explore-key-1280')

    await page.getByRole('button', { name: 'Show the market' }).click()
    await finished(page)
    for (const part of PARTS.slice(0, 5)) await checkPart(t, page, part, answers)
    t.equal(
      await page.locator('#account').innerText(),
      `Credits: ${SIGNUP_CREDITS - paid} before this view, ${SIGNUP_CREDITS - paid} after it (0 used).`,
      'the same view again is free: the browser revalidates what it has (304)',
    )

    await page.reload()
    t.equal(await page.getByLabel('API key', { exact: true }).inputValue(), key, 'the key outlives a reload of the tab')
    t.equal(await page.evaluate('localStorage.length'), 0, 'and is kept nowhere for longer')
    const keyed = seen.requests.filter((r) => r.key)
    t.ok(keyed.length >= 7, 'the key was sent')
    t.same(
      keyed.filter((r) => !r.url.startsWith(`${server.base}/v1/`)),
      [],
      'only ever to the API',
    )
    await page.getByRole('button', { name: 'Forget the key' }).click()
    t.equal(await page.evaluate("sessionStorage.getItem('carmarket.key')"), null, 'forgotten on request')
  })

  await t.test('a model without enough listings: each part says so in words', async (t) => {
    const more = await grant()
    await page.goto(`${server.base}/explore`)
    await fill(page, { make: 'VW', model: 'Polo', year: '2017' })
    await useKey(page, more)
    await page.getByRole('button', { name: 'Show the market' }).click()
    await finished(page)
    for (const part of PARTS) {
      const query = QUERIES[part].replace('model=Golf', 'model=Polo').replace(/&mileage=\d+&asking_price=\d+/, '')
      const api = await server.get(query, { key: more })
      t.equal(api.body.error?.code, 'INSUFFICIENT_DATA', `${part}: the API has too little`)
      t.equal(await page.locator(`${panel(part)} .state`).innerText(), api.body.error!.message, `${part}: its message`)
      t.equal(await page.locator(`${panel(part)} figure:not([hidden])`).count(), 0, `${part}: no chart`)
    }
    t.equal(await page.locator('#account').innerText(), 'Credits: 1,000 before this view, 1,000 after it (0 used).')
    await screenshot(page, 'explore-insufficient-data-1280')
  })

  await t.test('a wrong parameter is shown at the form, a wrong key before anything is called', async (t) => {
    await page.goto(`${server.base}/explore`)
    await fill(page, { ...FORM, year: '1800' })
    await page.getByRole('button', { name: 'Show the market' }).click()
    await finished(page)
    const api = await server.get(`/v1/market/valuation?${GOLF.replace('2017', '1800')}`, { key })
    t.equal(await page.locator('#error').innerText(), api.body.error!.message, "the API's INVALID_PARAMETER message")
    t.equal(
      await page.getByLabel('Production year', { exact: true }).getAttribute('aria-invalid'),
      'true',
      'on the field',
    )
    t.ok(await page.locator('#view').isHidden(), 'and no parts')

    await fill(page, { ...FORM, make: 'Zzzz' })
    const from = seen.requests.length
    await page.getByRole('button', { name: 'Show the market' }).click()
    await page.locator('#error').waitFor()
    await page.locator('#view[aria-busy="false"]').waitFor({ state: 'attached' })
    const unknown = await server.get(`/v1/market/valuation?${GOLF.replace('VW', 'Zzzz')}`, { key })
    t.equal(await page.locator('#error').innerText(), unknown.body.error!.message, 'a make no listing has: at the form')
    t.same(
      seen.requests
        .slice(from)
        .map((r) => new URL(r.url).pathname)
        .filter((p) => p.startsWith('/v1/market/')),
      ['/v1/market/valuation'],
      'and the other parts are not asked',
    )

    await useKey(page, 'cm_not-a-key')
    await page.getByLabel('Production year', { exact: true }).fill('2017')
    const before = seen.requests.length
    await page.getByRole('button', { name: 'Show the market' }).click()
    await page.locator('#error').waitFor()
    t.equal(await page.getByLabel('API key', { exact: true }).getAttribute('aria-invalid'), 'true', 'the key is marked')
    t.same(
      seen.requests
        .slice(before)
        .map((r) => new URL(r.url).pathname)
        .filter((p) => !p.startsWith('/v1/catalog/')),
      ['/v1/account/me'],
      'and no market call was made with it',
    )
  })

  await t.test(
    'under a base path, with cross-origin calls refused: the page and its calls stay under the path',
    async (t) => {
      const underLedger = freshDir(t)
      const under = await serve(t, {
        snapshots,
        ledger: underLedger,
        publicUrl: 'https://cars.example.test/api',
        corsOrigins: 'none',
      })
      const from = seen.requests.length
      await page.goto(`${under.base}/api/explore`)
      await fill(page, FORM)
      await page.getByRole('button', { name: 'Show the market' }).click()
      await finished(page)
      const answers = await known(under, await grant(underLedger))
      for (const part of PARTS.slice(0, 5)) await checkPart(t, page, part, answers)
      const paths = seen.requests.slice(from).map((r) => new URL(r.url).pathname)
      t.same(
        paths.filter((path) => !path.startsWith('/api/')),
        [],
        'every request of the page (its script, modules, catalogue and market calls) under /api',
      )
      t.ok(paths.includes('/api/v1/market/valuation'), 'the market calls too')
    },
  )

  t.same(seen.problems, [], 'no request left 127.0.0.1, none failed, no script error')
}

/** The part's chart as the page shows it, against the API's own answer to the same request. */
async function checkPart(t: Test, page: Page, part: Part, answers: Answers): Promise<void> {
  const shown = async (chart: string) =>
    (await page.evaluate(`(${SHOWN})(${JSON.stringify(`${panel(part)} figure[data-chart="${chart}"]`)})`)) as Shown
  const figure = await shown(part)
  t.notOk(figure.hidden, `${part}: shown`)
  t.ok(figure.svg, `${part}: drawn`)
  t.equal(figure.labelledBy, 'title desc', `${part}: the image is named by its title and its figures in words`)
  t.ok(figure.takeaway.length > 20, `${part}: a one-line takeaway above the chart (${figure.takeaway})`)
  t.ok(figure.wordsFolded, `${part}: every figure in words, folded away under the chart`)
  const words = figure.words
  const has = (text: string, what: string) => t.ok(words.includes(text), `${part}: ${what} (${text})`)
  switch (part) {
    case 'valuation': {
      const v = answers.valuation
      has(pln(v.valuation.p25), 'p25')
      has(pln(v.valuation.median), 'median')
      has(pln(v.valuation.p75), 'p75')
      has(`${pln(v.confidence.median_low)} to ${pln(v.confidence.median_high)}`, "the median's interval")
      has(`percentile ${v.asking_price!.percentile}`, "the asking price's place")
      has(
        v.asking_price!.verdict === 'fair' ? 'a fair price' : v.asking_price!.verdict.replace('_', ' the '),
        'the verdict',
      )
      const mileage = await shown('mileage')
      t.ok(mileage.svg, 'the mileage effect: drawn')
      t.ok(mileage.words.includes(`${v.mileage_effect!.pct_per_10000_km} %`), 'the change per 10,000 km')
      t.ok(mileage.words.includes(pln(v.adjusted!.median)), 'the value at the mileage')
      t.match(mileage.title, `${v.mileage_effect!.pct_per_10000_km} % per 10,000 km`)
      break
    }
    case 'price-history': {
      const trend = answers['price-history'].trend
      t.equal(figure.points, trend.length, 'a point per month with listings')
      for (const p of trend) has(`${p.month} ${pln(p.avg_price)} from ${count(p.sample_size)} listings`, p.month)
      break
    }
    case 'depreciation': {
      const d = answers.depreciation
      t.equal(figure.points, d.curve.length, 'a point per production year')
      t.equal(d.curve.length, 3, 'the data: three years')
      for (const p of d.curve) has(`${p.year} ${pln(p.median)}`, String(p.year))
      has(`${Math.abs(d.annual_change_pct!)} %`, 'the annual change')
      t.equal(figure.asked, 1, 'the year asked about, marked on the curve')
      const asked = d.curve.find((p) => p.year === Number(FORM.year))!
      t.match(figure.takeaway, `one from ${FORM.year} asks ${pln(asked.median)}`, 'and in the takeaway')
      break
    }
    case 'regional': {
      const r = answers.regional
      t.equal(figure.groups, 16, 'a tile per voivodeship')
      t.equal(figure.filled, r.regions.length, 'shaded where there are listings')
      has(pln(r.national_average), 'the national average')
      const table = (await page.evaluate(
        `[...document.querySelectorAll('${panel(part)} .regions tbody tr')].map((row) => [...row.cells].map((cell) => cell.textContent))`,
      )) as string[][]
      const sign = (pct: number) => `${pct > 0 ? '+' : pct < 0 ? '-' : ''}${Math.abs(pct).toFixed(1)} %`
      t.same(
        [...table].sort(),
        r.regions.map((x) => [x.region, count(x.avg_price), sign(x.vs_national_pct), count(x.sample_size)]).sort(),
        'the table below: every region with listings, as the API answers',
      )
      break
    }
    case 'liquidity': {
      const l = answers.liquidity
      has(`${l.estimated_days_on_market} days`, 'the estimate')
      has(`${l.observed_listing_span} days`, 'the span seen')
      has(`${count(l.sample_size)} closed listings`, 'the closed listings')
      has(`${count(l.active_listings)} are listed now`, 'the active ones')
      t.equal(figure.groups, 2, 'two bars')
      break
    }
    case 'valuation-factors': {
      const f = answers['valuation-factors']
      t.equal(figure.groups, f.factors.length, 'a bar per factor')
      break
    }
  }
}

interface Answers {
  readonly valuation: ValuationData
  readonly 'price-history': PriceHistoryData
  readonly depreciation: DepreciationData
  readonly regional: RegionalData
  readonly liquidity: LiquidityData
  readonly 'valuation-factors': ValuationFactorsData
}

/** The API's answers to the page's requests, bought with an account of the test's own. */
async function known(server: Served, key: string): Promise<Answers> {
  const entries = await Promise.all(
    PARTS.map(async (part) => {
      const answer = await server.get(QUERIES[part], { key })
      if (answer.body.status !== 'success') throw new Error(`${part}: ${answer.text}`)
      return [part, answer.body.data] as const
    }),
  )
  return Object.fromEntries(entries) as unknown as Answers
}

/** The values a datalist suggests. */
function options(page: Page, list: string): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('#${list} option')].map((o) => o.value)`) as Promise<string[]>
}

async function fill(page: Page, values: Readonly<Record<string, string>>): Promise<void> {
  for (const [name, value] of Object.entries(values)) await page.locator(`#${name}`).fill(value)
}

/** Pastes a key as a visitor does: the box opened (unless the tab's stored key opened it), the key typed in. */
async function useKey(page: Page, key: string): Promise<void> {
  if (!(await page.evaluate("document.getElementById('key-box').open"))) await page.getByText('Use an API key').click()
  await page.getByLabel('API key', { exact: true }).fill(key)
  await page.getByLabel('API key', { exact: true }).blur()
}

/**
 * The page at a phone's width (360 and 390 px) and a laptop's, a screenshot of each:
 * nothing runs past the screen, and no text, the charts' included, is drawn below 11 px
 * (the charts are drawn again for each width).
 */
async function widths(t: Test, page: Page, name: string): Promise<void> {
  for (const width of [360, 390, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    // Drawn again for the new width: each chart as wide as its box (within the widths charts are drawn for).
    const fitted = `[...document.querySelectorAll('.chart svg')].every((svg) =>
      Math.abs(svg.width.baseVal.value - Math.min(640, Math.max(280, svg.parentElement.clientWidth))) < 1)`
    for (let tries = 0; tries < 50 && !(await page.evaluate(fitted)); tries++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    await screenshot(page, `${name}-${width}`)
    t.same(await outOfSight(page), [], `at ${width} px nothing but the charts themselves runs past the screen`)
    t.same(await smallText(page), [], `at ${width} px no text of the page or its charts below 11 px`)
  }
  await page.setViewportSize({ width: 1280, height: 900 })
}

/** Run in the page: text shown smaller than 11 px, the charts' as drawn on the screen (their scale applied). */
async function smallText(page: Page): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll('#main *')]
    .filter((e) => e.getClientRects().length > 0 && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== ''))
    .filter((e) => {
      const size = parseFloat(getComputedStyle(e).fontSize)
      const svg = e.closest('svg')
      const scale = svg === null ? 1 : svg.getBoundingClientRect().width / svg.viewBox.baseVal.width
      return size * scale < 10.95
    })
    .map((e) => e.tagName + ': ' + e.textContent.slice(0, 30))`)) as string[]
}

/** Waits for the view to end: the view no longer busy. */
async function finished(page: Page): Promise<void> {
  await page.locator('#view[aria-busy="false"]').waitFor({ state: 'attached' })
}

/**
 * Run in the page: what runs past the screen's right edge, other than inside a chart's
 * own box (which scrolls sideways by design below a chart's smallest width).
 */
async function outOfSight(page: Page): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll('#main *')]
    .filter((e) => e.getClientRects().length > 0 && e.closest('.chart') === null)
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
    .map((e) => e.tagName + (e.id ? '#' + e.id : '') + ': ' + (e.textContent ?? '').slice(0, 40))`)) as string[]
}
