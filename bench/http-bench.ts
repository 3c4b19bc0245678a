/**
 * Keyed valuation over HTTP next to a bare node:http server answering a fixed JSON body,
 * measured in the same run with the same load: wrk (Debian's package: apt-get install
 * wrk) in a process of its own, one thread, against each server in a process of its own.
 * Requests per second and latency percentiles; each server is measured `--rounds` times,
 * in turns, and the round with the median requests per second is reported.
 *
 * `--before DIR` adds a keyed valuation row served by another checkout's compiled code
 * (DIR/dist/cli/main.js, e.g. a git worktree of the last release), so that a change is
 * judged against the code before it in the same run.
 *
 * `--only A,B` measures only the rows whose label holds A or B (and the bare server).
 *
 *   npm run bench:http -- [--connections 50] [--seconds 10] [--rounds 3] [--before DIR] [--only A,B]
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { DEFAULT_LISTINGS } from '../sample/generate.js'
import { benchSnapshots } from './bench-data.js'

interface Result {
  requests_per_second: number
  p50_ms: number
  p90_ms: number
  p99_ms: number
  p999_ms: number
  non2xx: number
  errors: number
}

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args[at + 1]) : fallback
}
const connections = option('--connections', 50)
const seconds = option('--seconds', 10)
const rounds = option('--rounds', 3)
const text = (name: string) => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const before = text('--before')
/** Only the rows whose label holds one of these (comma-separated), and the bare server, whose figure is the base of the shares. */
const only = text('--only')?.split(',')
const REPORT = fileURLToPath(new URL('../../bench/wrk-report.lua', import.meta.url))
const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url))
const CEILING = fileURLToPath(new URL('./debit-ceiling.js', import.meta.url))
/** Starts a server process and resolves with its port, read from what it prints. */
function start(command: string[], pattern: RegExp): Promise<{ child: ChildProcess; port: number }> {
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

const ledgerDir = mkdtempSync(join(tmpdir(), 'carmarket-bench-ledger-'))
const ledger = LmdbLedger.open(ledgerDir)
const { key } = await ledger.createAccount('bench@example.pl', 1_000_000_000, 'grant', 'bench')
await ledger.close()

/** One wrk run against a URL. */
function wrk(url: string, headers: Record<string, string>): Promise<Result> {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '-s', REPORT, ...Object.entries(headers).flatMap(([n, v]) => ['-H', `${n}: ${v}`]), url]
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.once('error', (error) => reject(new Error(`wrk could not be started (apt-get install wrk): ${error.message}`)))
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (code !== 0 || line === undefined) reject(new Error(`wrk failed (${code}): ${out}`))
      else resolve(JSON.parse(line) as Result)
    })
  })
}

interface Server {
  readonly label: string
  readonly start: () => Promise<{ child: ChildProcess; port: number }>
  readonly path: string
  readonly headers: Record<string, string>
}

const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'
const all: Server[] = [
  { label: 'bare node:http, fixed JSON', start: () => start(['-e', BARE], /port (\d+)/), path: '/', headers: {} },
  { label: 'ceiling: node:http and one durable lmdb-js debit', start: () => start([CEILING], /port (\d+)/), path: '/', headers: {} },
  ...([
    ['keyed valuation', VALUATION, ['--no-request-log']],
    ['keyed valuation, request log on (read through a pipe)', VALUATION, []],
    ['keyed valuation, mileage window', `${VALUATION}&mileage=150000`, ['--no-request-log']],
    ['keyed valuation, 2 workers (sharing the 2 cores with wrk)', VALUATION, ['--no-request-log', '--workers', '2']],
  ] as const).map(([label, path, flags]) => ({ label, path, headers: { 'x-api-key': key }, start: () => serve(flags) })),
  ...(before === undefined
    ? []
    : [{ label: `keyed valuation, the code in ${before}`, path: VALUATION, headers: { 'x-api-key': key }, start: () => serve(['--no-request-log'], join(before, 'dist', 'cli', 'main.js')) }]),
]
const servers = all.filter((server, i) => i === 0 || only === undefined || only.some((part) => server.label.includes(part)))
const dir = await benchSnapshots(DEFAULT_LISTINGS)
function serve(flags: readonly string[], cli = CLI) {
  return start([cli, 'serve', '--snapshots', dir, '--ledger', ledgerDir, '--port', '0', '--rate-limit', '0', ...flags], /serving on http:\/\/127\.0\.0\.1:(\d+)/)
}

// Rounds in turns, so that a noisy minute of the machine falls on every server alike.
const results = servers.map((): Result[] => [])
for (let round = 0; round < rounds; round++) {
  for (const [i, server] of servers.entries()) {
    const { child, port } = await server.start()
    const result = await wrk(`http://127.0.0.1:${port}${server.path}`, server.headers)
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${server.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
    results[i]!.push(result)
  }
}
rmSync(ledgerDir, { recursive: true, force: true })

const median = (runs: Result[]) => [...runs].sort((a, b) => a.requests_per_second - b.requests_per_second)[Math.floor(runs.length / 2)]!
const baseline = median(results[0]!)
const rows = servers.map((server, i) => {
  const r = median(results[i]!)
  const all = results[i]!.map((x) => x.p99_ms.toFixed(1)).join(', ')
  return `| ${server.label} | ${Math.round(r.requests_per_second).toLocaleString('en-US')} | ${Math.round((100 * r.requests_per_second) / baseline.requests_per_second)}% | ${r.p50_ms.toFixed(2)} ms | ${r.p90_ms.toFixed(2)} ms | ${r.p99_ms.toFixed(2)} ms (${all}) | ${r.p999_ms.toFixed(1)} ms |`
})
process.stdout.write(
  [
    `${connections} connections, ${seconds} s a run, ${rounds} rounds (the median round shown; p99 of every round in brackets), wrk 1 thread, node ${process.version}`,
    '| server | requests/s | of bare | p50 | p90 | p99 | p99.9 |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
)
