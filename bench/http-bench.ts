/**
 * Keyed valuation over HTTP next to a bare node:http server answering a fixed JSON body,
 * measured in the same run with the same load (autocannon, in this process; each server
 * in a child process of its own): requests per second and p50/p99 latency.
 *
 *   npm run bench:http -- [--connections 50] [--seconds 10]
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runBuild } from '../build/run-build.js'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { SAMPLE_EUR_RATE, generateExport } from '../sample/generate.js'

interface Result {
  requests: { average: number }
  latency: { p50: number; p99: number }
  non2xx: number
  errors: number
}
type Autocannon = (options: Record<string, unknown>) => Promise<Result>
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args[at + 1]) : fallback
}
const connections = option('--connections', 50)
const seconds = option('--seconds', 10)
const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url))
const data = join('bench', '.data')

async function snapshots(): Promise<string> {
  const dir = join(data, 'answers-1400000')
  if (!existsSync(join(dir, 'current'))) {
    const file = join(data, 'listings-1400000.csv.gz')
    if (!existsSync(file)) await generateExport({ out: file, seed: 'bench', asOf: '2026-09-30' })
    await runBuild({ input: file, snapshots: dir, fx: new Map([['EUR', SAMPLE_EUR_RATE]]) })
  }
  return dir
}

/** Starts a server process and resolves with its port, read from what it prints. */
function start(command: string[], pattern: RegExp): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, command, { stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const read = (chunk: Buffer) => {
      out += chunk.toString()
      const m = pattern.exec(out)
      if (m) resolve({ child, port: Number(m[1]) })
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

const load = (url: string, headers: Record<string, string> = {}) => autocannon({ url, connections, duration: seconds, headers })
const rows: string[] = []
const bare = await start(['-e', BARE], /port (\d+)/)
const baseline = await load(`http://127.0.0.1:${bare.port}/`)
bare.child.kill()
rows.push(`| bare node:http, fixed JSON | ${Math.round(baseline.requests.average).toLocaleString('en-US')} | ${baseline.latency.p50} ms | ${baseline.latency.p99} ms | 100% |`)

const served = await start([CLI, 'serve', '--snapshots', await snapshots(), '--ledger', ledgerDir, '--port', '0', '--rate-limit', '0'], /serving on http:\/\/127\.0\.0\.1:(\d+)/)
for (const [label, path] of [
  ['keyed valuation', '/v1/market/valuation?make=VW&model=Golf&year=2017'],
  ['keyed valuation, mileage window', '/v1/market/valuation?make=VW&model=Golf&year=2017&mileage=150000'],
] as const) {
  const result = await load(`http://127.0.0.1:${served.port}${path}`, { 'x-api-key': key })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  rows.push(
    `| ${label} | ${Math.round(result.requests.average).toLocaleString('en-US')} | ${result.latency.p50} ms | ${result.latency.p99} ms | ${Math.round((100 * result.requests.average) / baseline.requests.average)}% |`,
  )
}
served.child.kill('SIGTERM')
rmSync(ledgerDir, { recursive: true, force: true })
process.stdout.write(
  [`${connections} connections, ${seconds} s each, node ${process.version}`, '| server | requests/s | p50 | p99 | of bare |', '|---|---|---|---|---|', ...rows, ''].join('\n'),
)
