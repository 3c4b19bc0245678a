import { execFile, spawn, type ChildProcess } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { open } from 'lmdb'
import type { Test } from 'tap'
import { request } from 'undici'
import { runBuild, type BuildOptions, type BuildReport } from '../build/run-build.js'
import { COLUMNS } from '../format/export-columns.js'
import { fileDigests } from '../format/snapshot-files.js'
import { CURRENT_LINK, MANIFEST_FILE, SNAPSHOT_FILE, type PublishedManifest } from '../format/schema.js'
import type { ValuationData } from '../query/answers.js'
import { Snapshot } from '../query/snapshot.js'
import { COUNTERS_FILE } from '../ledger/lmdb-counters.js'
import { openCounters, openLedger } from '../cli/engines.js'
import { siteOf } from '../cli/serve-run.js'
import { OutboxMailer, type Mailer } from '../runtime/mailer.js'
import { RequestLog, type RequestRecord } from '../runtime/request-log.js'
import { DEFAULTS } from '../runtime/defaults.js'
import { Runtime, type RuntimeOptions } from '../runtime/server.js'

/** A row of a test export: every column of the data contract, as text. */
export interface Row {
  listing_id: string
  make: string
  model: string
  year: string | number
  price: string | number
  currency: string
  mileage_km: string | number
  fuel_type: string
  gearbox: string
  imported: string
  voivodeship: string
  first_seen: string
  last_seen: string
  active: string
  condition: string
  version: string
  generation: string
  body_type: string
  power_hp: string | number
  engine_capacity_cm3: string | number
}

let nextId = 1
/** A valid row (a 2017 Golf, closed, in mazowieckie) with some fields replaced. */
export function row(fields: Partial<Row> = {}): Row {
  return {
    listing_id: `L${nextId++}`,
    make: 'Volkswagen',
    model: 'Golf',
    year: 2017,
    price: 50_000,
    currency: '',
    mileage_km: 100_000,
    fuel_type: 'Diesel',
    gearbox: 'Manualna',
    imported: 'false',
    voivodeship: 'mazowieckie',
    first_seen: '2026-08-01',
    last_seen: '2026-09-01',
    active: 'false',
    condition: '',
    version: '',
    generation: '',
    body_type: '',
    power_hp: '',
    engine_capacity_cm3: '',
    ...fields,
  }
}

/** `n` rows, the i-th made by `make(i)`. */
export function rows(n: number, make: (i: number) => Partial<Row>): Row[] {
  return Array.from({ length: n }, (_, i) => row(make(i)))
}

function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

export function toCsv(data: readonly Row[], columns: readonly (keyof Row)[] = COLUMNS): string {
  return [columns.join(','), ...data.map((r) => columns.map((c) => csvField(String(r[c]))).join(','))].join('\n') + '\n'
}

export function toNdjson(data: readonly Row[]): string {
  return data.map((r) => JSON.stringify(r)).join('\n') + '\n'
}

export function gzip(text: string | Buffer): Buffer {
  return gzipSync(text)
}

/** A request log kept in memory: the log to give a runtime, and the records it has written so far. */
export function memoryLog(): { log: RequestLog; lines: () => RequestRecord[] } {
  const written: string[] = []
  const log = new RequestLog((text) => written.push(text))
  const lines = () => {
    log.flush()
    return written
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RequestRecord)
  }
  return { log, lines }
}

/**
 * A new folder of its own under the test's fixture folder, removed after the test.
 * (t.testdir() gives one folder per test and empties it on every call.)
 */
export function freshDir(t: Test): string {
  mkdirSync(t.testdirName, { recursive: true })
  const dir = mkdtempSync(join(t.testdirName, 'run-'))
  // A server of the test may still be writing there as it is killed: the removal tries again rather than fail the test.
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }))
  return dir
}

/** Writes an export into a fresh folder of the test and returns its path. */
export function writeExport(t: Test, name: string, content: string | Buffer): string {
  const dir = freshDir(t)
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

export interface Built {
  readonly report: BuildReport
  readonly snapshot: Snapshot
  readonly snapshots: string
}

/** Builds an export into a fresh snapshots folder of the test and opens the result. */
export async function build(
  t: Test,
  content: string | Buffer,
  options: Partial<BuildOptions> = {},
  name = 'export.csv',
): Promise<Built> {
  const dir = freshDir(t)
  const input = join(dir, name)
  writeFileSync(input, content)
  const snapshots = options.snapshots ?? join(dir, 'snapshots')
  const report = await runBuild({ input, snapshots, asOf: '2026-09-30', ...options })
  const snapshot = Snapshot.open(snapshots)
  t.teardown(() => snapshot.close())
  return { report, snapshot, snapshots }
}

/**
 * Copies a published snapshot's files into a new folder `to`, writable (a build publishes them read-only) so that a
 * test may change them.
 */
export function copySnapshot(from: string, to: string): void {
  mkdirSync(to)
  for (const file of [SNAPSHOT_FILE, MANIFEST_FILE]) {
    copyFileSync(join(from, file), join(to, file))
    chmodSync(join(to, file), 0o644)
  }
}

/**
 * Makes manifest.json list the digests of the files of `dir` as they are now, as if a
 * build had written them: a copy changed on purpose then has no flaw but the change.
 */
export function reseal(dir: string): void {
  const path = join(dir, MANIFEST_FILE)
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as PublishedManifest
  writeFileSync(path, JSON.stringify({ ...manifest, files: fileDigests(dir, Object.keys(manifest.files)) }))
}

/** Points `current` at a folder of `snapshots` the way a build publishes: a new link renamed over the old. */
export function pointCurrent(snapshots: string, folder: string): void {
  const link = join(snapshots, `.link-${folder}`)
  symlinkSync(folder, link)
  renameSync(link, join(snapshots, CURRENT_LINK))
}

/**
 * The data contract's figures computed the plain way, independently of the code under
 * test: sort, interpolate, average, round half away from zero.
 */
export const reference = {
  percentile(values: readonly number[], p: number): number {
    const x = [...values].sort((a, b) => a - b)
    const h = (x.length - 1) * p
    const lo = Math.floor(h)
    return lo + 1 < x.length ? x[lo]! + (h - lo) * (x[lo + 1]! - x[lo]!) : x[lo]!
  },
  mean(values: readonly number[]): number {
    return values.reduce((s, v) => s + v, 0) / values.length
  },
  round(x: number, decimals = 0): number {
    const f = 10 ** decimals
    return (Math.sign(x) * Math.round(Math.abs(x) * f)) / f
  },
  quartiles(values: readonly number[]) {
    return {
      average: reference.round(reference.mean(values)),
      median: reference.round(reference.percentile(values, 0.5)),
      p25: reference.round(reference.percentile(values, 0.25)),
      p75: reference.round(reference.percentile(values, 0.75)),
    }
  },
  pct(value: number, base: number): number {
    return reference.round(((value - base) / base) * 100, 1)
  },
}

/** The query parameters of a plain request. */
/** A valuation's `filters` as its answer echoes them (null where not given), with `given` set. */
export function filtersOf(given: Partial<ValuationData['filters']> = {}): ValuationData['filters'] {
  return { fuel_type: null, gearbox: null, body_type: null, version: null, power_hp: null, mileage: null, ...given }
}

/** What `matched` says of a question nothing narrowed (contract 4.1): no filter, no version word, nothing unresolved. */
export const NOT_NARROWED = {
  fuel_type: null,
  gearbox: null,
  body_type: null,
  version_words: [] as string[],
  unresolved: [] as string[],
}

/** The names of an answer's `matched` (contract 4): its makes, models and match type, without what narrowed it (4.1). */
export function names(matched: {
  readonly makes: readonly string[]
  readonly models: readonly string[]
  readonly match_type: string
}) {
  return { makes: matched.makes, models: matched.models, match_type: matched.match_type }
}

export function vehicle(make: string, model: string, year: number) {
  return { make, model, year, fuel_type: null, gearbox: null, mileage: null } as const
}

/** The compiled CLI, run as a real child process. */
export const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url))

/** What a CLI run gave: its exit code (null when killed) and its output. */
export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * The compiled CLI run to its end (killed after `timeout` ms), in `cwd`, without the
 * snapshots folder of the environment; `uid` and `gid` run it as another user, which
 * needs root, and without the test runner's hooks, which write files only this user may
 * (the runner puts them in NODE_OPTIONS of every child, so env(1) takes them out).
 */
export function carmarket(
  args: readonly string[],
  cwd?: string,
  { timeout = 60_000, ...as }: { readonly timeout?: number; readonly uid?: number; readonly gid?: number } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env }
    delete env.CARMARKET_SNAPSHOTS
    const [file, argv] =
      as.uid === undefined
        ? [process.execPath, [CLI, ...args]]
        : ['env', ['-u', 'NODE_OPTIONS', process.execPath, CLI, ...args]]
    execFile(file, argv, { timeout, cwd, env, maxBuffer: 64 << 20, ...as }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr })
    })
  })
}

/**
 * `carmarket serve` in a child process on a free port (the one `options.env` names as PORT, if it does); resolves once
 * it listens.
 */
export async function spawnServe(
  t: Test,
  args: readonly string[],
  options: { readonly stdout?: boolean; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcess; port: number; log: () => string; stdout: () => string }> {
  const portArgs = options.env?.PORT === undefined ? ['--port', '0'] : []
  const child = spawn(process.execPath, [CLI, 'serve', ...portArgs, ...args], {
    stdio: ['ignore', options.stdout === true ? 'pipe' : 'ignore', 'pipe'],
    env: options.env ?? process.env,
  })
  let log = ''
  let stdout = ''
  const running = () => child.exitCode === null && child.signalCode === null
  t.teardown(async () => {
    // A failed test tells how its server ended (given a moment, if it is stopping) and what it wrote on stderr.
    if (!t.passing()) {
      if (running())
        await new Promise((resolve) => {
          child.once('exit', resolve)
          setTimeout(resolve, 1_000)
        })
      const ended = running() ? 'is still running' : `exited with code ${child.exitCode}, signal ${child.signalCode}`
      t.comment(`the server (pid ${child.pid}) ${ended}; its stderr:\n${log}`)
    }
    child.kill('SIGKILL')
  })
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString()
      const m = /serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(log)
      if (m) resolve(Number(m[1]))
    })
    child.once('exit', () => reject(new Error(`serve exited early: ${log}`)))
  })
  return { child, port, log: () => log, stdout: () => stdout }
}

/** A key that differs from `key` in its last character only (a near miss, never the key itself). */
export function otherKey(key: string): string {
  return `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`
}

/** A metric's value in Prometheus text, by its full series name with labels. */
export function metric(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

/** The messages an outbox folder holds for an address (for anyone without one), oldest first. */
export function outboxMail(outbox: string, to?: string): { to: string; subject: string; text: string }[] {
  return readdirSync(outbox)
    .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(outbox, f), 'utf8')) as { to: string; subject: string; text: string })
    .filter((m) => to === undefined || m.to === to)
}

/** An account with `credits` (a grant) on a ledger (a folder or a PostgreSQL URL) a server under test uses. */
export async function account(
  ledgerLocation: string,
  email: string,
  credits: number,
): Promise<{ id: string; key: string }> {
  const ledger = await openLedger(ledgerLocation)
  try {
    const { account, key } = await ledger.createAccount(email, credits, 'grant', 'test')
    return { id: account.id, key }
  } finally {
    await ledger.close()
  }
}

/** The live processes whose parent is `pid` (not those dead and waiting for it to read their end). */
export function children(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
        const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        // A zombie (Z) has died and waits only for its parent to read its end.
        return state !== 'Z' && Number(parent) === pid
      } catch {
        return false
      }
    })
    .map(Number)
}

/** The keyless calls a ledger folder's counters hold against the demo quota, over every client address and day. */
export function demoCalls(t: Test, ledgerDir: string): number {
  const counters = open<number, [string, number, string]>({ path: join(ledgerDir, COUNTERS_FILE), readOnly: true })
  t.teardown(() => counters.close())
  return [...counters.getRange({ start: ['demo'], end: ['demo', Infinity] })].reduce((sum, { value }) => sum + value, 0)
}

type Wired = 'ledger' | 'counters' | 'mailer' | 'site'
type Defaulted = 'rateLimit' | 'demoQuota' | 'trustedProxies' | 'publicUrl'

/**
 * The runtime's options as a test gives them: the ledger and the counters as locations,
 * the site and the engines left to serve, and what most tests leave alone defaulted.
 */
export type TestRuntimeOptions = Omit<RuntimeOptions, Wired | Defaulted> & {
  /** The ledger's location: an LMDB folder or a PostgreSQL URL; a fresh folder by default. */
  readonly ledger?: string
  /** The counters' URL (Redis); by default the ledger's engine keeps them. */
  readonly counters?: string
  readonly mailer?: Mailer
  /** 0 (no limit) by default. */
  readonly rateLimit?: number
  /** The service's default by default. */
  readonly demoQuota?: number
  /** None by default. */
  readonly trustedProxies?: readonly string[]
  /** http://localhost by default. */
  readonly publicUrl?: string
}

/** The body of an API answer: the spec's envelope. */
export interface ApiBody {
  readonly status: string
  readonly data?: any
  readonly error?: any
}

/** An answer as it came: status, headers and body text. */
export interface Reply {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
}

/** A header of a reply, by its name in any case; a repeated one as one list. */
export function header(reply: Reply, name: string): string | undefined {
  const value = reply.headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(', ') : value
}

/** An API answer, its body parsed. */
export interface ApiAnswer extends Reply {
  readonly body: ApiBody
}

export interface CallOptions {
  /** Sent as X-API-Key. */
  readonly key?: string
  readonly headers?: Readonly<Record<string, string>>
}

/** A runtime under test, and a client of its API. */
export interface Served {
  readonly runtime: Runtime
  /** Its address, http://127.0.0.1:PORT. */
  readonly base: string
  get(path: string, options?: CallOptions): Promise<ApiAnswer>
  /** A GET whose body is not JSON (an image), as it came. */
  fetch(path: string, options?: CallOptions): Promise<Reply>
  head(path: string, options?: CallOptions): Promise<Reply>
  /** `body` is sent as it is when it is a string (application/json unless the headers say otherwise), else as JSON. */
  post(path: string, body?: unknown, options?: CallOptions): Promise<ApiAnswer>
}

/**
 * The runtime wired as `carmarket serve` wires it, on the ledger at `options.ledger` (a
 * folder or a URL) and the counters `options.counters` names (by default the ledger's),
 * mail in the ledger folder's `outbox` unless a mailer is given; listening on
 * 127.0.0.1 and a free port unless told otherwise, and stopped when the test ends.
 */
export async function serve(
  t: Test,
  options: TestRuntimeOptions,
  listen: { readonly host?: string; readonly port?: number } = {},
): Promise<Served> {
  const ledger = options.ledger ?? freshDir(t)
  const publicUrl = options.publicUrl ?? 'http://localhost'
  const demoQuota = options.demoQuota ?? DEFAULTS.demoQuota
  const runtime = await Runtime.start(
    {
      ...options,
      ledger: await openLedger(ledger),
      counters: await openCounters(ledger, options.counters),
      mailer: options.mailer ?? new OutboxMailer(outboxBeside(ledger)),
      site: siteOf(demoQuota),
      rateLimit: options.rateLimit ?? 0,
      demoQuota,
      trustedProxies: options.trustedProxies ?? [],
      publicUrl,
    },
    listen.host ?? '127.0.0.1',
    listen.port ?? 0,
  )
  t.teardown(() => runtime.close())
  const base = `http://127.0.0.1:${runtime.address().port}`
  type Call = CallOptions & { readonly body?: string | undefined }
  const call = async (method: 'GET' | 'HEAD' | 'POST', path: string, options: Call = {}): Promise<Reply> => {
    const headers = { ...(options.key === undefined ? {} : { 'x-api-key': options.key }), ...options.headers }
    const response = await request(`${base}${path}`, { method, headers, body: options.body })
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
  }
  const parsed = (reply: Reply): ApiAnswer => ({ ...reply, body: JSON.parse(reply.text) as ApiBody })
  return {
    runtime,
    base,
    get: async (path, options) => parsed(await call('GET', path, options)),
    fetch: (path, options) => call('GET', path, options),
    head: (path, options) => call('HEAD', path, options),
    post: async (path, body, options = {}) =>
      parsed(
        await call('POST', path, {
          ...options,
          body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
          headers: body === undefined ? options.headers : { 'content-type': 'application/json', ...options.headers },
        }),
      ),
  }
}

/** The outbox in an LMDB ledger folder; a ledger at a URL has no folder to put one in. */
function outboxBeside(ledger: string): string {
  if (URL.canParse(ledger)) throw new Error('a test runtime on a ledger at a URL needs its own mailer')
  return join(ledger, 'outbox')
}

/**
 * Waits, if need be, until a new minute has more than `seconds` left: a fixed-window count must not straddle two
 * minutes.
 */
export async function awayFromMinuteEnd(seconds: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 100))
}
