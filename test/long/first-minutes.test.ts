import { execFile, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { startBanner } from '../../cli/start-banner.js'
import { listenedUrl } from '../../runtime/listened-url.js'
import { RequestLog, terminalLine, type RequestRecord } from '../../runtime/request-log.js'
import { INITIALIZE } from '../mcp-support.js'
import { CLI, account, build, carmarket, children, freshDir, rows, spawnServe, toCsv, type Run } from '../support.js'

const data = toCsv(rows(12, (i) => ({ price: 30_000 + i })))
const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const response = await request(`${base}${path}`, { headers })
  return { status: response.statusCode, text: await response.body.text() }
}

/** The status of an MCP initialize sent to /mcp from a page at `origin`. */
async function mcpFrom(base: string, origin: string): Promise<number> {
  const response = await request(`${base}/mcp`, {
    method: 'POST',
    body: INITIALIZE,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin },
  })
  await response.body.dump()
  return response.statusCode
}

/**
 * Every link a caller or a page is given by the server at `base` names `url`: the error
 * answers' register_url and top_up_url, the OpenAPI servers, llms.txt, ai-plugin.json,
 * the pages' curl examples and mailboxes; and /mcp takes requests from pages at `url`.
 * `key` is of an account without credits; the server runs with the demo tier off.
 */
async function checkLinks(t: Test, base: string, url: string, key: string): Promise<void> {
  const keyless = JSON.parse((await get(base, VALUATION)).text)
  t.equal(keyless.error.register_url, `${url}/register`, 'register_url')
  const broke = JSON.parse((await get(base, VALUATION, { 'x-api-key': key })).text)
  t.equal(broke.error.top_up_url, `${url}/buy`, 'top_up_url')
  const document = JSON.parse((await get(base, '/v1/openapi.json')).text)
  t.same(
    document.servers.map((s: { url: string }) => s.url),
    [url],
    "the OpenAPI document's server",
  )
  const plugin = JSON.parse((await get(base, '/.well-known/ai-plugin.json')).text)
  t.equal(plugin.api.url, `${url}/v1/openapi.json`, "ai-plugin.json's API")
  t.ok((await get(base, '/llms.txt')).text.includes(`${url}/`), 'llms.txt')
  for (const page of ['/', '/docs', '/register']) {
    const html = (await get(base, page)).text
    t.match(html, new RegExp(`curl [^<]*${url.replace(/[.:/]/g, '\\$&')}/v1/`), `the curl examples of ${page}`)
  }
  const everything = await Promise.all(
    ['/', '/docs', '/register', '/llms.txt', '/.well-known/ai-plugin.json', '/v1/openapi.json'].map(
      async (p) => (await get(base, p)).text,
    ),
  )
  t.notOk(
    everything.some((text) => text.includes(':8080')),
    'nothing names another port',
  )
  t.ok((await get(base, '/')).text.includes(`support@${new URL(url).hostname}`), 'the support mailbox is at its host')
  t.notOk((await get(base, '/')).text.includes('sales@'), 'and no sales mailbox is made up')
  t.equal(await mcpFrom(base, url), 200, "/mcp takes requests from the site's own pages")
  t.equal(await mcpFrom(base, 'http://localhost:8080'), 403, 'and from no other origin')
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The environment without a public URL: links follow the address listened on. */
function withoutPublicUrl(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra }
  delete env.CARMARKET_PUBLIC_URL
  return env
}

t.test('without --public-url, every link names the port listened on: --port 0', async (t) => {
  const { snapshots } = await build(t, data)
  const ledger = freshDir(t)
  const { key } = await account(ledger, 'zero@example.pl', 0)
  const { port } = await spawnServe(
    t,
    ['--snapshots', snapshots, '--ledger', ledger, '--demo-quota', '0', '--outbox', join(ledger, 'outbox')],
    {
      env: withoutPublicUrl(),
    },
  )
  await checkLinks(t, `http://127.0.0.1:${port}`, `http://127.0.0.1:${port}`, key)
})

t.test(
  'without --public-url, every link names the port listened on: PORT in the environment, two workers',
  async (t) => {
    const { snapshots } = await build(t, data)
    const ledger = freshDir(t)
    const { key } = await account(ledger, 'zero@example.pl', 0)
    const wanted = await freePort()
    const served = await spawnServe(
      t,
      [
        '--workers',
        '2',
        '--snapshots',
        snapshots,
        '--ledger',
        ledger,
        '--demo-quota',
        '0',
        '--outbox',
        join(ledger, 'outbox'),
      ],
      {
        env: withoutPublicUrl({ PORT: String(wanted) }),
      },
    )
    t.equal(served.port, wanted, 'the port PORT names')
    t.match(served.log(), `  home      http://127.0.0.1:${wanted}/\n`, 'the banner of the primary names it too')
    const base = `http://127.0.0.1:${wanted}`
    // Each worker made its own site: the links of several answers are checked.
    for (let i = 0; i < 3; i++) await checkLinks(t, base, base, key)
  },
)

t.test('an explicit --public-url wins over the address listened on', async (t) => {
  const { snapshots } = await build(t, data)
  const ledger = freshDir(t)
  const { key } = await account(ledger, 'zero@example.pl', 0)
  const url = 'https://api.example.test'
  const { port, log } = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    ledger,
    '--demo-quota',
    '0',
    '--public-url',
    `${url}/`,
    '--outbox',
    join(ledger, 'outbox'),
  ])
  const base = `http://127.0.0.1:${port}`
  await checkLinks(t, base, url, key)
  t.equal(await mcpFrom(base, base), 403, 'the address listened on is then no origin of the site')
  t.match(log(), `  docs      ${url}/docs\n`, 'the banner names the public URL')
})

t.test('the links of a wildcard host name the loopback; an IPv6 address is bracketed', async (t) => {
  t.equal(listenedUrl('127.0.0.1', 34817), 'http://127.0.0.1:34817')
  t.equal(listenedUrl('0.0.0.0', 34817), 'http://127.0.0.1:34817')
  t.equal(listenedUrl('::', 34817), 'http://127.0.0.1:34817')
  t.equal(listenedUrl('', 34817), 'http://127.0.0.1:34817')
  t.equal(listenedUrl('::1', 34817), 'http://[::1]:34817')
  t.equal(listenedUrl('fe80::1%eth0', 80), 'http://[fe80::1]:80', 'without a zone, which a URL cannot hold')
  t.equal(listenedUrl('cars.internal', 8080), 'http://cars.internal:8080')
})

t.test('the start banner: the pages, and the line that makes a key works as printed', async (t) => {
  const { snapshots } = await build(t, data)
  const ledger = join(freshDir(t), 'my ledger')
  const { port, log } = await spawnServe(
    t,
    ['--snapshots', snapshots, '--ledger', ledger, '--outbox', join(ledger, 'outbox')],
    { env: withoutPublicUrl() },
  )
  const base = `http://127.0.0.1:${port}`
  const lines = log().split('\n')
  t.equal(lines[0], `carmarket serving on ${base} (one process)`, 'the line tests and benchmarks read, as it was')
  for (const page of ['/', '/docs', '/register']) {
    const line = lines.find((l) => l.trimEnd().endsWith(`${base}${page}`))
    t.ok(line, `the banner names ${page}`)
    t.equal((await get(base, page)).status, 200, `${page} is there`)
  }
  const keyLine = lines.find((l) => l.includes('export KEY='))!.trim()
  t.equal(
    keyLine,
    `export KEY=$(node dist/cli/main.js accounts create --email you@example.com --credits 1000 --key-only --ledger '${ledger}')`,
    'the compiled CLI itself, named from the folder the server runs in: nothing installed or compiled first',
  )

  // The line as printed, in a POSIX shell in the server's folder, leaving the compiled
  // files the server runs as they were; then the key it exported, on the running server.
  const compiled = () =>
    readdirSync(dirname(CLI)).map((name) => `${name} ${statSync(join(dirname(CLI), name)).mtimeMs}`)
  const before = compiled()
  const key = await new Promise<string>((resolve, reject) =>
    execFile('sh', ['-c', `${keyLine} && printf %s "$KEY"`], (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  )
  t.same(compiled(), before, "the CLI's folder is untouched")
  t.match(key, /^cm_\S+$/, 'KEY holds the key alone')
  const me = JSON.parse((await get(base, '/v1/account/me', { 'x-api-key': key })).text)
  t.equal(me.data.credits_remaining, 1000, 'with its 1000 credits')
  const curlLine = lines.find((l) => l.includes('curl -H'))!
  const path = /"http:\/\/127\.0\.0\.1:\d+(\/v1\/[^"]+)"/.exec(curlLine)![1]!
  t.equal((await get(base, path, { 'x-api-key': key })).status, 200, 'and the call the banner shows answers')
})

t.test('the banner names the ledger only when it is not the default, and never a password', async (t) => {
  const keyLine = (ledger: string) =>
    startBanner('http://127.0.0.1:8080', ledger, 'written to data/outbox/')
      .split('\n')
      .find((l) => l.includes('export KEY='))!
      .trim()
  t.equal(
    keyLine('data/ledger'),
    'export KEY=$(node dist/cli/main.js accounts create --email you@example.com --credits 1000 --key-only)',
  )
  t.match(keyLine('/srv/carmarket/ledger'), / --key-only --ledger \/srv\/carmarket\/ledger\)$/)
  t.match(keyLine("it's here"), / --ledger 'it'\\''s here'\)$/, 'quoted for the shell')
  const pg = keyLine('postgres://carmarket:s3cret@db:5432/carmarket')
  t.notMatch(pg, /s3cret/)
  t.match(pg, /--ledger postgres:\/\/carmarket:PASSWORD@db:5432\/carmarket\)$/)
})

t.test('accounts create --key-only prints the key and a newline, nothing else', async (t) => {
  const ledger = freshDir(t)
  const run = await carmarket([
    'accounts',
    'create',
    '--ledger',
    ledger,
    '--email',
    'skrypt@example.pl',
    '--credits',
    '1000',
    '--key-only',
  ])
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /^cm_\S+\n$/)
  t.equal(run.stderr, '')
  const json = await carmarket([
    'accounts',
    'create',
    '--ledger',
    ledger,
    '--email',
    'json@example.pl',
    '--key-only',
    '--json',
  ])
  t.equal(json.code, 2, 'with --json it is a usage error')
  t.match(json.stderr, /^carmarket: [^\n]*--json[^\n]*\n$/)
})

/** One line that says what is wrong, no stack, the exit code expected. */
function checkRefusal(t: Test, run: Run, code: number, says: RegExp, what: string): void {
  t.equal(run.code, code, `${what}: exit ${code}`)
  t.match(run.stderr, /^carmarket: [^\n]+\n$/, `${what}: one line (${JSON.stringify(run.stderr)})`)
  t.match(run.stderr, says, `${what}: names the problem`)
  t.notOk(run.stderr.includes('    at '), `${what}: no stack`)
  t.equal(run.stdout, '', `${what}: nothing on stdout`)
}

t.test(
  'a start that fails is one line and a non-zero exit: 2 when called wrongly, 1 when the machine refuses',
  async (t) => {
    const { snapshots } = await build(t, data)
    const cwd = freshDir(t)
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    t.teardown(() => busy.close())
    const taken = String((busy.address() as { port: number }).port)
    const aFile = join(cwd, 'a-file')
    writeFileSync(aFile, '')
    const serve = (...args: string[]) =>
      carmarket(['serve', '--snapshots', snapshots, '--ledger', join(cwd, 'ledger'), ...args], cwd)

    const cases: [string, string[], number, RegExp][] = [
      ['a port in use', ['--port', taken], 1, /in use.*--port/],
      ['a port in use, two workers', ['--port', taken, '--workers', '2'], 1, /in use.*--port/],
      ['--port 99999', ['--port', '99999'], 2, /--port/],
      ['--port abc', ['--port', 'abc'], 2, /--port/],
      ['a host of another machine', ['--port', '0', '--host', '192.0.2.1'], 1, /192\.0\.2\.1.*--host/],
      [
        'a host of another machine, two workers',
        ['--port', '0', '--host', '192.0.2.1', '--workers', '2'],
        1,
        /192\.0\.2\.1.*--host/,
      ],
      ['--workers 0', ['--workers', '0'], 2, /--workers/],
      ['an unknown option', ['--prot', '8080'], 2, /--prot.*--help/],
      ['an unknown option, two workers', ['--workers', '2', '--bogus'], 2, /--bogus/],
      [
        'a ledger folder under a file',
        ['--port', '0', '--ledger', join(aFile, 'ledger')],
        1,
        /ledger folder.*--ledger/,
      ],
      [
        'a ledger folder under a file, two workers',
        ['--port', '0', '--workers', '2', '--ledger', join(aFile, 'ledger')],
        1,
        /ledger folder.*--ledger/,
      ],
      ['a snapshots folder that is a file', ['--port', '0', '--snapshots', aFile], 1, /snapshots folder.*--snapshots/],
      [
        'an outbox folder under a file',
        ['--port', '0', '--outbox', join(aFile, 'outbox')],
        1,
        /outbox folder.*--outbox/,
      ],
    ]
    for (const [what, args, code, says] of cases) checkRefusal(t, await serve(...args), code, says, what)
  },
)

t.test('a folder the user may not read or create is one line and exit 1', async (t) => {
  // Root may read and write anything: the CLI then runs as nobody.
  const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  const dir = freshDir(t)
  chmodSync(dir, 0o755)
  const open = join(dir, 'open')
  mkdirSync(open, { mode: 0o777 })
  chmodSync(open, 0o777)
  const shut = join(dir, 'shut')
  mkdirSync(shut)
  chmodSync(shut, 0o555)
  const unreadable = join(dir, 'unreadable')
  mkdirSync(unreadable)
  chmodSync(unreadable, 0o000)
  t.teardown(() => chmodSync(unreadable, 0o755))
  const serve = (...args: string[]) =>
    carmarket(['serve', '--port', '0', '--outbox', join(open, 'outbox'), ...args], open, as)

  const ledger = await serve('--snapshots', join(open, 'snapshots'), '--ledger', join(shut, 'ledger'))
  checkRefusal(t, ledger, 1, /ledger folder.*EACCES.*--ledger/, 'a ledger folder that cannot be created')
  const workers = await serve(
    '--workers',
    '2',
    '--snapshots',
    join(open, 'snapshots'),
    '--ledger',
    join(shut, 'ledger'),
  )
  checkRefusal(t, workers, 1, /ledger folder.*EACCES.*--ledger/, 'the same with two workers')
  const snapshots = await serve('--snapshots', unreadable, '--ledger', join(open, 'ledger'))
  checkRefusal(t, snapshots, 1, /snapshots folder.*EACCES.*--snapshots/, 'a snapshots folder that cannot be read')
})

t.test('the request log on a terminal: one short line per request', async (t) => {
  const record: RequestRecord = {
    request_id: 'r1',
    method: 'GET',
    route: '/v1/market/valuation',
    status: 200,
    duration_ms: 3.21,
    account_id: 'acc_x',
    ip: '127.0.0.1',
  }
  const noon = new Date(2026, 10, 22, 12, 4, 31).getTime()
  t.equal(
    terminalLine(record, noon),
    '12:04:31 200 GET /v1/market/valuation 3.21 ms',
    'local time, status, method, route, duration',
  )
  t.equal(
    terminalLine({ ...record, route: null, status: 404 }, noon),
    '12:04:31 404 GET - 3.21 ms',
    'a path that matched no route is -',
  )
  const written: string[] = []
  const log = new RequestLog(
    (text) => written.push(text),
    () => noon,
    'terminal',
  )
  log.record(record)
  log.record({ ...record, method: 'HEAD', route: '/livez', duration_ms: 0.05 })
  log.flush()
  t.equal(
    written.join(''),
    '12:04:31 200 GET /v1/market/valuation 3.21 ms\n12:04:31 200 HEAD /livez 0.05 ms\n',
    'written in batches like the JSON lines',
  )
})

t.test('carmarket serve: JSON lines when stdout is no terminal, short lines when it is one', async (t) => {
  const { snapshots } = await build(t, data)
  const piped = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t)], { stdout: true })
  await get(`http://127.0.0.1:${piped.port}`, '/livez')
  await get(`http://127.0.0.1:${piped.port}`, '/nowhere')
  piped.child.kill('SIGTERM')
  await new Promise((resolve) => piped.child.once('exit', resolve))
  const lines = piped
    .stdout()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  t.match(
    lines,
    [
      { message: 'request', route: '/livez', status: 200 },
      { message: 'request', route: null, status: 404 },
    ],
    'one JSON line per request, as before',
  )

  if (!['/usr/bin/script', '/bin/script'].some((path) => existsSync(path)))
    return void t.comment('no script(1) to give the server a terminal')
  const ledger = freshDir(t)
  const command = `'${process.execPath}' '${CLI}' serve --port 0 --snapshots '${snapshots}' --ledger '${ledger}' --outbox '${join(ledger, 'outbox')}'`
  const terminal = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => terminal.kill('SIGKILL'))
  let screen = ''
  terminal.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()))
  const until = async (pattern: RegExp) => {
    for (let i = 0; i < 300 && !pattern.test(screen); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    return pattern.exec(screen)
  }
  const port = (await until(/serving on http:\/\/127\.0\.0\.1:(\d+)/))?.[1]
  t.ok(port, 'the server started on a terminal')
  await get(`http://127.0.0.1:${port}`, '/livez')
  t.ok(await until(/^\d\d:\d\d:\d\d 200 GET \/livez \d+(\.\d+)? ms\r?$/m), 'a short line for the request')
  t.notMatch(screen, /"message":"request"/, 'and no JSON line')
  // script(1) passes no signal on: the server itself is stopped (a shell may stand between them).
  const descendants = (pid: number): number[] => children(pid).flatMap((child) => [child, ...descendants(child)])
  for (const pid of descendants(terminal.pid!)) process.kill(pid, 'SIGTERM')
  await new Promise((resolve) => terminal.once('exit', resolve))
})
