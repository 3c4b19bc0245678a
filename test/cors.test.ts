import { execFile } from 'node:child_process'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { openLedger } from '../cli/engines.js'
import {
  account,
  build,
  carmarket,
  CLI,
  freshDir,
  rows,
  serve,
  spawnServe,
  toCsv,
  type Reply,
  type Run,
  header,
} from './support.js'

const MARKET = toCsv([
  ...rows(30, (i) => ({ price: 40_000 + i * 500 })),
  ...rows(12, (i) => ({ model: 'Polo', price: 20_000 + i })),
])
const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'
const UNKNOWN_MODEL = '/v1/market/valuation?make=VW&model=Zzyzx&year=2017'
const BATCH = JSON.stringify({ requests: [{ operation: 'valuation', make: 'VW', model: 'Golf', year: 2017 }] })
const APP = 'https://app.example.com'
const LOCAL_APP = 'http://localhost:3000'
/** Written out here rather than imported, so that a header dropped from the server's list is noticed. */
const EXPOSED = [
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-Id',
  'ETag',
  'X-Credits-Used',
  'X-Credits-Remaining',
  'Idempotent-Replayed',
]
const REQUESTED = ['X-API-Key', 'Idempotency-Key', 'If-None-Match', 'Content-Type']
/** Any instant will do: a fixed clock keeps every call of a test in one rate-limit window. */
const NOW = Date.parse('2026-10-01T12:00:30Z')

interface Sent {
  readonly headers?: Record<string, string>
  readonly body?: string
}

/** Any method, headers as given: what a browser or a script of another site sends. */
async function call(base: string, method: string, path: string, sent: Sent = {}): Promise<Reply> {
  const response = await request(`${base}${path}`, { method, headers: sent.headers, body: sent.body })
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
}

/** What a page sends before a call with its key or a JSON body. */
function preflightHeaders(origin: string, method: string): Record<string, string> {
  return {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'x-api-key, idempotency-key, if-none-match, content-type',
  }
}

/** A comma-separated header's items, lowercased. */
function items(reply: Reply, name: string): string[] {
  return (header(reply, name) ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '')
}

function errorCode(reply: Reply): unknown {
  return (JSON.parse(reply.text) as { error?: { code?: unknown } }).error?.code
}

/** The answer may be read by a page of `origin`, with every header the API exposes, and never with credentials. */
function open(t: Test, reply: Reply, origin: string, what: string): void {
  t.equal(header(reply, 'access-control-allow-origin'), origin, `${what}: Access-Control-Allow-Origin`)
  const exposed = items(reply, 'access-control-expose-headers')
  t.same(
    EXPOSED.filter((name) => !exposed.includes(name.toLowerCase())),
    [],
    `${what}: every header a client reads is exposed`,
  )
  t.equal(header(reply, 'access-control-allow-credentials'), undefined, `${what}: never with credentials`)
}

function varies(t: Test, reply: Reply, what: string): void {
  t.ok(items(reply, 'vary').includes('origin'), `${what}: Vary: Origin`)
}

function corsHeaders(reply: Reply): string[] {
  return Object.keys(reply.headers).filter((name) => name.toLowerCase().startsWith('access-control-'))
}

/** A preflight's 204: no body, no length, the methods, headers and lifetime a page may use, for `origin`. */
function preflightAllowed(t: Test, reply: Reply, origin: string, what: string): void {
  t.equal(reply.status, 204, `${what}: 204`)
  t.equal(reply.text, '', `${what}: no body`)
  t.equal(header(reply, 'content-length'), undefined, `${what}: no Content-Length`)
  t.equal(header(reply, 'access-control-allow-origin'), origin, `${what}: Access-Control-Allow-Origin`)
  const methods = items(reply, 'access-control-allow-methods')
  t.ok(methods.includes('get') && methods.includes('post'), `${what}: GET and POST allowed`)
  const allowed = items(reply, 'access-control-allow-headers')
  t.same(
    REQUESTED.filter((name) => !allowed.includes(name.toLowerCase())),
    [],
    `${what}: the key, the protocol's headers and a JSON body's type allowed`,
  )
  t.match(header(reply, 'access-control-max-age'), /^[1-9][0-9]*$/, `${what}: Access-Control-Max-Age`)
  t.ok(items(reply, 'allow').length > 0, `${what}: Allow`)
  t.equal(header(reply, 'access-control-allow-credentials'), undefined, `${what}: never with credentials`)
}

/** `carmarket serve` run to its end with more in its environment (carmarket() passes this process's own). */
function serveWithEnv(args: readonly string[], more: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...more }
    // Killed after a minute: a server that did start would otherwise run on.
    execFile(process.execPath, [CLI, 'serve', ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr })
    })
  })
}

async function ledgerState(ledgerDir: string, id: string) {
  const ledger = await openLedger(ledgerDir)
  try {
    const held = await ledger.account(id)
    return { balance: held?.balance, entries: (await ledger.entries(id, 100)).map((e) => e.type) }
  } finally {
    await ledger.close()
  }
}

t.test('by default every market answer, the catalogue and errors may be read by a page of any origin', async (t) => {
  const { snapshots } = await build(t, MARKET)
  const ledger = freshDir(t)
  const { base } = await serve(t, { snapshots, ledger, demoQuota: 1000 })
  const rich = await account(ledger, 'rich@example.pl', 1000)
  const poor = await account(ledger, 'poor@example.pl', 1)
  const origin = { origin: APP }

  const cases: [string, Reply, number, string | undefined][] = []
  const add = async (what: string, reply: Promise<Reply>, status: number, code?: string) => {
    cases.push([what, await reply, status, code])
  }
  await add('a keyless market GET', call(base, 'GET', VALUATION, { headers: origin }), 200)
  await add('a market GET without Origin', call(base, 'GET', VALUATION), 200)
  const keyed = await call(base, 'GET', VALUATION, { headers: { ...origin, 'x-api-key': rich.key } })
  cases.push(['a keyed market GET', keyed, 200, undefined])
  await add(
    'a 304',
    call(base, 'GET', VALUATION, {
      headers: { ...origin, 'x-api-key': rich.key, 'if-none-match': header(keyed, 'etag') ?? '' },
    }),
    304,
  )
  const batch = { ...origin, 'x-api-key': rich.key, 'content-type': 'application/json', 'idempotency-key': 'b-1' }
  await add('a batch', call(base, 'POST', '/v1/market/batch', { headers: batch, body: BATCH }), 200)
  await add('a batch replayed', call(base, 'POST', '/v1/market/batch', { headers: batch, body: BATCH }), 200)
  await add('the catalogue', call(base, 'GET', '/v1/catalog/makes', { headers: origin }), 200)
  await add('the OpenAPI document', call(base, 'GET', '/v1/openapi.json', { headers: origin }), 200)
  await add(
    'too few credits',
    call(base, 'GET', VALUATION, { headers: { ...origin, 'x-api-key': poor.key } }),
    402,
    'INSUFFICIENT_CREDITS',
  )
  await add('an unknown model', call(base, 'GET', UNKNOWN_MODEL, { headers: origin }), 404, 'INSUFFICIENT_DATA')
  await add('an unknown /v1 path', call(base, 'GET', '/v1/nowhere', { headers: origin }), 404, 'NOT_FOUND')
  await add(
    'a method the route does not take',
    call(base, 'DELETE', VALUATION, { headers: origin }),
    405,
    'METHOD_NOT_ALLOWED',
  )
  await add('GET of the batch', call(base, 'GET', '/v1/market/batch', { headers: origin }), 405, 'METHOD_NOT_ALLOWED')
  await add(
    'a request target too long',
    call(base, 'GET', `${VALUATION}&model=${'x'.repeat(2100)}`, { headers: origin }),
    414,
    'URI_TOO_LONG',
  )

  for (const [what, reply, status, code] of cases) {
    t.equal(reply.status, status, `${what}: ${status}`)
    if (code !== undefined) t.equal(errorCode(reply), code, `${what}: ${code}`)
    open(t, reply, '*', what)
  }
  const replayed = cases.find(([what]) => what === 'a batch replayed')![1]
  t.equal(header(replayed, 'idempotent-replayed'), 'true', 'the replay is told, in a header the page may read')
})

t.test('the rate limit and the demo quota refuse in answers a page may read', async (t) => {
  const { snapshots } = await build(t, MARKET)
  const { base } = await serve(t, { snapshots, rateLimit: 2, demoQuota: 1, clock: () => NOW })
  const origin = { origin: APP }
  const first = await call(base, 'GET', VALUATION, { headers: origin })
  t.equal(first.status, 200)
  open(t, first, '*', 'a keyless call')
  const demo = await call(base, 'GET', VALUATION, { headers: origin })
  t.same([demo.status, errorCode(demo)], [429, 'DEMO_LIMIT_REACHED'])
  open(t, demo, '*', 'past the demo quota')
  const limited = await call(base, 'GET', VALUATION, { headers: origin })
  t.same([limited.status, errorCode(limited)], [429, 'RATE_LIMIT_EXCEEDED'])
  t.ok(header(limited, 'retry-after'), 'with Retry-After')
  open(t, limited, '*', 'past the rate limit')
})

t.test(
  'a preflight on any /v1 path but the account routes: 204 with what a page may send, from any origin',
  async (t) => {
    const { snapshots } = await build(t, MARKET)
    const { base } = await serve(t, { snapshots })
    const paths: [string, string, string][] = [
      [VALUATION, 'GET', 'get'],
      ['/v1/market/batch', 'POST', 'post'],
      ['/v1/catalog/makes', 'GET', 'get'],
      ['/v1/openapi.json', 'GET', 'get'],
      ['/v1/nowhere', 'GET', 'get'],
    ]
    for (const [path, method, allowed] of paths) {
      const reply = await call(base, 'OPTIONS', path, { headers: preflightHeaders(APP, method) })
      preflightAllowed(t, reply, '*', `OPTIONS ${path}`)
      t.ok(items(reply, 'allow').includes(allowed), `OPTIONS ${path}: Allow names ${method}`)
    }
  },
)

t.test('preflights are neither rate-limited, charged nor counted against the demo quota', async (t) => {
  const { snapshots } = await build(t, MARKET)
  const ledger = freshDir(t)
  const { base } = await serve(t, { snapshots, ledger, rateLimit: 2, demoQuota: 1, clock: () => NOW })
  const { id, key } = await account(ledger, 'preflights@example.pl', 100)

  const statuses: number[] = []
  for (let i = 0; i < 10; i++) {
    const [path, method] = i % 2 === 0 ? [VALUATION, 'GET'] : ['/v1/market/batch', 'POST']
    // Half of them carry the key too, which no browser would: even then nothing is charged.
    const headers = { ...preflightHeaders(APP, method), ...(i % 4 < 2 ? { 'x-api-key': key } : {}) }
    const reply = await call(base, 'OPTIONS', path, { headers })
    statuses.push(reply.status)
  }
  t.same(statuses, Array(10).fill(204), 'ten preflights past a limit of two, all answered')

  const me = await call(base, 'GET', '/v1/account/me', { headers: { origin: APP, 'x-api-key': key } })
  t.equal(me.status, 200, 'the first call of the minute')
  t.equal((JSON.parse(me.text) as { data: { credits_remaining: number } }).data.credits_remaining, 100)
  const keyless = await call(base, 'GET', VALUATION, { headers: { origin: APP } })
  t.equal(keyless.status, 200, 'the second call, and the one demo call of the day, both still there')
  const third = await call(base, 'GET', '/v1/catalog/makes', { headers: { origin: APP } })
  t.same([third.status, errorCode(third)], [429, 'RATE_LIMIT_EXCEEDED'], 'the third call of the minute')

  t.same(await ledgerState(ledger, id), { balance: 100, entries: ['grant'] }, 'no entry but the grant')
})

t.test('a list of origins: those listed may read, the others may not, and every answer varies by Origin', async (t) => {
  const { snapshots } = await build(t, MARKET)
  const { base } = await serve(t, { snapshots, demoQuota: 1000, corsOrigins: [APP, LOCAL_APP] })

  for (const origin of [APP, LOCAL_APP]) {
    const answer = await call(base, 'GET', VALUATION, { headers: { origin } })
    t.equal(answer.status, 200)
    open(t, answer, origin, `GET from ${origin}`)
    varies(t, answer, `GET from ${origin}`)
    const missing = await call(base, 'GET', '/v1/nowhere', { headers: { origin } })
    t.same([missing.status, errorCode(missing)], [404, 'NOT_FOUND'])
    open(t, missing, origin, `an error to ${origin}`)
    varies(t, missing, `an error to ${origin}`)
    const preflight = await call(base, 'OPTIONS', '/v1/market/batch', { headers: preflightHeaders(origin, 'POST') })
    preflightAllowed(t, preflight, origin, `a preflight from ${origin}`)
    varies(t, preflight, `a preflight from ${origin}`)
  }

  // Near misses too: another scheme, a longer host, another port.
  const others = ['https://elsewhere.example', 'http://app.example.com', `${APP}.evil.example`, 'http://localhost:3001']
  for (const origin of [...others, undefined]) {
    const from = origin ?? 'no Origin'
    const answer = await call(base, 'GET', VALUATION, { headers: origin === undefined ? {} : { origin } })
    t.equal(answer.status, 200, `GET from ${from}: answered`)
    t.equal(header(answer, 'access-control-allow-origin'), undefined, `GET from ${from}: not for a page to read`)
    varies(t, answer, `GET from ${from}`)
    if (origin === undefined) continue
    const preflight = await call(base, 'OPTIONS', VALUATION, { headers: preflightHeaders(origin, 'GET') })
    t.equal(preflight.status, 204, `a preflight from ${from}: 204`)
    t.same(
      corsHeaders(preflight).filter((name) => name.toLowerCase().startsWith('access-control-allow-')),
      [],
      `a preflight from ${from}: nothing allowed`,
    )
  }
})

/**
 * Registration, verification and the account routes, called from a page of another site,
 * would let that site open accounts from its visitors' browsers (each visitor an address
 * of its own under the signup limit, the keys mailed to the site) and read their
 * accounts: they answer CORS only for the service's own origin, and for the origins
 * `--cors-origins` lists, never for any origin.
 */
const ACCOUNT_CALLS: readonly [string, string, string | undefined][] = [
  ['POST', '/v1/auth/register', JSON.stringify({ email: 'visitor@example.pl' })],
  ['POST', '/v1/auth/verify', JSON.stringify({ email: 'visitor@example.pl', code: '123456' })],
  ['GET', '/v1/account/me', undefined],
  ['GET', '/v1/account/usage', undefined],
]
const OWN = 'https://carmarket.example'

async function accountCors(t: Test, corsOrigins: readonly string[] | '*', allowed: readonly string[]) {
  const { snapshots } = await build(t, MARKET)
  const ledger = freshDir(t)
  const { base } = await serve(t, { snapshots, ledger, corsOrigins, publicUrl: `${OWN}/api` })
  const { key } = await account(ledger, 'holder@example.pl', 100)
  for (const origin of [OWN, APP, LOCAL_APP, 'https://evil.example']) {
    const may = allowed.includes(origin)
    for (const [method, path, body] of ACCOUNT_CALLS) {
      const what = `${method} ${path} from ${origin}`
      const headers = {
        origin,
        'x-api-key': key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      }
      const reply = await call(base, method, path, { headers, body })
      t.ok(reply.status < 500, `${what}: answered`)
      if (may) {
        open(t, reply, origin, what)
        varies(t, reply, what)
      } else t.equal(header(reply, 'access-control-allow-origin'), undefined, `${what}: not for that page to read`)
      const preflight = await call(base, 'OPTIONS', path, { headers: preflightHeaders(origin, method) })
      if (may) preflightAllowed(t, preflight, origin, `a preflight of ${what}`)
      else t.equal(header(preflight, 'access-control-allow-origin'), undefined, `a preflight of ${what}: refused`)
    }
  }
  // The market keeps its own policy.
  const market = await call(base, 'GET', VALUATION, { headers: { origin: 'https://evil.example' } })
  t.equal(header(market, 'access-control-allow-origin'), corsOrigins === '*' ? '*' : undefined, 'the market as before')
}

t.test('the account routes answer CORS for the service own origin only, whatever the market allows', (t) =>
  accountCors(t, '*', [OWN]),
)

t.test('the account routes answer CORS for the origins --cors-origins lists, and the service own', (t) =>
  accountCors(t, [APP], [OWN, APP]),
)

t.test('none: no Access-Control header anywhere, and OPTIONS is a method the routes do not take', async (t) => {
  const { snapshots } = await build(t, MARKET)
  const { base } = await serve(t, { snapshots, corsOrigins: 'none' })
  const origin = { origin: APP }
  const answers: [string, Reply, number, string | undefined][] = [
    ['a market GET', await call(base, 'GET', VALUATION, { headers: origin }), 200, undefined],
    ['the OpenAPI document', await call(base, 'GET', '/v1/openapi.json', { headers: origin }), 200, undefined],
    ['an unknown path', await call(base, 'GET', '/v1/nowhere', { headers: origin }), 404, 'NOT_FOUND'],
    [
      'a preflight of a market GET',
      await call(base, 'OPTIONS', VALUATION, { headers: preflightHeaders(APP, 'GET') }),
      405,
      'METHOD_NOT_ALLOWED',
    ],
    [
      'a preflight of the batch',
      await call(base, 'OPTIONS', '/v1/market/batch', { headers: preflightHeaders(APP, 'POST') }),
      405,
      'METHOD_NOT_ALLOWED',
    ],
  ]
  for (const [what, reply, status, code] of answers) {
    t.equal(reply.status, status, `${what}: ${status}`)
    if (code !== undefined) t.equal(errorCode(reply), code, `${what}: ${code}`)
    t.same(corsHeaders(reply), [], `${what}: no Access-Control header`)
  }
  t.ok(items(answers[3]![1], 'allow').includes('get'), 'the 405 names the methods the route takes')
})

t.test("the pages and /mcp keep their own policy: the API's CORS is not theirs", async (t) => {
  const { snapshots } = await build(t, MARKET)
  const { base } = await serve(t, { snapshots, publicUrl: 'https://cars.example.test' })
  for (const path of ['/', '/docs', '/register', '/llms.txt', '/.well-known/ai-plugin.json']) {
    const page = await call(base, 'GET', path, { headers: { origin: APP } })
    t.equal(page.status, 200, `${path}: 200`)
    t.equal(header(page, 'access-control-allow-origin'), undefined, `${path}: no Access-Control-Allow-Origin`)
    const preflight = await call(base, 'OPTIONS', path, { headers: preflightHeaders(APP, 'GET') })
    t.equal(header(preflight, 'access-control-allow-origin'), undefined, `OPTIONS ${path}: no Allow-Origin`)
  }
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cors-test', version: '1' } },
  })
  const mcp = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  for (const origin of [undefined, 'https://cars.example.test', APP]) {
    const headers = origin === undefined ? mcp : { ...mcp, origin }
    const reply = await call(base, 'POST', '/mcp', { headers, body: initialize })
    const from = origin ?? 'no Origin'
    t.equal(reply.status, origin === APP ? 403 : 200, `/mcp from ${from}: its own origin check`)
    t.equal(header(reply, 'access-control-allow-origin'), undefined, `/mcp from ${from}: no Allow-Origin`)
  }
  const preflight = await call(base, 'OPTIONS', '/mcp', { headers: preflightHeaders(APP, 'POST') })
  t.equal(header(preflight, 'access-control-allow-origin'), undefined, 'OPTIONS /mcp: no Allow-Origin')
})

t.test('carmarket serve: --cors-origins and CARMARKET_CORS_ORIGINS', async (t) => {
  const { snapshots } = await build(t, MARKET)
  const common = (ledger = freshDir(t)) => [
    '--snapshots',
    snapshots,
    '--ledger',
    ledger,
    '--outbox',
    freshDir(t),
    '--rate-limit',
    '0',
    '--no-request-log',
  ]

  await t.test('a list of origins', async (t) => {
    const { port } = await spawnServe(t, [...common(), '--cors-origins', `${APP},${LOCAL_APP}`])
    const base = `http://127.0.0.1:${port}`
    for (const origin of [APP, LOCAL_APP]) {
      const answer = await call(base, 'GET', VALUATION, { headers: { origin } })
      open(t, answer, origin, `from ${origin}`)
      varies(t, answer, `from ${origin}`)
    }
    const other = await call(base, 'GET', VALUATION, { headers: { origin: 'https://elsewhere.example' } })
    t.equal(header(other, 'access-control-allow-origin'), undefined, 'another origin: not for a page to read')
    varies(t, other, 'another origin')
  })

  await t.test('the list from the environment', async (t) => {
    const env = { ...process.env, CARMARKET_CORS_ORIGINS: `${APP},${LOCAL_APP}` }
    const { port } = await spawnServe(t, common(), { env })
    const base = `http://127.0.0.1:${port}`
    const answer = await call(base, 'GET', VALUATION, { headers: { origin: LOCAL_APP } })
    open(t, answer, LOCAL_APP, 'a listed origin')
    const other = await call(base, 'GET', VALUATION, { headers: { origin: 'https://elsewhere.example' } })
    t.equal(header(other, 'access-control-allow-origin'), undefined, 'another origin: not for a page to read')
  })

  await t.test('none', async (t) => {
    const { port } = await spawnServe(t, [...common(), '--cors-origins', 'none'])
    const base = `http://127.0.0.1:${port}`
    const answer = await call(base, 'GET', VALUATION, { headers: { origin: APP } })
    t.equal(answer.status, 200)
    t.same(corsHeaders(answer), [], 'no Access-Control header')
    const preflight = await call(base, 'OPTIONS', VALUATION, { headers: preflightHeaders(APP, 'GET') })
    t.same([preflight.status, errorCode(preflight)], [405, 'METHOD_NOT_ALLOWED'])
    t.same(corsHeaders(preflight), [], 'no Access-Control header on the 405')
  })

  await t.test('the default: any origin', async (t) => {
    const { port } = await spawnServe(t, common())
    const answer = await call(`http://127.0.0.1:${port}`, 'GET', VALUATION, { headers: { origin: APP } })
    open(t, answer, '*', 'the default')
  })

  await t.test('anything but *, none or a list of origins: exit 2 before listening', async (t) => {
    // A folder free for the ledger and a snapshots folder the server would start on: the option alone is at fault.
    const bad = [
      'https://app.example.com/path',
      'ftp://x.example',
      'app.example.com',
      `${APP},app.example.com`,
      `${APP}/`,
      `${APP}?q=1`,
    ]
    for (const value of bad) {
      const run = await carmarket(['serve', ...common(), '--port', '0', '--cors-origins', value])
      t.equal(run.code, 2, `--cors-origins ${value}: exit 2`)
      if (run.code !== 2) t.comment(run.stderr)
      t.notMatch(run.stderr, /serving on/, `--cors-origins ${value}: never listened`)
    }
    const fromEnv = await serveWithEnv([...common(), '--port', '0'], { CARMARKET_CORS_ORIGINS: 'app.example.com' })
    t.equal(fromEnv.code, 2, 'CARMARKET_CORS_ORIGINS app.example.com: exit 2')
    if (fromEnv.code !== 2) t.comment(fromEnv.stderr)
    t.notMatch(fromEnv.stderr, /serving on/, 'CARMARKET_CORS_ORIGINS app.example.com: never listened')
  })
})
