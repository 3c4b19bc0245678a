import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { OPERATION_CREDITS } from '../../query/prices.js'
import { chromiumMissing, openBrowser } from '../chromium.js'
import { codeBlocks, curlUrl, operationSections, unescapeHtml } from '../html.js'
import { INITIALIZE } from '../mcp-support.js'
import { account, build, freshDir, outboxMail, rows, serve, spawnServe, toCsv } from '../support.js'

/** The host callers reach the service at; the service itself lives under PATH on it. */
const ORIGIN = 'https://cars.example.test'
const PATH = '/api'
const PUBLIC = `${ORIGIN}${PATH}`
const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'

/**
 * A market of 1,234 listings of one 2017 Golf: every market operation answers the
 * examples but valuation-factors, which has nothing to compare (404).
 */
const MARKET = toCsv(rows(1234, (i) => ({ price: 30_000 + (i % 97) * 100 })))

interface Fetched {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

function client(base: string) {
  return async (
    path: string,
    method: 'GET' | 'HEAD' | 'POST' | 'OPTIONS' = 'GET',
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<Fetched> => {
    const response = await request(`${base}${path}`, { method, headers, body })
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
  }
}

/** Every href and src of a page, as a browser reads them, less the mailboxes. */
function pageLinks(page: string): string[] {
  return [...page.matchAll(/\s(?:href|src)="([^"]*)"/g)]
    .map((m) => unescapeHtml(m[1]!))
    .filter((u) => !u.startsWith('mailto:'))
}

function section(page: string, id: string): string {
  const start = page.indexOf(`<section id="${id}"`)
  return start < 0 ? '' : page.slice(start, page.indexOf('</section>', start))
}

/** The error code of an answer, if it is the API's error envelope. */
function errorCode(text: string): unknown {
  try {
    return JSON.parse(text).error?.code
  } catch {
    return undefined
  }
}

/** Whether a URL is the service's public URL or under it. */
function underPublic(url: string): boolean {
  return url === PUBLIC || url.startsWith(`${PUBLIC}/`)
}

/** The absolute URLs of a text, less the punctuation a sentence puts after one. */
function urlsOf(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s)`'"<>]+/g)].map((m) => m[0].replace(/[.,;:]+$/, ''))
}

// One server under the base path for the tests that only read, or charge accounts of their own.
const { snapshots } = await build(t, MARKET)
const ledger = freshDir(t)
const outbox = freshDir(t)
const idempotent = await account(ledger, 'idempotent@example.pl', 100)
const broke = await account(ledger, 'broke@example.pl', 0)
const reader = await account(ledger, 'reader@example.pl', 100)
const served = await spawnServe(t, [
  ...['--snapshots', snapshots, '--ledger', ledger, '--outbox', outbox],
  ...['--rate-limit', '0', '--demo-quota', '1000', '--public-url', PUBLIC, '--no-request-log'],
])
const base = `http://127.0.0.1:${served.port}`
const fetch = client(base)

/**
 * Every link of a text (of the page at `from`, a path under the base) is on this site
 * under its public URL's path, and resolves on the test's server: 200, and a fragment
 * names an element of its page. The MCP endpoint answers MCP messages, not page requests.
 */
async function resolves(t: Test, links: readonly string[], from: string): Promise<void> {
  for (const link of new Set(links)) {
    const target = new URL(link, `${ORIGIN}${from}`)
    t.ok(underPublic(`${target.origin}${target.pathname}`), `${link} (of ${from}) is under ${PUBLIC}`)
    if (target.pathname === `${PATH}/mcp`) continue
    const fetched = await fetch(target.pathname + target.search)
    t.equal(fetched.status, 200, `${link} (of ${from}) resolves`)
    if (target.hash !== '')
      t.match(fetched.text, `id="${target.hash.slice(1)}"`, `${link} (of ${from}) names an element of its page`)
  }
}

t.test('the start banner names the pages and the first call under the public URL', async (t) => {
  const lines = served.log().split('\n')
  for (const [name, page] of [
    ['home', '/'],
    ['docs', '/docs'],
    ['register', '/register'],
  ] as const) {
    const line = lines.find((l) => l.trimStart().startsWith(`${name} `))
    t.equal(line?.trim().split(/\s+/)[1], `${PUBLIC}${page}`, `the ${name} line`)
    t.equal((await fetch(`${PATH}${page}`)).status, 200, `${PATH}${page} is there`)
  }
  const curl = lines.find((l) => l.includes('curl -H')) ?? ''
  const url = /"(https?:\/\/[^"]+)"/.exec(curl)?.[1] ?? ''
  t.equal(url, `${PUBLIC}${VALUATION}`, 'the curl line asks the public URL')
  const called = await fetch(new URL(url).pathname + new URL(url).search, 'GET', { 'x-api-key': reader.key })
  t.equal(called.status, 200, 'and the call it shows answers')
})

t.test('every route answers under the base path and at the root, the same', async (t) => {
  const assets = pageLinks((await fetch(`${PATH}/register`)).text)
    .filter((u) => u.startsWith(`${PATH}/assets/`))
    .map((u) => u.slice(PATH.length))
  t.same(
    assets.map((a) => a.replace(/\.[^.]+\.(css|js)$/, '.$1')).sort(),
    ['/assets/register.js', '/assets/site.css'],
    'the stylesheet and the script are named under the base path',
  )
  // The catalogue answers carry no validator, at either address; every other read has one.
  const reads: [string, RegExp, boolean][] = [
    [VALUATION, /^application\/json/, true],
    ['/v1/market/price-history?make=VW&model=Golf&year=2017', /^application\/json/, true],
    ['/v1/catalog/makes', /^application\/json/, false],
    ['/v1/catalog/models?make=VW', /^application\/json/, false],
    ['/v1/openapi.json', /^application\/json/, true],
    ['/', /^text\/html/, true],
    ['/docs', /^text\/html/, true],
    ['/register', /^text\/html/, true],
    ['/llms.txt', /^text\/plain/, true],
    ['/.well-known/ai-plugin.json', /^application\/json/, true],
    ['/robots.txt', /^text\/plain/, true],
    ['/logo.svg', /^image\/svg\+xml/, true],
    ['/favicon.ico', /^image\/x-icon/, true],
    ...assets.map((a): [string, RegExp, boolean] => [a, /^text\/(css|javascript)/, true]),
  ]
  for (const [path, type, validated] of reads) {
    const under = await fetch(`${PATH}${path}`)
    const root = await fetch(path)
    t.equal(under.status, 200, `${PATH}${path}`)
    t.match(under.headers['content-type'], type, `${PATH}${path}: its type`)
    t.equal(root.status, 200, `${path} at the root`)
    t.equal(under.text, root.text, `${path}: the same answer under the base and at the root`)
    t.equal(under.headers.etag, root.headers.etag, `${path}: the same ETag`)
    if (!validated) continue
    t.type(under.headers.etag, 'string', `${path}: an ETag`)
    const again = await fetch(path, 'GET', { 'if-none-match': String(under.headers.etag) })
    t.equal(again.status, 304, `${path}: the ETag given under the base validates at the root`)
    const back = await fetch(`${PATH}${path}`, 'GET', { 'if-none-match': String(root.headers.etag) })
    t.equal(back.status, 304, `${path}: and the root's under the base`)
  }
  for (const home of [PATH, `${PATH}/`]) {
    const page = await fetch(home)
    t.same([page.status, page.text], [200, (await fetch('/')).text], `${home} is the home page`)
  }
  const me = await fetch(`${PATH}/v1/account/me`, 'GET', { 'x-api-key': reader.key })
  t.equal(me.status, 200, `${PATH}/v1/account/me`)
  t.equal(JSON.parse(me.text).data.email, 'reader@example.pl')
  t.equal((await fetch(`${PATH}/v1/account/me`)).status, 401, 'and it still needs a key')

  const batch = JSON.stringify({ requests: [{ operation: 'valuation', make: 'VW', model: 'Golf', year: 2017 }] })
  const json = { 'content-type': 'application/json' }
  const batched = await fetch(`${PATH}/v1/market/batch`, 'POST', json, batch)
  t.equal(batched.status, 200, `POST ${PATH}/v1/market/batch`)
  t.same(
    JSON.parse(batched.text),
    JSON.parse((await fetch('/v1/market/batch', 'POST', json, batch)).text),
    'the same batch answer at the root',
  )
  const registered = await fetch(
    `${PATH}/v1/auth/register`,
    'POST',
    json,
    JSON.stringify({ email: 'route@example.pl' }),
  )
  t.equal(registered.status, 200, `POST ${PATH}/v1/auth/register`)
  t.equal(JSON.parse(registered.text).data.email, 'route@example.pl')
  t.equal(outboxMail(outbox, 'route@example.pl').length, 1, 'a code is sent')

  const refused = await fetch(`${PATH}/`, 'POST')
  t.same([refused.status, refused.headers.allow], [405, 'GET, HEAD'], `POST ${PATH}/: the page's methods`)
  const preflight = await fetch(`${PATH}${VALUATION}`, 'OPTIONS', {
    origin: 'https://app.example.org',
    'access-control-request-method': 'GET',
  })
  t.equal(preflight.status, 204, `a CORS preflight of ${PATH}/v1/...`)
  t.equal(preflight.headers['access-control-allow-origin'], '*')

  for (const path of [
    '/apiv1/market/valuation?make=VW&model=Golf&year=2017',
    '/apiv1/catalog/makes',
    '/api2/docs',
    '/api2/v1/catalog/makes',
    '/apidocs',
    '/api2/',
  ]) {
    const got = await fetch(path)
    t.equal(got.status, 404, `${path} is not under ${PATH}`)
    t.equal(errorCode(got.text), 'NOT_FOUND', `${path}: NOT_FOUND`)
  }
})

t.test(`the MCP endpoint answers at ${PATH}/mcp`, async (t) => {
  const from = async (origin: string) => {
    const response = await request(`${base}${PATH}/mcp`, {
      method: 'POST',
      body: INITIALIZE,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin },
    })
    await response.body.dump()
    return response.statusCode
  }
  t.equal(await from(ORIGIN), 200, "an initialize from the site's own pages")
  t.equal(await from('https://elsewhere.example.test'), 403, 'and from no other origin')
  const mcp = new Client({ name: 'carmarket-test', version: '1.0.0' })
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}${PATH}/mcp`)))
  t.teardown(() => mcp.close())
  const names = (await mcp.listTools()).tools.map((tool) => tool.name)
  t.ok(names.includes('list_makes'), 'the tools are offered')
  const makes = await mcp.callTool({ name: 'list_makes', arguments: {} })
  t.notOk(makes.isError, 'the catalogue tool answers')
  t.same(
    makes.structuredContent,
    JSON.parse((await fetch(`${PATH}/v1/catalog/makes`)).text).data,
    'what the catalogue route answers',
  )
})

t.test('an Idempotency-Key names one call under the base path and at the root', async (t) => {
  const price = OPERATION_CREDITS.valuation
  const balance = async () =>
    JSON.parse((await fetch('/v1/account/me', 'GET', { 'x-api-key': idempotent.key })).text).data.credits_remaining
  t.equal(await balance(), 100)
  const pairs: [string, string, string][] = [
    ['base-then-root', `${PATH}${VALUATION}`, VALUATION],
    ['root-then-base', VALUATION, `${PATH}${VALUATION}`],
  ]
  let charged = 0
  for (const [name, first, retry] of pairs) {
    const headers = { 'x-api-key': idempotent.key, 'idempotency-key': `key-${name}` }
    const original = await fetch(first, 'GET', headers)
    t.equal(original.status, 200, `${name}: the call`)
    t.not(original.headers['idempotent-replayed'], 'true', `${name}: the first call is no replay`)
    charged += price
    t.equal(await balance(), 100 - charged, `${name}: charged once`)
    const replayed = await fetch(retry, 'GET', headers)
    t.equal(replayed.status, 200, `${name}: the retry`)
    t.equal(replayed.headers['idempotent-replayed'], 'true', `${name}: the retry is a replay`)
    t.same(JSON.parse(replayed.text), JSON.parse(original.text), `${name}: of the same answer`)
    t.equal(await balance(), 100 - charged, `${name}: and not charged again`)
  }
})

t.test('the pages: every link is under the base path and resolves; the curl lines name the public URL', async (t) => {
  for (const page of ['/', '/docs', '/register']) {
    const path = `${PATH}${page}`
    const html = (await fetch(path)).text
    const links = pageLinks(html)
    t.ok(links.length > 5, `${path} has links`)
    const astray = links.filter((u) => !(u.startsWith('#') || u.startsWith(`${PATH}/`) || u.startsWith(`${PUBLIC}/`)))
    t.same(astray, [], `${path}: every link within the site starts with ${PATH}/ (or is a fragment of the page)`)
    await resolves(t, links, path)
    // The health checks' curl lines name /livez and /readyz; every other one an API route under /v1/.
    const curls = codeBlocks(html)
      .filter((b) => b.text.startsWith('curl'))
      .map((b) => curlUrl(b.text).href)
    t.same(
      curls.filter((u) => !u.startsWith(`${PUBLIC}/v1/`) && !/\/(livez|readyz)$/.test(u)),
      [],
      `${path}: every curl line asks ${PUBLIC}/v1/...`,
    )
    t.ok(curls.filter((u) => u.startsWith(`${PUBLIC}/v1/`)).length >= (page === '/docs' ? 10 : 1), `${path}: has them`)
    t.same(
      curls.filter((u) => !underPublic(u)),
      [],
      `${path}: none asks outside ${PUBLIC}`,
    )
  }
  const register = (await fetch(`${PATH}/register`)).text
  t.match(register, `id="register" data-api="${PATH}/v1/auth"`, 'the form posts under the base path')
  t.equal((await fetch(`${PATH}/register`)).text, register, 'the page at /register is the same')
  const docs = (await fetch(`${PATH}/docs`)).text
  t.match(docs, `<li>Base URL <code>${PUBLIC}</code></li>`, '/docs names the base URL')
  t.match(section(docs, 'mcp'), `<code>${PUBLIC}/mcp</code>`, 'and the MCP endpoint under it')
})

t.test('llms.txt, the plugin manifest and the OpenAPI document name the public URL with its path', async (t) => {
  const document = JSON.parse((await fetch(`${PATH}/v1/openapi.json`)).text)
  t.same(document.servers, [{ url: PUBLIC }], "the OpenAPI document's server")

  const llms = (await fetch(`${PATH}/llms.txt`)).text
  const urls = urlsOf(llms)
  t.ok(urls.length > 10, 'llms.txt has URLs')
  t.same(
    urls.filter((u) => !underPublic(u)),
    [],
    `every URL of llms.txt is under ${PUBLIC}`,
  )
  for (const path of ['/v1/openapi.json', '/docs', '/mcp', '/register', '/#plans'])
    t.match(llms, `](${PUBLIC}${path})`, `llms.txt links ${path} under the base`)
  await resolves(
    t,
    [...llms.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!),
    `${PATH}/llms.txt`,
  )

  const manifest = JSON.parse((await fetch(`${PATH}/.well-known/ai-plugin.json`)).text)
  t.equal(manifest.api.url, `${PUBLIC}/v1/openapi.json`, "the manifest's API")
  t.ok(String(manifest.logo_url).startsWith(`${PUBLIC}/`), `its logo_url is under ${PUBLIC}/`)
  t.ok(String(manifest.legal_info_url).startsWith(`${PUBLIC}/`), `its legal_info_url is under ${PUBLIC}/`)
  await resolves(t, [manifest.api.url, manifest.logo_url, manifest.legal_info_url], `${PATH}/`)
  const logo = new URL(manifest.logo_url)
  t.match((await fetch(logo.pathname)).headers['content-type'], /^image\/svg\+xml/, 'the logo is the SVG')
  t.equal(
    (await fetch(new URL(manifest.api.url).pathname)).text,
    (await fetch('/v1/openapi.json')).text,
    'api.url is the OpenAPI document',
  )
})

t.test(`the examples on ${PATH}/docs are what ${PUBLIC}/v1/... answers`, async (t) => {
  const document = JSON.parse((await fetch(`${PATH}/v1/openapi.json`)).text) as { paths: Record<string, unknown> }
  const sections = operationSections((await fetch(`${PATH}/docs`)).text)
  const shown = [...Object.keys(document.paths)].filter(
    (p) => (p.startsWith('/v1/market/') || p.startsWith('/v1/catalog/')) && p !== '/v1/market/batch',
  )
  t.ok(shown.length >= 8, 'the market and catalogue operations')
  for (const path of shown) {
    const [request, answer] = codeBlocks(sections.get(`GET ${path}`) ?? '')
    t.same([request?.answer, answer?.answer], [false, true], `${path}: a request, then its answer`)
    const url = curlUrl(request?.text ?? '')
    t.equal(`${url.origin}${url.pathname}`, `${PUBLIC}${path}`, `${path}: asked at the public URL`)
    const got = await fetch(url.pathname + url.search)
    t.same(JSON.parse(answer?.text ?? 'null'), JSON.parse(got.text), `${path}: the answer shown is the server's`)
  }
  const [batchRequest, batchAnswer] = codeBlocks(sections.get('POST /v1/market/batch') ?? '')
  const batchUrl = curlUrl(batchRequest?.text ?? '')
  t.equal(batchUrl.href, `${PUBLIC}/v1/market/batch`, 'the batch is asked at the public URL')
  const body = /-d '([^']+)'/.exec(batchRequest?.text ?? '')?.[1]
  const batched = await fetch(batchUrl.pathname, 'POST', { 'content-type': 'application/json' }, body)
  t.equal(batched.status, 200)
  t.same(JSON.parse(batchAnswer?.text ?? 'null'), JSON.parse(batched.text), "the batch's answer shown is the server's")

  const tryIt = codeBlocks(section((await fetch(`${PATH}/`)).text, 'try'))
  const first = tryIt.find((b) => !b.answer)
  const shownAnswer = tryIt.find((b) => b.answer)
  const url = curlUrl(first?.text ?? '')
  t.equal(url.href, `${PUBLIC}${VALUATION}`, 'the home page asks the public URL')
  t.same(
    JSON.parse(shownAnswer?.text ?? 'null'),
    JSON.parse((await fetch(url.pathname + url.search)).text),
    "the home page's answer is the server's",
  )
})

t.test('the refusals name where to go under the base path', async (t) => {
  const keyed = await fetch(`${PATH}${VALUATION}`, 'GET', { 'x-api-key': broke.key })
  t.equal(keyed.status, 402)
  const error = JSON.parse(keyed.text).error
  t.equal(error.code, 'INSUFFICIENT_CREDITS')
  t.equal(error.top_up_url, `${PUBLIC}/buy`, 'top_up_url')
  await resolves(t, [error.top_up_url], `${PATH}/`)

  // The runtime told its public URL directly, its demo quota of one spent at once.
  const { snapshots } = await build(t, MARKET)
  const runtimeLedger = freshDir(t)
  const poor = await account(runtimeLedger, 'poor@example.pl', 0)
  const runtime = await serve(t, { snapshots, ledger: runtimeLedger, publicUrl: PUBLIC, demoQuota: 1 })
  t.equal((await runtime.get(`${PATH}${VALUATION}`)).status, 200, 'the one demo call')
  for (const path of [`${PATH}${VALUATION}`, VALUATION]) {
    const past = await runtime.get(path)
    t.equal(past.status, 429, `${path}: past the demo quota`)
    t.equal(past.body.error?.code, 'DEMO_LIMIT_REACHED')
    t.equal(past.body.error?.register_url, `${PUBLIC}/register`, `${path}: register_url`)
  }
  const topUp = await runtime.get(`${PATH}${VALUATION}`, { key: poor.key })
  t.same([topUp.status, topUp.body.error?.code], [402, 'INSUFFICIENT_CREDITS'])
  t.equal(topUp.body.error?.top_up_url, `${PUBLIC}/buy`, 'top_up_url')
  t.same(
    (await runtime.get(`${PATH}/v1/openapi.json`)).body,
    (await runtime.get('/v1/openapi.json')).body,
    'the runtime answers the document under the base too',
  )
  t.same(
    JSON.parse((await runtime.get('/v1/openapi.json')).text).servers,
    [{ url: PUBLIC }],
    'and names the base as its server',
  )
  for (const page of ['/register', '/']) {
    const got = await request(`${runtime.base}${PATH}${page}`)
    t.equal(got.statusCode, 200, `${PATH}${page} on the runtime`)
    t.match(await got.body.text(), page === '/' ? 'id="plans"' : 'id="register"')
  }
})

t.test('without a path in the public URL nothing moves under /api', async (t) => {
  const plain = await spawnServe(t, [
    ...['--snapshots', snapshots, '--ledger', freshDir(t), '--outbox', freshDir(t)],
    ...['--rate-limit', '0', '--demo-quota', '0', '--public-url', ORIGIN, '--no-request-log'],
  ])
  const get = client(`http://127.0.0.1:${plain.port}`)
  t.match(plain.log(), `  home      ${ORIGIN}/\n`, 'the banner names the root')
  const keyless = JSON.parse((await get(VALUATION)).text)
  t.equal(keyless.error?.register_url, `${ORIGIN}/register`, 'register_url at the root')
  t.same(JSON.parse((await get('/v1/openapi.json')).text).servers, [{ url: ORIGIN }])
  t.equal(JSON.parse((await get('/.well-known/ai-plugin.json')).text).api.url, `${ORIGIN}/v1/openapi.json`)
  for (const page of ['/', '/docs', '/register']) {
    const links = pageLinks((await get(page)).text)
    t.same(
      links.filter((u) => !/^[/#]/.test(u) || u.startsWith(`${PATH}/`)),
      [],
      `${page}: links start with / and none with ${PATH}/`,
    )
    t.equal((await get(page)).status, 200)
  }
  t.match((await get('/register')).text, 'data-api="/v1/auth"')
  for (const path of [`${PATH}${VALUATION}`, `${PATH}/v1/catalog/makes`, `${PATH}/docs`, `${PATH}/`]) {
    const got = await get(path)
    t.same([got.status, errorCode(got.text)], [404, 'NOT_FOUND'], `${path} is no route`)
  }
})

t.test(`registration in the browser at ${PATH}/register`, async (t) => {
  const missing = chromiumMissing()
  if (missing !== undefined) return void t.fail(missing)
  const { page, seen } = await openBrowser(t)

  const email = 'browser@example.pl'
  await page.goto(`${base}${PATH}/register`)
  await page.getByLabel('E-mail address').fill(email)
  await page.getByRole('button', { name: 'Send me a code' }).click()
  await page.getByLabel('Code from the e-mail').waitFor()
  const code = /code is (\d{6})/.exec(outboxMail(outbox, email).at(-1)?.text ?? '')?.[1]
  t.ok(code, 'a code is in the outbox')
  await page.getByLabel('Code from the e-mail').fill(code ?? '')
  await page.getByRole('button', { name: 'Create my account' }).click()
  await page.getByRole('heading', { name: 'Your key is on its way' }).waitFor()
  t.ok(await page.locator('#done-step').isVisible(), 'the page reaches its done step')
  const done = await page.locator('#done-step').innerText()
  t.match(done, `'${PUBLIC}${VALUATION}'`, 'the first call it shows is at the public URL')

  const requests = seen.requests
    .filter((r) => new URL(r.url).hostname === '127.0.0.1')
    .map((r) => `${r.method} ${new URL(r.url).pathname}`)
  t.same(
    requests.filter((r) => r.startsWith('POST ')),
    [`POST ${PATH}/v1/auth/register`, `POST ${PATH}/v1/auth/verify`],
    'the form posted under the base path',
  )
  t.same(
    requests.filter((r) => !r.startsWith(`GET ${PATH}/`) && !r.startsWith(`POST ${PATH}/`)),
    [],
    'the page asked for nothing outside the base path',
  )
  t.same(seen.problems, [], 'no page error, failed request or request off this machine')

  const mail = outboxMail(outbox, email)
  const keyMail = mail.find((m) => /API key is cm_/.test(m.text))
  t.ok(keyMail, 'the key is e-mailed')
  t.same(
    urlsOf(keyMail?.text ?? '').filter((u) => !underPublic(u)),
    [],
    `every URL of the key e-mail is under ${PUBLIC}`,
  )
  const key = /API key is (cm_[A-Za-z0-9_-]+)/.exec(keyMail?.text ?? '')?.[1] ?? ''
  const me = await fetch(`${PATH}/v1/account/me`, 'GET', { 'x-api-key': key })
  t.same([me.status, JSON.parse(me.text).data?.email], [200, email], 'and it works under the base path')
})

t.test(
  'a base path that is the start of routes: a route of its own is itself, the rest is under the base',
  async (t) => {
    for (const path of ['/v1', '/docs']) {
      const { base } = await serve(t, {
        snapshots,
        ledger: freshDir(t),
        publicUrl: `${ORIGIN}${path}`,
        demoQuota: 1000,
      })
      const status = async (target: string) => (await request(`${base}${target}`)).statusCode
      t.same(
        await Promise.all([VALUATION, `${path}${VALUATION}`, '/docs', `${path}/docs`, `${path}/`].map(status)),
        [200, 200, 200, 200, 200],
        `under ${path}: the routes at the root and under the base`,
      )
      const home = await (await request(`${base}${path}/`)).body.text()
      t.match(home, `href="${path}/docs"`, `under ${path}: the home page links under the base`)
    }
    const docs = await serve(t, { snapshots, ledger: freshDir(t), publicUrl: `${ORIGIN}/docs` })
    const page = await (await request(`${docs.base}/docs`)).body.text()
    t.match(page, 'API reference', '/docs under the base path /docs is the reference, not the home page')
  },
)
