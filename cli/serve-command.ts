import cluster from 'node:cluster'
import { Command } from 'commander'
import { latestYear } from '../format/bounds.js'
import { STORAGE_BROKEN_EXIT, workerLink, runPrimary } from '../runtime/cluster.js'
import { captureConsole, logEvent } from '../runtime/events.js'
import { OutboxMailer } from '../runtime/mailer.js'
import { RequestLog, stdoutWriter } from '../runtime/request-log.js'
import type { Snapshot } from '../query/snapshot.js'
import { exampleCalls } from '../runtime/example-calls.js'
import { servedDocument } from '../runtime/openapi.js'
import { DEFAULTS, DRAIN_MS, Runtime, type Site } from '../runtime/server.js'
import { webRoutes } from '../web/routes.js'
import { openCounters, openLedger } from './engines.js'
import { DEFAULT_SNAPSHOTS, collect, positiveInteger } from './options.js'
import { ensureSampleSnapshot } from './sample-command.js'

interface ServeFlags {
  snapshots: string
  ledger: string
  counters?: string
  host: string
  port: string
  workers: string
  rateLimit: string
  demoQuota: string
  trustedProxy: string[]
  publicUrl: string
  outbox: string
  sample?: boolean
  requestLog: boolean
}

const env = process.env

export const serveCommand = new Command('serve')
  .description('serve the current snapshot over HTTP')
  .option('-s, --snapshots <dir>', 'snapshots folder (env CARMARKET_SNAPSHOTS)', DEFAULT_SNAPSHOTS)
  .option('--ledger <location>', 'ledger folder or postgres:// URL: accounts, and the counters unless --counters is given (env CARMARKET_LEDGER)', env.CARMARKET_LEDGER ?? 'data/ledger')
  .option(
    '--counters <url>',
    'count the rate limit, demo quota and signup throttles in Redis, shared by every machine: redis://HOST:PORT[/DB][?prefix=PREFIX] (env CARMARKET_COUNTERS; by default with the ledger)',
    env.CARMARKET_COUNTERS,
  )
  .option('--host <host>', 'address to listen on (env HOST)', env.HOST ?? '127.0.0.1')
  .option('-p, --port <port>', 'port to listen on (env PORT)', env.PORT ?? '8080')
  .option('-w, --workers <n>', 'worker processes sharing the port, the snapshot and the ledger (env CARMARKET_WORKERS)', env.CARMARKET_WORKERS ?? '1')
  .option('--rate-limit <n>', 'requests per minute per client address, 0 for none (env CARMARKET_RATE_LIMIT)', env.CARMARKET_RATE_LIMIT ?? String(DEFAULTS.rateLimit))
  .option('--demo-quota <n>', 'keyless market calls per address per day, 0 turns the demo tier off (env CARMARKET_DEMO_QUOTA)', env.CARMARKET_DEMO_QUOTA ?? String(DEFAULTS.demoQuota))
  .option('--trusted-proxy <address>', 'a proxy whose X-Forwarded-For is believed (repeatable; env CARMARKET_TRUSTED_PROXIES, comma-separated)', collect, env.CARMARKET_TRUSTED_PROXIES?.split(',').filter(Boolean) ?? [])
  .option('--public-url <url>', 'the address callers reach the service at, for links in answers (env CARMARKET_PUBLIC_URL)', env.CARMARKET_PUBLIC_URL ?? 'http://localhost:8080')
  .option('--outbox <dir>', 'the folder e-mail is written to, one JSON file a message (env CARMARKET_OUTBOX)', env.CARMARKET_OUTBOX ?? 'data/outbox')
  .option('--sample', 'when there is no snapshot yet, generate and build the embedded sample first')
  .option('--no-request-log', 'no JSON line per request on stdout (env CARMARKET_REQUEST_LOG=off)')
  .action(async (flags: ServeFlags) => {
    const workers = positiveInteger(flags.workers, '--workers', 1)
    const port = positiveInteger(flags.port, '--port', 0)
    if (cluster.isPrimary && flags.sample === true) await ensureSampleSnapshot(flags.snapshots)
    if (cluster.isPrimary && workers > 1) {
      process.exitCode = await runPrimary(workers, (address, port) => announce(address, port, `${workers} workers`))
      process.stderr.write('carmarket: stopped\n')
      return
    }
    captureConsole()
    const link = cluster.isWorker ? workerLink() : undefined
    const stdout = flags.requestLog && env.CARMARKET_REQUEST_LOG !== 'off' ? stdoutWriter() : undefined
    const demoQuota = positiveInteger(flags.demoQuota, '--demo-quota', 0)
    const runtime = await Runtime.start(
      {
        snapshots: flags.snapshots,
        // The counters first: a --counters URL that is not one is refused before the ledger is opened.
        counters: await openCounters(flags.ledger, flags.counters),
        ledger: await openLedger(flags.ledger),
        site: siteOf(flags.publicUrl, demoQuota),
        rateLimit: positiveInteger(flags.rateLimit, '--rate-limit', 0),
        demoQuota,
        trustedProxies: flags.trustedProxy,
        publicUrl: flags.publicUrl,
        mailer: new OutboxMailer(flags.outbox),
        requestLog: stdout === undefined ? undefined : new RequestLog(stdout.write),
        gatherMetrics: link?.gather,
        // Requests reach the storage only once the runtime listens, after `stop` is set.
        onStorageBroken: () => stop(STORAGE_BROKEN_EXIT),
      },
      flags.host,
      port,
    )
    let stopping = false
    const stop = (code: number) => {
      if (stopping) return
      stopping = true
      if (cluster.isPrimary) process.stderr.write('carmarket: stopping (finishing requests in flight)\n')
      // Past the drain, whatever still holds the process (a storage write that never
      // returns) must not keep it, or a sibling waiting on its ledger lock, alive: a
      // process killed by a signal releases every lock it held.
      setTimeout(() => {
        logEvent('error', 'stopping took too long; the process ends now')
        process.kill(process.pid, 'SIGKILL')
      }, DRAIN_MS + 5_000).unref()
      void runtime
        .close()
        .then(() => stdout?.end())
        .then(() => process.exit(code))
    }
    process.on('SIGTERM', () => stop(0))
    process.on('SIGINT', () => stop(0))
    // A bug: told, and the process stops the way it would on SIGTERM (its exit code says
    // it failed), so requests in flight are answered and the ledger is closed cleanly.
    process.on('uncaughtException', (error) => {
      logEvent('error', 'uncaught exception; stopping', { error: String(error.stack ?? error) })
      stop(1)
    })
    process.on('SIGHUP', () => void runtime.reload())
    if (link === undefined) {
      const { address, port } = runtime.address()
      announce(address, port, 'one process')
    } else {
      link.serve({ sample: () => runtime.ownMetrics(), reload: () => void runtime.reload(), stop: () => stop(0) })
      // The primary gone (killed): nobody would restart or stop this worker.
      process.once('disconnect', () => stop(0))
    }
  })

function announce(address: string, port: number, processes: string): void {
  process.stderr.write(`carmarket serving on http://${address.includes(':') ? `[${address}]` : address}:${port} (${processes})\n`)
}

/**
 * The OpenAPI document and the web pages made from it, for the snapshot served: its
 * latest production year (next year's while there is none) and the answers of the
 * example requests.
 */
export function siteOf(publicUrl: string, demoQuota: number): (snapshot: Snapshot | undefined) => Site {
  const base = publicUrl.replace(/\/+$/, '')
  return (snapshot) => {
    const examples = snapshot === undefined ? new Map() : exampleCalls(snapshot)
    const document = servedDocument(snapshot?.maxYear ?? latestYear(new Date().getUTCFullYear()), base, examples)
    const served = snapshot === undefined ? undefined : { manifest: snapshot.manifest, examples }
    return { document, pages: webRoutes(document.body, base, demoQuota, served) }
  }
}
