import { chromium, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
import type { DepreciationData, PriceHistoryData, RegionalData, ValuationData } from '../../query/answers.js'
import { OutboxMailer } from '../../runtime/mailer.js'
import { depreciationChart } from '../../charts/depreciation-chart.js'
import { EXPLORER_CHARTS } from '../../charts/explorer.js'
import { historyChart } from '../../charts/history-chart.js'
import { regionalMap } from '../../charts/regional-map.js'
import { valuationChart } from '../../charts/valuation-chart.js'
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../chromium.js'
import { ENGINES } from '../ledger-engines.js'
import {
  account,
  build,
  freshDir,
  header,
  rows,
  serve,
  toCsv,
  type Reply,
  filtersOf,
  NOT_NARROWED,
} from '../support.js'

/** Four voivodeships of the 16, so that the map has regions with listings and regions without. */
const REGIONS = ['mazowieckie', 'śląskie', 'pomorskie', 'lubelskie'] as const
// A 2017 Golf listed over six months in four voivodeships, 2015 and 2016 Golfs for a depreciation curve, too few Polos.
const DATA = toCsv([
  ...rows(36, (i) => ({
    price: 40_000 + i * 500,
    mileage_km: 60_000 + i * 3_000,
    voivodeship: REGIONS[i % 4],
    first_seen: `2026-0${4 + (i % 6)}-0${1 + (i % 5)}`,
    last_seen: '2026-09-20',
  })),
  ...rows(12, (i) => ({ year: 2015, price: 30_000 + i * 300 })),
  ...rows(12, (i) => ({ year: 2016, price: 35_000 + i * 300 })),
  ...rows(4, () => ({ model: 'Polo' })),
])
const GOLF = 'make=VW&model=Golf&year=2017'
/** The price of each chart: its operation's, as the specification states it. */
const PRICE = { valuation: 8, 'price-history': 10, depreciation: 10, regional: 8 } as const
type Chart = keyof typeof PRICE
/** A request each chart answers, with the parameters of its own operation. */
const QUERY: Readonly<Record<Chart, string>> = {
  valuation: `${GOLF}&mileage=100000&asking_price=47000&fuel_type=DIESEL&gearbox=manualna`,
  'price-history': `${GOLF}&months=12`,
  depreciation: 'make=VW&model=Golf',
  regional: GOLF,
}
const SVG_TYPE = 'image/svg+xml; charset=utf-8'

/** The amount as the charts write it, formatted here on its own: 52,900 PLN. */
const pln = (n: number) => `${n.toLocaleString('en-US')} PLN`

function errorCode(reply: Reply): string | undefined {
  return (JSON.parse(reply.text) as { error?: { code: string } }).error?.code
}

/** What a browser's XML parser makes of an SVG document: whether it is one, its text alternative and what it draws. */
interface Parsed {
  readonly error: string | null
  readonly root: string
  readonly role: string | null
  readonly labelledBy: string | null
  readonly title: string
  readonly desc: string
  /** The points of a line (circles with a tooltip). */
  readonly points: number
  /** The tiles of the map (groups with a tooltip), and those of voivodeships with listings (a solid tile). */
  readonly tiles: number
  readonly filledTiles: number
  readonly text: string
  /** What is drawn past the image's edges. */
  readonly outside: readonly string[]
  /** The smallest text drawn, in px. */
  readonly smallest: number
  /** The image's width. */
  readonly width: number
  /** Whether the national average is marked (the map's). */
  readonly national: boolean
}

/** Run in the page: the browser's reading of an SVG document (as a string, the test's own types know no DOM). */
const PARSE = `(source) => {
  const doc = new DOMParser().parseFromString(source, 'image/svg+xml')
  const error = doc.querySelector('parsererror')
  const root = doc.documentElement
  const ids = (root.getAttribute('aria-labelledby') ?? '').split(' ')
  return {
    error: error === null ? null : (error.textContent ?? 'parsererror'),
    root: root.namespaceURI + ' ' + root.localName,
    role: root.getAttribute('role'),
    labelledBy: ids.map((id) => doc.getElementById(id)?.localName ?? '?').join(' '),
    title: root.querySelector(':scope > title')?.textContent ?? '',
    desc: root.querySelector(':scope > desc')?.textContent ?? '',
    points: root.querySelectorAll('circle > title').length,
    tiles: root.querySelectorAll('g > title').length,
    filledTiles: [...root.querySelectorAll('g > title')].map((title) => title.parentNode.querySelector(':scope > rect')).filter((r) => r !== null).filter((r) => r.getAttribute('stroke-dasharray') === null).length,
    text: [...root.querySelectorAll('text')].map((e) => e.textContent).join(' | '),
    outside: drawnOutside(doc),
    smallest: Math.min(...[...root.querySelectorAll('text')].map((e) => Number(e.closest('[font-size]').getAttribute('font-size')))),
    width: Number(root.getAttribute('width')),
    national: root.querySelector('.national') !== null,
  }
  // Laid out in the page: the marks and texts that reach past the image's edges (1 px spared).
  function drawnOutside(doc) {
    const svg = document.importNode(doc.documentElement, true)
    document.body.appendChild(svg)
    const [, , width, height] = svg.getAttribute('viewBox').split(' ').map(Number)
    const out = [...svg.querySelectorAll('text, rect, circle, path, line')]
      .filter((e) => {
        const b = e.getBBox()
        return b.x < -1 || b.y < -1 || b.x + b.width > width + 1 || b.y + b.height > height + 1
      })
      .map((e) => e.localName + ' ' + (e.textContent || e.getAttribute('d') || '').slice(0, 40))
    svg.remove()
    return out
  }
}`

async function parse(page: Page, svg: string): Promise<Parsed> {
  return (await page.evaluate(`(${PARSE})(${JSON.stringify(svg)})`)) as Parsed
}

/** A valid SVG image with a title and a description that name it, everything drawn inside it, every number a number. */
function checkDocument(t: Test, parsed: Parsed, svg: string, what: string): void {
  t.same(
    [parsed.error, parsed.root, parsed.role, parsed.labelledBy],
    [null, 'http://www.w3.org/2000/svg svg', 'img', 'title desc'],
    `${what}: an SVG image, named by its title and description`,
  )
  t.ok(parsed.title.length > 0 && parsed.desc.length > 0, `${what}: a title and a text alternative`)
  t.same(parsed.outside, [], `${what}: drawn within its edges`)
  t.notMatch(svg, /NaN|Infinity|undefined|null/, `${what}: no number missing`)
}

/** Every figure of the JSON answer in the chart's text alternative, and as many marks as the answer has points. */
function checkFigures(t: Test, chart: Chart, data: unknown, parsed: Parsed): void {
  const has = (text: string, what: string) => t.ok(parsed.desc.includes(text), `${chart}: ${what} (${text}) in words`)
  switch (chart) {
    case 'valuation': {
      const v = data as ValuationData
      has(pln(v.valuation.p25), 'p25')
      has(pln(v.valuation.median), 'median')
      has(pln(v.valuation.p75), 'p75')
      has(pln(v.valuation.average), 'average')
      has(pln(v.confidence.median_low), 'interval low')
      has(pln(v.confidence.median_high), 'interval high')
      has(`${v.confidence.level_pct} %`, 'confidence level')
      has(`${v.sample_size} listings`, 'listings')
      has(`${v.mileage_effect!.pct_per_10000_km} %`, 'mileage effect')
      has(pln(v.adjusted!.median), 'adjusted median')
      has(`percentile ${v.asking_price!.percentile}`, 'asking price percentile')
      t.ok(parsed.text.includes(v.valuation.median.toLocaleString('en-US')), 'valuation: the median drawn')
      // What the figures are of, on the image itself: a filtered chart shared alone must say so.
      const drawn = (text: string, what: string) =>
        t.ok(parsed.text.includes(text), `valuation: ${what} drawn (${text})`)
      drawn(`${v.sample_size} listings`, 'the sample size')
      drawn(' · diesel · ', 'the fuel filter, in English')
      drawn('manual gearbox', 'the gearbox filter, in English')
      drawn('70,000–130,000 km', "the mileage filter's window")
      drawn(`median at ${v.adjusted!.mileage.toLocaleString('en-US')} km`, 'the mileage the median is moved to')
      t.ok(
        parsed.text.includes(`asking ${v.asking_price!.price.toLocaleString('en-US')}`),
        'valuation: the asking price drawn',
      )
      break
    }
    case 'price-history': {
      const h = data as PriceHistoryData
      t.ok(h.trend.length >= 6, 'price-history: several months to draw')
      for (const p of h.trend) has(`${p.month} ${pln(p.avg_price)} from ${p.sample_size} listings`, p.month)
      t.equal(parsed.points, h.trend.length, 'price-history: a point per month')
      break
    }
    case 'depreciation': {
      const d = data as DepreciationData
      t.equal(d.curve.length, 3, 'depreciation: three years to draw')
      for (const p of d.curve) has(`${p.year} ${pln(p.median)} from ${p.sample_size} listings`, String(p.year))
      has(`${Math.abs(d.annual_change_pct!)} %`, 'annual change')
      t.equal(parsed.points, d.curve.length, 'depreciation: a point per year')
      break
    }
    case 'regional': {
      const r = data as RegionalData
      t.equal(r.regions.length, REGIONS.length, 'regional: the voivodeships with listings')
      has(pln(r.national_average), 'national average')
      for (const region of r.regions) has(`${region.region} ${pln(region.avg_price)}`, region.region)
      t.same(
        [parsed.tiles, parsed.filledTiles],
        [16, r.regions.length],
        'regional: 16 tiles, those with listings shaded',
      )
      t.ok(parsed.national, 'regional: the national average marked on the scale the tiles are shaded by')
      break
    }
  }
}

const missing = chromiumMissing()
if (missing !== undefined) t.fail(missing)
else {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  const { snapshots } = await build(t, DATA)

  for (const engine of ENGINES)
    t.test(`each chart is its operation's answer drawn, metered like it (${engine.name} ledger)`, async (t) => {
      const ledger = await engine.fresh(t)
      const { key } = await account(ledger, 'charts@example.pl', 1_000)
      const { fetch } = await serve(t, { snapshots, ledger, demoQuota: 2, mailer: new OutboxMailer(freshDir(t)) })
      let balance = 1_000
      for (const chart of Object.keys(PRICE) as Chart[]) {
        const json = await fetch(`/v1/market/${chart}?${QUERY[chart]}`, { key })
        t.equal(json.status, 200, `${chart}: the JSON answer`)
        balance -= PRICE[chart]
        const reply = await fetch(`/v1/chart/${chart}.svg?${QUERY[chart]}`, { key })
        t.equal(reply.status, 200, `${chart}: 200`)
        balance -= PRICE[chart]
        t.same(
          [header(reply, 'content-type'), header(reply, 'x-credits-used'), header(reply, 'x-credits-remaining')],
          [SVG_TYPE, String(PRICE[chart]), String(balance)],
          `${chart}: an SVG image charged its operation's price`,
        )
        t.match(header(reply, 'content-security-policy'), /default-src 'none'/, `${chart}: runs nothing when opened`)
        t.not(header(reply, 'etag'), header(json, 'etag'), `${chart}: an ETag of its own`)
        const parsed = await parse(page, reply.text)
        checkDocument(t, parsed, reply.text, chart)
        checkFigures(t, chart, (JSON.parse(json.text) as { data: unknown }).data, parsed)
        t.equal(parsed.width, 640, `${chart}: GET /v1/chart draws 640 px wide`)
        // The explorer draws the same answer for the width its box has, down to a 320 px screen's.
        for (const width of [288, 390]) {
          const narrow = EXPLORER_CHARTS[chart]!(JSON.parse(json.text).data, { year: 2017, width }).svg!
          const seen = await parse(page, narrow)
          checkDocument(t, seen, narrow, `${chart} at ${width} px`)
          t.same([seen.width, seen.smallest >= 11], [width, true], `${chart} at ${width} px: no text under 11 px`)
        }
      }

      const polo = await fetch('/v1/chart/valuation.svg?make=VW&model=Polo&year=2017', { key })
      t.same(
        [polo.status, header(polo, 'content-type'), errorCode(polo)],
        [404, 'application/json; charset=utf-8', 'INSUFFICIENT_DATA'],
        'a failure is the JSON error envelope',
      )
      for (const [path, what] of [
        ['/v1/chart/depreciation.svg?make=VW&model=Golf&year=2017', 'depreciation takes no year'],
        [`/v1/chart/price-history.svg?${GOLF}&months=25`, 'months past 24'],
        [`/v1/chart/regional.svg?${GOLF}&mileage=100000`, 'a parameter of another operation'],
        ['/v1/chart/liquidity.svg?' + GOLF, 'an operation without a chart'],
      ] as const) {
        const refused = await fetch(path, { key })
        t.same(
          [refused.status, errorCode(refused)],
          what.includes('without') ? [404, 'NOT_FOUND'] : [400, 'INVALID_PARAMETER'],
          what,
        )
      }
      const me = await fetch('/v1/account/me', { key })
      t.equal(
        (JSON.parse(me.text) as { data: { credits_remaining: number } }).data.credits_remaining,
        balance,
        'the failures cost nothing',
      )
    })

  t.test('revalidation, retries and HEAD, as for the JSON answers', async (t) => {
    const ledger = freshDir(t)
    const { fetch, head: headOf } = await serve(t, { snapshots, ledger, demoQuota: 2 })
    const { key } = await account(ledger, 'again@example.pl', 100)
    const path = `/v1/chart/valuation.svg?${QUERY.valuation}`
    const first = await fetch(path, { key, headers: { 'idempotency-key': 'chart-1' } })
    t.equal(header(first, 'x-credits-remaining'), '92', 'charged once')
    const again = await fetch(path, { key, headers: { 'idempotency-key': 'chart-1' } })
    t.same(
      [again.status, again.text, header(again, 'content-type'), header(again, 'idempotent-replayed')],
      [200, first.text, SVG_TYPE, 'true'],
      'a retry with its Idempotency-Key: the same image, replayed',
    )
    const json = await fetch(`/v1/market/valuation?${QUERY.valuation}`, {
      key,
      headers: { 'idempotency-key': 'chart-1' },
    })
    t.same([json.status, errorCode(json)], [422, 'IDEMPOTENCY_KEY_REUSED'], 'the JSON route is another request')
    const kept = await fetch(path, { key, headers: { 'if-none-match': header(first, 'etag')! } })
    t.same([kept.status, kept.text, header(kept, 'x-credits-remaining')], [304, '', '92'], 'revalidated: 304, free')
    const head = await headOf(path, { key })
    t.same(
      [head.status, head.text, header(head, 'content-type'), header(head, 'x-credits-remaining')],
      [200, '', SVG_TYPE, '84'],
      'HEAD: the headers, charged as GET',
    )

    const demo = []
    for (let i = 0; i < 3; i++) demo.push(await fetch(`/v1/chart/regional.svg?${GOLF}`))
    t.same(
      demo.map((r) => [r.status, header(r, 'content-type')]),
      [
        [200, SVG_TYPE],
        [200, SVG_TYPE],
        [429, 'application/json; charset=utf-8'],
      ],
      'keyless: the demo tier, its refusal in JSON',
    )
    t.equal(errorCode(demo[2]!), 'DEMO_LIMIT_REACHED')
    const free = await fetch(`/v1/chart/regional.svg?${GOLF}`, {
      headers: { 'if-none-match': header(demo[0]!, 'etag')! },
    })
    t.equal(free.status, 304, 'a keyless revalidation past the quota is still answered')
  })

  t.test('the charts of odd answers are valid images that say what they lack', async (t) => {
    const vehicle = {
      make: '<VW & "Co">\uFFFF',
      model: `Golf's ${'-'.repeat(80)} Family`,
      year: 2017,
      matched: {
        makes: ['Volkswagen', 'Skoda'],
        models: ['Golf', 'Golf Plus'],
        match_type: 'fuzzy' as const,
        ...NOT_NARROWED,
      },
      currency: 'PLN' as const,
    }
    const history = historyChart({ ...vehicle, months_requested: 6, trend: [] })
    const single = historyChart({
      ...vehicle,
      months_requested: 24,
      trend: [
        { month: '2025-01', avg_price: 41_000, sample_size: 3 },
        { month: '2026-09', avg_price: 40_000, sample_size: 12 },
      ],
    })
    const flat = depreciationChart({
      ...vehicle,
      curve: [{ year: 2017, median: 50_000, sample_size: 10 }],
      annual_change_pct: null,
    })
    const map = regionalMap({ ...vehicle, national_average: 0, total_sample_size: 0, regions: [] })
    const valuation = valuationChart({
      ...vehicle,
      filters: filtersOf(),
      valuation: { average: 50_000, median: 50_000, p25: 50_000, p75: 50_000 },
      sample_size: 10,
      confidence: { median_low: 50_000, median_high: 50_000, level_pct: 97.9 },
      mileage_effect: null,
      adjusted: null,
      asking_price: { price: 10_000_000, percentile: 100, verdict: 'above_market' },
    })
    const drawn = { history, single, flat, map, valuation }
    const parsed = {
      history: await parse(page, history),
      single: await parse(page, single),
      flat: await parse(page, flat),
      map: await parse(page, map),
      valuation: await parse(page, valuation),
    }
    for (const [what, p] of Object.entries(parsed)) {
      checkDocument(t, p, drawn[what as keyof typeof drawn], what)
      t.ok(
        p.title.startsWith(`<VW & "Co">\uFFFD Golf's ---`) && !p.title.includes('Volkswagen'),
        `${what}: names as asked, escaped, a character XML cannot hold replaced`,
      )
    }
    t.match(parsed.history.desc, /no month has listings/, 'no months')
    t.same([parsed.single.points, parsed.flat.points], [2, 1], 'one point per month or year, gaps left out')
    t.match(parsed.flat.desc, /Too few years/, 'no annual change')
    t.same([parsed.map.tiles, parsed.map.filledTiles], [16, 0], 'a map without listings')
    t.match(parsed.valuation.desc, /above the market/, 'an asking price far above the quartiles')
    t.notMatch(parsed.valuation.text, /(^|\| )-\d/, 'no price axis below 0')
    t.match(parsed.valuation.text, /\| 10M \|/, 'millions written short')
  })

  t.test("the explorer page's own charts: the mileage effect, days on market, the factors", async (t) => {
    const ASKED = { year: 2017, width: undefined }
    const vehicle = {
      make: 'VW',
      model: 'Golf',
      year: 2017,
      matched: { makes: ['Volkswagen'], models: ['Golf'], match_type: 'alias' as const, ...NOT_NARROWED },
      currency: 'PLN' as const,
    }
    const valuation = {
      ...vehicle,
      filters: filtersOf(),
      valuation: { average: 50_500, median: 50_000, p25: 45_000, p75: 56_000 },
      sample_size: 400,
      confidence: { median_low: 49_000, median_high: 51_000, level_pct: 95.1 },
      mileage_effect: { pct_per_10000_km: -3.2, sample_size: 380 },
      adjusted: null,
      asking_price: null,
    }
    const withoutMileage = EXPLORER_CHARTS.mileage!(valuation, ASKED)
    const atMileageData = {
      ...valuation,
      filters: { ...valuation.filters, mileage: 40_000 },
      adjusted: { mileage: 40_000, median: 58_100, sample_size: 380 },
    }
    const atMileage = EXPLORER_CHARTS.mileage!(atMileageData, ASKED)
    const noEffect = EXPLORER_CHARTS.mileage!({ ...valuation, mileage_effect: null }, ASKED)
    const liquidityData = {
      ...vehicle,
      estimated_days_on_market: 42,
      observed_listing_span: 29,
      active_listings: 860,
      sample_size: 1_820,
      note: '',
    }
    const liquidity = EXPLORER_CHARTS.liquidity!(liquidityData, ASKED)
    const factor = (label: string, pct: number) => ({
      dimension: 'fuel_type' as const,
      baseline: { label: 'Benzyna', avg_price: 50_000, sample_size: 100 },
      comparison: { label, avg_price: Math.round(50_000 * (1 + pct / 100)), sample_size: 20 },
      price_diff_percent: pct,
    })
    const factorsData = {
      ...vehicle,
      total_sample_size: 300,
      factors: [factor('Benzyna+LPG', -11.7), factor('Hybryda Plug-in', 19.5), factor('x'.repeat(120), 0)],
    }
    const factors = EXPLORER_CHARTS['valuation-factors']!(factorsData, ASKED)
    const drawn = { withoutMileage, atMileage, liquidity, factors }
    for (const [what, chart] of Object.entries(drawn)) {
      const svg = chart.svg!
      const parsed = await parse(page, svg)
      checkDocument(t, parsed, svg, what)
      t.equal(parsed.desc, chart.words, `${what}: the words beside the chart are its text alternative`)
    }
    // Drawn for a 320 px screen's box: within its edges, no text under 11 px.
    for (const [name, data] of [
      ['mileage', atMileageData],
      ['liquidity', liquidityData],
      ['valuation-factors', factorsData],
    ] as const) {
      const svg = EXPLORER_CHARTS[name]!(data, { year: 2017, width: 288 }).svg!
      const seen = await parse(page, svg)
      checkDocument(t, seen, svg, `${name} at 288 px`)
      t.same([seen.width, seen.smallest >= 11], [288, true], `${name} at 288 px: no text under 11 px`)
    }
    t.match(withoutMileage.words, /-3\.2 %, -27\.8 % over 100,000 km/, 'the change compounded over 100,000 km')
    t.match((await parse(page, withoutMileage.svg!)).text, /\+200k km/, 'without a mileage: kilometres more')
    const at = await parse(page, atMileage.svg!)
    t.match(at.text, /40,000 km: 58,100 PLN/, 'with a mileage: the value at it marked')
    t.match(at.text, /\| 0 km \|/, 'the line starts at 0 km, not below')
    t.equal(noEffect.svg, undefined, 'no mileage effect: nothing drawn')
    t.match(noEffect.words, /Too few listings .* known mileage/, 'and words that say why')
    t.match(liquidity.words, /42 days.*29 days.*13 days/, 'days on market: the estimate, the span and the difference')
    const factorsText = (await parse(page, factors.svg!)).text
    t.match(factorsText, /plug-in hybrid against petrol/, 'the factors in English')
    t.notMatch(factorsText, /Benzyna|Hybryda/, "not in the data's Polish terms")
    t.match(factors.takeaway, /largest difference: plug-in hybrid against petrol, \+19\.5 %/, 'a one-line takeaway')
    t.match(liquidity.takeaway, /about 42 days/)
    t.match(
      atMileage.takeaway,
      /Each 10,000 km more takes about 3\.2 % off the price; at 40,000 km the median would be 58,100 PLN/,
    )
    t.equal((await parse(page, factors.svg!)).tiles, 3, 'a bar per factor, with a tooltip')
    t.match(
      factors.words,
      /petrol \+ LPG 44,150 PLN \(20 listings\) against petrol 50,000 PLN \(100 listings\), -11\.7 %/,
    )
  })
}
