/**
 * Keyed valuation over HTTP next to a bare node:http server answering a fixed JSON body
 * and the ceiling of a keyed call (node:http and one durable lmdb-js debit), measured in
 * the same run with the same load: wrk (Debian's package: apt-get install wrk) in a
 * process of its own, one thread, against each server in processes of its own. A row of
 * several runtimes splits the connections between them, one wrk each, and adds their
 * requests per second. Each server is measured `--rounds` times, in turns, and the round
 * with the median requests per second is reported, with the median over the rounds of
 * the CPU time its processes spent per request (read from /proc: on a machine whose
 * throughput varies with its neighbours, what a request costs the server varies less).
 *
 * Beside plain keyed valuations, the protocol's rows: a revalidation (If-None-Match, a
 * free 304), a new Idempotency-Key on every call (each key taken up and its answer
 * stored), one key sent again and again (every call a free replay), and a batch of ten
 * valuations (calls/s counts its items).
 *
 * The PostgreSQL rows need a PostgreSQL server (`--postgres URL`, by default
 * postgres://root@127.0.0.1:5432/test): the script creates a database of its own there
 * and drops it at the end. They show how many debits each commit carried, from the
 * runtimes' /metrics.
 *
 * `--before DIR` adds a keyed valuation row served by another checkout's compiled code
 * (DIR/dist/cli/main.js, e.g. a git worktree of the last release), so that a change is
 * judged against the code before it in the same run; it serves a snapshot that code built
 * from the same export and keeps a ledger that code opened, since the two may read
 * different snapshot schemas and ledger layouts.
 *
 * `--only A,B` measures only the rows whose label holds A or B (and the bare server).
 *
 *   npm run bench:http -- [--connections 50] [--seconds 10] [--rounds 3] [--before DIR] [--only A,B] [--postgres URL]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { openLedger, migrateLedger } from '../cli/engines.js'
import { DEFAULT_LISTINGS } from '../sample/generate.js'
import { BENCH_DATA, benchExport, benchSnapshots } from './bench-data.js'

interface Result {
  requests_per_second: number
  p50_ms: number
  p90_ms: number
  p99_ms: number
  p999_ms: number
  non2xx: number
  errors: number
  /** Debits per ledger commit over the run, where the runtimes count their commits. */
  debits_per_commit?: number
  /**
   * The CPU time the server's processes spent per request answered, in µs: what a request costs the server itself,
   * apart from wrk's share of the machine and the waits for the disk.
   */
  cpu_us_per_request?: number
}

/** The CPU time (user and system, ms) spent so far by a process and every process under it, from /proc. */
function treeCpuMs(root: number): number {
  const stats = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
        // After the command's name in brackets: state, ppid, ..., utime (14th field), stime (15th).
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return [{ pid: Number(name), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }]
      } catch {
        return []
      }
    })
  const tree = new Set([root])
  for (let grew = true; grew;) {
    grew = false
    for (const { pid, ppid } of stats)
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid)
        grew = true
      }
  }
  // Clock ticks of 10 ms (USER_HZ 100 on Linux).
  return stats.filter((s) => tree.has(s.pid)).reduce((sum, s) => sum + s.ticks * 10, 0)
}

const args = process.argv.slice(2)
const text = (name: string) => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const option = (name: string, fallback: number) => Number(text(name) ?? fallback)
const connections = option('--connections', 50)
const seconds = option('--seconds', 10)
const rounds = option('--rounds', 3)
const before = text('--before')
/**
 * Only the rows whose label holds one of these (comma-separated), and the bare server, whose figure is the base of the
 * shares.
 */
const only = text('--only')?.split(',')
const postgres = text('--postgres') ?? 'postgres://root@127.0.0.1:5432/test'
const REPORT = fileURLToPath(new URL('../../bench/wrk-report.lua', import.meta.url))
const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url))
const CEILING = fileURLToPath(new URL('./debit-ceiling.js', import.meta.url))
const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'

/** Starts a server process and resolves with its port, read from what it prints. */
function start(command: readonly string[], pattern: RegExp): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, command, { stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const read = (chunk: Buffer) => {
      out += chunk.toString()
      const m = pattern.exec(out)
      if (m === null) return
      // From now on the output (the request log) is read and dropped, as a log shipper would.
      child.stdout!.off('data', read).on('data', () => {})
      child.stderr!.off('data', read).on('data', () => {})
      resolve({ child, port: Number(m[1]) })
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.once('exit', () => reject(new Error(out)))
  })
}

const BARE = `
const body = JSON.stringify({ status: 'success', data: { make: 'VW', model: 'Golf', year: 2017, valuation: { average: 55452, median: 53900, p25: 47900, p75: 61900 }, sample_size: 1075, credits_used: 8, credits_remaining: 42 } })
const server = require('node:http').createServer((req, res) => { res.setHeader('Content-Type', 'application/json'); res.end(body) })
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port))`

/** A ledger at `location` with one account rich enough for every run; its key. */
async function benchAccount(location: string): Promise<string> {
  await migrateLedger(location)
  const ledger = await openLedger(location)
  try {
    return (await ledger.createAccount('bench@example.pl', 1_000_000_000, 'grant', 'bench')).key
  } finally {
    await ledger.close()
  }
}

/** The wrk script of a row: its own Lua (how it makes each request), then the report. */
function script(lua: string | undefined): string {
  if (lua === undefined) return REPORT
  const path = join(mkdtempSync(join(tmpdir(), 'carmarket-bench-wrk-')), 'row.lua')
  writeFileSync(path, `${lua}\n${readFileSync(REPORT, 'utf8')}`)
  return path
}

/** One wrk run against a URL with `count` connections. */
function wrk(url: string, headers: Record<string, string>, count: number, lua?: string): Promise<Result> {
  const args = [
    '-t1',
    `-c${count}`,
    `-d${seconds}s`,
    '-s',
    script(lua),
    ...Object.entries(headers).flatMap(([n, v]) => ['-H', `${n}: ${v}`]),
    url,
  ]
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.once('error', (error) =>
      reject(new Error(`wrk could not be started (apt-get install wrk): ${error.message}`)),
    )
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (code !== 0 || line === undefined) reject(new Error(`wrk failed (${code}): ${out}`))
      else resolve(JSON.parse(line) as Result)
    })
  })
}

/**
 * The connections split between the runtimes, one wrk each, at once: their requests added, each percentile the worst of
 * them.
 */
async function load(
  ports: readonly number[],
  path: string,
  headers: Record<string, string>,
  lua?: string,
): Promise<Result> {
  const parts = await Promise.all(
    ports.map((port, i) =>
      wrk(
        `http://127.0.0.1:${port}${path}`,
        headers,
        Math.floor(connections / ports.length) + (i < connections % ports.length ? 1 : 0),
        lua,
      ),
    ),
  )
  const worst = (field: 'p50_ms' | 'p90_ms' | 'p99_ms' | 'p999_ms') => Math.max(...parts.map((p) => p[field]))
  const sum = (field: 'requests_per_second' | 'non2xx' | 'errors') => parts.reduce((total, p) => total + p[field], 0)
  return {
    requests_per_second: sum('requests_per_second'),
    p50_ms: worst('p50_ms'),
    p90_ms: worst('p90_ms'),
    p99_ms: worst('p99_ms'),
    p999_ms: worst('p999_ms'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
  }
}

/** Debits per ledger commit of runtimes, from their /metrics: the answered keyed calls over the charge commits. */
async function debitsPerCommit(ports: readonly number[]): Promise<number> {
  let debits = 0
  let commits = 0
  for (const port of ports) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    const value = (series: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${series} `))
          ?.slice(series.length + 1) ?? 0,
      )
    debits += value(`carmarket_http_requests_total{route="${VALUATION.split('?')[0]}",status="200"}`)
    commits += value('carmarket_ledger_commits_total{kind="charge"}')
  }
  return debits / commits
}

interface Server {
  readonly label: string
  readonly path: string
  readonly headers: Record<string, string>
  /** Lua for wrk that makes each request (a method, a body, a header of its own per request). */
  readonly lua?: string
  /** Calls each request stands for (a batch's items), for the calls/s column. */
  readonly calls?: number
  /** Starts the row's processes: the ports wrk loads, and the processes to stop after. */
  readonly start: () => Promise<{ readonly ports: readonly number[]; readonly children: readonly ChildProcess[] }>
  /** Whether its runtimes count the ledger's commits (PostgreSQL's batches); lmdb-js batches out of sight. */
  readonly commits?: boolean
}

const single = (command: readonly string[], pattern: RegExp) => async () => {
  const { child, port } = await start(command, pattern)
  return { ports: [port], children: [child] }
}

const dir = await benchSnapshots(DEFAULT_LISTINGS)
const lmdbLedger = mkdtempSync(join(tmpdir(), 'carmarket-bench-ledger-'))
const beforeLedger = mkdtempSync(join(tmpdir(), 'carmarket-bench-ledger-before-'))
const lmdbKey = await benchAccount(lmdbLedger)
const SERVING = /serving on http:\/\/127\.0\.0\.1:(\d+)/
const serve = (ledger: string, flags: readonly string[], cli = CLI, snapshots = dir) =>
  single(
    [cli, 'serve', '--snapshots', snapshots, '--ledger', ledger, '--port', '0', '--rate-limit', '0', ...flags],
    SERVING,
  )

/** A ledger of the code in `checkout`, its own layout, with an account for the bench; the account's key. */
function accountOf(checkout: string, ledger: string): string {
  const cli = join(checkout, 'dist', 'cli', 'main.js')
  const create = ['accounts', 'create', '--ledger', ledger, '--email', 'bench@example.pl', '--credits', '1000000000']
  return execFileSync(process.execPath, [cli, ...create, '--key-only'], { encoding: 'utf8' }).trim()
}

/** The snapshots the code in `checkout` serves: its own build of the bench's export, built afresh. */
async function snapshotsOf(checkout: string): Promise<string> {
  const snapshots = join(BENCH_DATA, 'answers-before')
  rmSync(snapshots, { recursive: true, force: true })
  const input = await benchExport(DEFAULT_LISTINGS)
  execFileSync(
    process.execPath,
    [join(checkout, 'dist', 'cli', 'main.js'), 'build', '--input', input, '--snapshots', snapshots, '--fx', 'EUR=4.30'],
    { stdio: 'ignore' },
  )
  return snapshots
}
/** The request log is off but in the row that says it is on. */
const QUIET = ['--no-request-log']
const runtimes = (count: number, ledger: string) => async () => {
  const started = await Promise.all(Array.from({ length: count }, () => serve(ledger, QUIET)()))
  return { ports: started.flatMap((s) => s.ports), children: started.flatMap((s) => s.children) }
}

const keyed = { path: VALUATION, headers: { 'x-api-key': lmdbKey } }
const replayed = { ...keyed.headers, 'idempotency-key': `bench-${randomBytes(6).toString('hex')}` }
/** Each request with an Idempotency-Key of its own: every call a first call, its key taken up and stored. */
const NEW_KEY_EACH_CALL = `
local n = 0
local run = tostring(os.time()) .. '-' .. tostring(math.random(1000000000))
request = function()
  n = n + 1
  wrk.headers['Idempotency-Key'] = run .. '-' .. n
  return wrk.format()
end`
const BATCH_ITEMS = 10
/** A batch of valuations of ten models. */
const BATCH_LUA = `
wrk.method = 'POST'
wrk.headers['Content-Type'] = 'application/json'
wrk.body = '${JSON.stringify({
  requests: ['Golf', 'Passat', 'Polo', 'Tiguan', 'Touran', 'Octavia', 'Fabia', 'Superb', 'Astra', 'Corsa']
    .slice(0, BATCH_ITEMS)
    .map((model, i) => ({ operation: 'valuation', make: i < 5 ? 'VW' : i < 8 ? 'Skoda' : 'Opel', model, year: 2017 })),
})}'`
const all: Server[] = [
  { label: 'bare node:http, fixed JSON', start: single(['-e', BARE], /port (\d+)/), path: '/', headers: {} },
  {
    label: 'ceiling: node:http and one durable lmdb-js debit',
    start: single([CEILING], /port (\d+)/),
    path: '/',
    headers: {},
  },
  { label: 'keyed valuation', ...keyed, start: serve(lmdbLedger, QUIET) },
  { label: 'keyed valuation, request log on (read through a pipe)', ...keyed, start: serve(lmdbLedger, []) },
  {
    label: 'keyed valuation, revalidated (If-None-Match: 304, free)',
    ...keyed,
    headers: { ...keyed.headers, 'if-none-match': '*' },
    start: serve(lmdbLedger, QUIET),
  },
  {
    label: 'keyed valuation, a new Idempotency-Key each call',
    ...keyed,
    lua: NEW_KEY_EACH_CALL,
    start: serve(lmdbLedger, QUIET),
  },
  {
    label: 'keyed valuation, one Idempotency-Key (replays, free)',
    ...keyed,
    headers: replayed,
    // Its first call made before the load, so that every call loaded is a replay (none finds it in flight).
    start: async () => {
      const started = await serve(lmdbLedger, QUIET)()
      await fetch(`http://127.0.0.1:${started.ports[0]!}${VALUATION}`, { headers: replayed })
      return started
    },
  },
  {
    label: `keyed batch of ${BATCH_ITEMS} valuations`,
    path: '/v1/market/batch',
    headers: keyed.headers,
    lua: BATCH_LUA,
    calls: BATCH_ITEMS,
    start: serve(lmdbLedger, QUIET),
  },
  {
    label: 'keyed valuation, mileage window',
    ...keyed,
    path: `${VALUATION}&mileage=150000`,
    start: serve(lmdbLedger, QUIET),
  },
  {
    // A narrowed question (data contract 4.1): the key's listings scanned for a version word.
    label: 'keyed valuation, detail (Golf GTI)',
    ...keyed,
    path: VALUATION.replace('model=Golf', 'model=Golf%20GTI'),
    start: serve(lmdbLedger, QUIET),
  },
  {
    label: 'keyed valuation, 2 workers (sharing the 2 cores with wrk)',
    ...keyed,
    start: serve(lmdbLedger, [...QUIET, '--workers', '2']),
  },
  ...(before === undefined
    ? []
    : [
        {
          label: `keyed valuation, the code in ${before}`,
          path: VALUATION,
          headers: { 'x-api-key': accountOf(before, beforeLedger) },
          start: serve(beforeLedger, QUIET, join(before, 'dist', 'cli', 'main.js'), await snapshotsOf(before)),
        },
      ]),
]
const chosen = (label: string) => only === undefined || only.some((part) => label.includes(part))

// The PostgreSQL rows, on a database of the script's own.
const database = `carmarket_bench_${randomBytes(4).toString('hex')}`
const pgRows = ['keyed valuation, PostgreSQL ledger', 'keyed valuation, PostgreSQL ledger, 2 runtimes'].filter(chosen)
if (pgRows.length > 0) {
  await admin(`CREATE DATABASE ${database}`)
  const url = new URL(postgres)
  url.pathname = `/${database}`
  const pgKey = await benchAccount(url.toString())
  const pgKeyed = { path: VALUATION, headers: { 'x-api-key': pgKey }, commits: true }
  all.push(
    { label: 'keyed valuation, PostgreSQL ledger', ...pgKeyed, start: runtimes(1, url.toString()) },
    { label: 'keyed valuation, PostgreSQL ledger, 2 runtimes', ...pgKeyed, start: runtimes(2, url.toString()) },
  )
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgres })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

const servers = all.filter((server, i) => i === 0 || chosen(server.label))
// Rounds in turns, so that a noisy minute of the machine falls on every server alike.
const results = servers.map((): Result[] => [])
try {
  for (let round = 0; round < rounds; round++) {
    for (const [i, server] of servers.entries()) {
      const { ports, children } = await server.start()
      const cpu = () => children.reduce((sum, child) => sum + treeCpuMs(child.pid!), 0)
      const cpuBefore = cpu()
      const result = await load(ports, server.path, server.headers, server.lua)
      result.cpu_us_per_request = ((cpu() - cpuBefore) * 1000) / (result.requests_per_second * seconds)
      if (server.commits === true) result.debits_per_commit = await debitsPerCommit(ports)
      for (const child of children) child.kill('SIGTERM')
      await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))))
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${server.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
      results[i]!.push(result)
    }
  }
} finally {
  rmSync(lmdbLedger, { recursive: true, force: true })
  rmSync(beforeLedger, { recursive: true, force: true })
  if (pgRows.length > 0) await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
}

const median = (runs: Result[]) =>
  [...runs].sort((a, b) => a.requests_per_second - b.requests_per_second)[Math.floor(runs.length / 2)]!
const baseline = median(results[0]!)
const rows = servers.map((server, i) => {
  const r = median(results[i]!)
  const all = results[i]!.map((x) => x.p99_ms.toFixed(1)).join(', ')
  const perCommit = r.debits_per_commit === undefined ? '' : r.debits_per_commit.toFixed(1)
  const calls = Math.round(r.requests_per_second * (server.calls ?? 1)).toLocaleString('en-US')
  // The median of the rounds, apart from the round of the median requests/s: it varies less.
  const cpus = results[i]!.map((x) => x.cpu_us_per_request ?? 0).sort((a, b) => a - b)
  const cpu = `${Math.round(cpus[Math.floor(cpus.length / 2)]!)} µs`
  return `| ${server.label} | ${Math.round(r.requests_per_second).toLocaleString('en-US')} | ${calls} | ${cpu} | ${Math.round((100 * r.requests_per_second) / baseline.requests_per_second)}% | ${r.p50_ms.toFixed(2)} ms | ${r.p90_ms.toFixed(2)} ms | ${r.p99_ms.toFixed(2)} ms (${all}) | ${r.p999_ms.toFixed(1)} ms | ${perCommit} |`
})
process.stdout.write(
  [
    `${connections} connections, ${seconds} s a run, ${rounds} rounds (the median round shown; p99 of every round in brackets), wrk 1 thread a runtime, node ${process.version}`,
    '| server | requests/s | calls/s | server CPU per request | of bare | p50 | p90 | p99 | p99.9 | debits per commit |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
)
