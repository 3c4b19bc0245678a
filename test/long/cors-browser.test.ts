import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chromium, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { openLedger } from '../../cli/engines.js'
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../chromium.js'
import { account, build, freshDir, memoryLog, rows, serve, toCsv } from '../support.js'

const MARKET = toCsv([
  ...rows(30, (i) => ({ price: 40_000 + i * 500 })),
  ...rows(12, (i) => ({ model: 'Polo', price: 20_000 + i })),
])
const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'
const CREDITS = 1_000
/** What a valuation costs. */
const PRICE = 8

/** What the page could make of a fetch: the answer as a script of the page sees it, or what stopped it. */
type Fetched =
  | {
      readonly ok: true
      readonly status: number
      readonly body: any
      readonly headers: Readonly<Record<string, string | null>>
    }
  | { readonly ok: false; readonly error: string }

interface Asked {
  readonly url: string
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly cache?: 'no-store'
  /** The headers the page tries to read. */
  readonly read?: readonly string[]
}

/** Run in the page, by the browser's own fetch(). */
async function inPage(asked: Asked): Promise<Fetched> {
  try {
    // Node's own RequestInit knows no cache mode; the browser's does.
    const init = {
      method: asked.method ?? 'GET',
      headers: asked.headers ?? {},
      body: asked.body,
      ...(asked.cache === undefined ? {} : { cache: asked.cache }),
    }
    const response = await fetch(asked.url, init)
    const text = await response.text()
    const headers: Record<string, string | null> = {}
    for (const name of asked.read ?? []) headers[name] = response.headers.get(name)
    return { ok: true, status: response.status, body: text === '' ? null : JSON.parse(text), headers }
  } catch (error) {
    return { ok: false, error: (error as Error).name }
  }
}

const missing = chromiumMissing()
if (missing !== undefined) {
  t.fail(missing)
} else {
  await inBrowser()
}

/** A runtime with an account and a request log, its base and what it logged. */
async function api(t: Test, options: { readonly corsOrigins?: readonly string[] }) {
  const { snapshots } = await build(t, MARKET)
  const ledger = freshDir(t)
  const { log, lines } = memoryLog()
  const served = await serve(t, { snapshots, ledger, rateLimit: 1000, demoQuota: 1, requestLog: log, ...options })
  const { id, key } = await account(ledger, 'browser@example.pl', CREDITS)
  const ledgerState = async () => {
    const opened = await openLedger(ledger)
    try {
      return {
        balance: (await opened.account(id))?.balance,
        entries: (await opened.entries(id, 100)).map((e) => e.type),
      }
    } finally {
      await opened.close()
    }
  }
  return { base: served.base, key, lines, ledgerState }
}

/** A page of another origin: a server of its own on another port of 127.0.0.1. */
async function otherOrigin(t: Test): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url !== '/') {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!doctype html><html><head><title>A client of the API</title></head><body><p>client</p></body></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function inBrowser(): Promise<void> {
  const served = await api(t, {})
  const origin = await otherOrigin(t)

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  t.teardown(() => browser.close())
  const context = await browser.newContext()
  const requests: string[] = []
  const failed: string[] = []
  context.on('request', (r) => requests.push(r.url()))
  context.on('requestfailed', (r) => failed.push(r.url()))
  const page: Page = await context.newPage()
  await page.goto(`${origin}/`)
  const fetched = (asked: Asked) => page.evaluate(inPage, asked)

  let etag: string | null = null
  /** The runtime that refuses the page's origin: the only one whose calls may fail. */
  let refusing = ''
  await t.test('a keyed GET: the page reads the body and the exposed headers', async (t) => {
    t.not(new URL(origin).port, new URL(served.base).port, 'the page and the API are of two origins')
    const answer = await fetched({
      url: `${served.base}${VALUATION}`,
      headers: { 'X-API-Key': served.key },
      read: ['ETag', 'X-Credits-Remaining', 'X-Credits-Used', 'X-Request-Id', 'RateLimit', 'RateLimit-Policy'],
    })
    if (!answer.ok) return t.fail(`the fetch failed: ${answer.error}`)
    t.equal(answer.status, 200)
    t.equal(answer.body.status, 'success')
    t.equal(answer.body.data.sample_size, 30, "the Golfs' figures")
    t.equal(answer.body.data.credits_remaining, CREDITS - PRICE)
    etag = answer.headers.ETag ?? null
    t.match(etag, /^W\/".+"$/, 'ETag')
    t.equal(answer.headers['X-Credits-Remaining'], String(CREDITS - PRICE), 'X-Credits-Remaining')
    t.equal(answer.headers['X-Credits-Used'], String(PRICE), 'X-Credits-Used')
    t.match(answer.headers['X-Request-Id'], /^.+$/, 'X-Request-Id')
    t.match(answer.headers.RateLimit, /^"ip";r=[0-9]+;t=[0-9]+$/, 'RateLimit')
    t.match(answer.headers['RateLimit-Policy'], /^"ip";q=1000;w=60$/, 'RateLimit-Policy')
    // X-API-Key is no header a page may send unasked: the browser asked first, and the server answered.
    t.ok(
      served.lines().some((l) => l.method === 'OPTIONS' && l.route === '/v1/market/valuation' && l.status === 204),
      'a preflight came first and got 204',
    )
  })

  await t.test('the same with If-None-Match: the page sees 304', async (t) => {
    const answer = await fetched({
      url: `${served.base}${VALUATION}`,
      headers: { 'X-API-Key': served.key, 'If-None-Match': etag ?? '' },
      cache: 'no-store',
      read: ['X-Credits-Used', 'X-Credits-Remaining'],
    })
    if (!answer.ok) return t.fail(`the fetch failed: ${answer.error}`)
    t.equal(answer.status, 304)
    t.equal(answer.headers['X-Credits-Used'], '0', 'free')
    t.equal(answer.headers['X-Credits-Remaining'], String(CREDITS - PRICE))
  })

  await t.test('a batch with an Idempotency-Key, twice: the second is a replay the page can tell', async (t) => {
    const asked: Asked = {
      url: `${served.base}/v1/market/batch`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': served.key, 'Idempotency-Key': 'page-batch-1' },
      body: JSON.stringify({ requests: [{ operation: 'valuation', make: 'VW', model: 'Polo', year: 2017 }] }),
      read: ['Idempotent-Replayed', 'X-Credits-Remaining'],
    }
    const first = await fetched(asked)
    const second = await fetched(asked)
    if (!first.ok || !second.ok) return t.fail(`a fetch failed: ${JSON.stringify([first, second])}`)
    t.same([first.status, second.status], [200, 200])
    t.equal(first.headers['Idempotent-Replayed'], null, 'the first is no replay')
    t.equal(second.headers['Idempotent-Replayed'], 'true', 'the second is')
    t.same(second.body, first.body, 'with the same answer')
    t.equal(first.body.data.results[0].status, 'success')
    t.same(
      [first.headers['X-Credits-Remaining'], second.headers['X-Credits-Remaining']],
      [String(CREDITS - 2 * PRICE), String(CREDITS - 2 * PRICE)],
      'charged once',
    )
    t.ok(
      served.lines().some((l) => l.method === 'OPTIONS' && l.route === '/v1/market/batch' && l.status === 204),
      'a preflight of the POST came first',
    )
  })

  await t.test("errors: the page reads their envelope's code", async (t) => {
    const unknown = await fetched({
      url: `${served.base}/v1/market/valuation?make=VW&model=Zzyzx&year=2017`,
      headers: { 'X-API-Key': served.key },
      read: ['X-Request-Id'],
    })
    if (!unknown.ok) return t.fail(`the fetch failed: ${unknown.error}`)
    t.same([unknown.status, unknown.body.error.code], [404, 'INSUFFICIENT_DATA'], 'an unknown model')
    t.match(unknown.headers['X-Request-Id'], /^.+$/)

    // Keyless and with no header of its own: a simple request, sent without a preflight. Past the browser's cache,
    // which would otherwise revalidate the keyed answer it holds (a free 304) and hand that to the page.
    const demo = await fetched({ url: `${served.base}${VALUATION}`, cache: 'no-store' })
    if (!demo.ok) return t.fail(`the fetch failed: ${demo.error}`)
    t.equal(demo.status, 200, 'the one demo call of the day')
    t.equal(demo.body.data.credits_remaining, undefined, 'a keyless answer')
    const past = await fetched({ url: `${served.base}${VALUATION}`, cache: 'no-store' })
    if (!past.ok) return t.fail(`the fetch failed: ${past.error}`)
    t.same([past.status, past.body.error.code], [429, 'DEMO_LIMIT_REACHED'], 'past the demo quota')
  })

  await t.test('a runtime that lists only another origin: the browser blocks what the server answers', async (t) => {
    const elsewhere = await api(t, { corsOrigins: ['https://elsewhere.example'] })
    refusing = elsewhere.base
    const keyed = await fetched({ url: `${elsewhere.base}${VALUATION}`, headers: { 'X-API-Key': elsewhere.key } })
    t.same(keyed, { ok: false, error: 'TypeError' }, 'a keyed call fails in the page')
    t.ok(
      elsewhere.lines().some((l) => l.method === 'OPTIONS' && l.route === '/v1/market/valuation' && l.status === 204),
      'its preflight reached the server and was answered',
    )
    t.same(
      await elsewhere.ledgerState(),
      { balance: CREDITS, entries: ['grant'] },
      'refused at the preflight, the call itself was never sent: nothing charged',
    )

    const keyless = await fetched({ url: `${elsewhere.base}${VALUATION}` })
    t.same(keyless, { ok: false, error: 'TypeError' }, 'a keyless call fails in the page')
    t.ok(
      elsewhere.lines().some((l) => l.method === 'GET' && l.route === '/v1/market/valuation' && l.status === 200),
      'though the server answered it: the browser keeps the answer from the page',
    )
  })

  await t.test('no request of the browser left 127.0.0.1', async (t) => {
    t.ok(
      requests.some((url) => url.startsWith(`${served.base}/v1/`)),
      "the page's calls of the API were watched",
    )
    t.same(
      requests.filter((url) => new URL(url).hostname !== '127.0.0.1'),
      [],
      'every request to 127.0.0.1',
    )
    t.ok(failed.length > 0, 'the blocked calls show as failed requests')
    t.same(
      failed.filter((url) => new URL(url).origin !== refusing),
      [],
      'no other request failed',
    )
  })
}
