import type { KeyObject } from 'node:crypto'
import cluster from 'node:cluster'
import { latestYear } from '../format/bounds.js'
import { STORAGE_BROKEN_EXIT, workerLink, runPrimary } from '../runtime/cluster.js'
import { captureConsole, logEvent } from '../runtime/events.js'
import type { Ledger } from '../ledger/types.js'
import { MailDelivery } from '../runtime/mail-delivery.js'
import type { StripeCheckout } from '../runtime/stripe-checkout.js'
import { OutboxMailer, QueuedMailer, type Mailer } from '../runtime/mailer.js'
import { RequestLog, stdoutWriter } from '../runtime/request-log.js'
import type { Snapshot } from '../query/snapshot.js'
import { exampleCalls } from '../runtime/example-calls.js'
import type { CorsOrigins } from '../runtime/cors.js'
import type { Links } from '../runtime/links.js'
import { listenedUrl } from '../runtime/listened-url.js'
import { servedDocument } from '../runtime/openapi.js'
import { DRAIN_MS, Runtime, type RuntimeOptions, type Site } from '../runtime/server.js'
import { webRoutes } from '../web/routes.js'
import { openCounters, openLedger } from './engines.js'
import { UsageError, told } from './handle-error.js'
import {
  prefixLength,
  corsOrigins,
  emailAddress,
  httpUrl,
  mailFrom,
  positiveInteger,
  smtpUrl,
  tcpPort,
  verifyKey,
} from './options.js'
import { startBanner } from './start-banner.js'
import { outboxFailure, startFailure } from './start-failure.js'
import { ensureSampleSnapshot } from './sample-command.js'

/** The options of `carmarket serve` as given (serve-command.ts declares them). */
export interface ServeFlags {
  snapshots: string
  ledger: string
  counters?: string
  host: string
  port: string
  workers: string
  rateLimit: string
  demoQuota: string
  trustedProxy: string[]
  ipv6Prefix: string
  publicUrl?: string
  supportEmail?: string
  corsOrigins: string
  outbox: string
  smtpUrl?: string
  mailFrom?: string
  mailRetryAfter: string
  mailGiveUpAfter: string
  salesEmail?: string
  stripeApiBase: string
  verifyKey?: string
  sample?: boolean
  requestLog: boolean
}

/** The options that are numbers or addresses, checked. */
interface Settings {
  readonly workers: number
  readonly port: number
  readonly rateLimit: number
  readonly demoQuota: number
  readonly ipv6Prefix: number
  readonly publicUrl: string | undefined
  readonly verifyKey: KeyObject | undefined
  readonly supportEmail: string | undefined
  readonly corsOrigins: CorsOrigins
  readonly mail: Relay | undefined
  readonly salesEmail: string | undefined
  readonly stripe: StripeSettings | undefined
}

/** An SMTP relay to send mail through, and how. */
interface Relay {
  readonly url: URL
  readonly from: string
  readonly retryAfterMs: number
  readonly giveUpAfterMs: number
}

const env = process.env

/** `carmarket serve` with its options (serve-command.ts). */
export async function serve(flags: ServeFlags): Promise<void> {
  // Checked in the primary too: a wrong option is told once, before any worker starts.
  const settings: Settings = {
    workers: positiveInteger(flags.workers, '--workers', 1),
    port: tcpPort(flags.port, '--port'),
    rateLimit: positiveInteger(flags.rateLimit, '--rate-limit', 0),
    demoQuota: positiveInteger(flags.demoQuota, '--demo-quota', 0),
    ipv6Prefix: prefixLength(flags.ipv6Prefix, '--ipv6-prefix'),
    publicUrl: flags.publicUrl === undefined ? undefined : httpUrl(flags.publicUrl, '--public-url').replace(/\/+$/, ''),
    supportEmail: flags.supportEmail === undefined ? undefined : emailAddress(flags.supportEmail, '--support-email'),
    corsOrigins: corsOrigins(flags.corsOrigins, '--cors-origins'),
    verifyKey: flags.verifyKey === undefined ? undefined : verifyKey(flags.verifyKey, '--verify-key'),
    mail: relayOf(flags),
    salesEmail: flags.salesEmail === undefined ? undefined : emailAddress(flags.salesEmail, '--sales-email'),
    stripe: stripeSettings(flags.stripeApiBase),
  }
  if (cluster.isPrimary && flags.sample === true) await ensureSampleSnapshot(flags.snapshots)
  if (cluster.isPrimary && settings.workers > 1) {
    const stopped = await runPrimary(settings.workers, (address, port) => {
      announce(
        address,
        port,
        `${settings.workers} workers`,
        settings.publicUrl ?? listenedUrl(flags.host, port),
        flags.ledger,
        mailDescription(settings.mail, flags.outbox),
      )
    })
    process.stderr.write(stopped.failure?.text ?? 'carmarket: stopped\n')
    process.exitCode = stopped.code
    return
  }
  captureConsole()
  const link = cluster.isWorker ? workerLink() : undefined
  const stdout = flags.requestLog && env.CARMARKET_REQUEST_LOG !== 'off' ? stdoutWriter() : undefined
  const requestLog =
    stdout === undefined
      ? undefined
      : new RequestLog(stdout.write, Date.now, process.stdout.isTTY === true ? 'terminal' : 'json')
  let runtime: Runtime
  try {
    // The counters first: a --counters URL that is not one is refused before the ledger is opened.
    const counters = await openCounters(flags.ledger, flags.counters)
    const ledger = await openLedger(flags.ledger)
    const { mailer, delivery } = await mailOf(settings.mail, flags.outbox, ledger)
    const options: RuntimeOptions = {
      snapshots: flags.snapshots,
      verifyKey: settings.verifyKey,
      counters,
      ledger,
      site: siteOf(settings.demoQuota),
      rateLimit: settings.rateLimit,
      demoQuota: settings.demoQuota,
      trustedProxies: flags.trustedProxy,
      ipv6Prefix: settings.ipv6Prefix,
      publicUrl: settings.publicUrl,
      supportEmail: settings.supportEmail,
      corsOrigins: settings.corsOrigins,
      mailer,
      mailDelivery: delivery,
      salesEmail: settings.salesEmail,
      checkout: await checkoutOf(settings.stripe),
      requestLog,
      gatherMetrics: link?.gather,
      // Requests reach the storage only once the runtime listens, after `stop` is set.
      onStorageBroken: () => stop(STORAGE_BROKEN_EXIT),
    }
    runtime = await Runtime.start(options, flags.host, settings.port).catch((error: unknown) => {
      throw startFailure(error, { host: flags.host, port: settings.port, snapshots: flags.snapshots })
    })
  } catch (error) {
    if (link === undefined) throw error
    return link.fail(told(error))
  }
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
    announce(
      address,
      port,
      'one process',
      runtime.publicUrl,
      flags.ledger,
      mailDescription(settings.mail, flags.outbox),
    )
  } else {
    link.serve(
      { sample: () => runtime.ownMetrics(), reload: () => void runtime.reload(), stop: () => stop(0) },
      runtime.address(),
    )
    // The primary gone (killed): nobody would restart or stop this worker.
    process.once('disconnect', () => stop(0))
  }
}

/** The "serving on" line (tests and benchmarks read it as it is), then what a newcomer does next. */
function announce(
  address: string,
  port: number,
  processes: string,
  publicUrl: string,
  ledger: string,
  mail: string,
): void {
  const listening = `http://${address.includes(':') ? `[${address}]` : address}:${port}`
  process.stderr.write(`carmarket serving on ${listening} (${processes})\n${startBanner(publicUrl, ledger, mail)}`)
}

/** The relay of --smtp-url, checked with the options that go with it; none without it. */
function relayOf(flags: ServeFlags): Relay | undefined {
  const retryAfter = positiveInteger(flags.mailRetryAfter, '--mail-retry-after')
  const giveUpAfter = positiveInteger(flags.mailGiveUpAfter, '--mail-give-up-after')
  if (flags.smtpUrl === undefined) return undefined
  const url = smtpUrl(flags.smtpUrl, '--smtp-url')
  if (flags.mailFrom === undefined)
    throw new UsageError(
      '--smtp-url needs --mail-from (env CARMARKET_MAIL_FROM), the From of the mail sent, such as "carmarket <noreply@example.com>"',
    )
  return {
    url,
    from: mailFrom(flags.mailFrom, '--mail-from'),
    retryAfterMs: retryAfter * 1000,
    giveUpAfterMs: giveUpAfter * 1000,
  }
}

/** Where mail goes, for the start banner; a relay's password is never shown. */
function mailDescription(relay: Relay | undefined, outbox: string): string {
  if (relay === undefined) return `written to ${outbox}/, a file a message (--smtp-url sends it)`
  return `sent through ${relay.url.protocol}//${relay.url.host} from ${relay.from}, queued in the ledger`
}

/**
 * The mailer of a runtime: through the relay, queued in the ledger and sent by a
 * MailDelivery of this process, or into the outbox folder.
 */
async function mailOf(
  relay: Relay | undefined,
  outbox: string,
  ledger: Ledger,
): Promise<{ readonly mailer: Mailer; readonly delivery: MailDelivery | undefined }> {
  if (relay === undefined) {
    try {
      return { mailer: new OutboxMailer(outbox), delivery: undefined }
    } catch (error) {
      throw outboxFailure(error, outbox)
    }
  }
  // nodemailer is loaded only to send through a relay.
  const { SmtpTransport } = await import('../runtime/smtp-transport.js')
  const delivery = new MailDelivery(ledger.mail, new SmtpTransport(relay.url.href, relay.from), {
    retryAfterMs: relay.retryAfterMs,
    maxRetryMs: MAX_MAIL_RETRY_MS,
    leaseMs: MAIL_LEASE_MS,
    pollMs: MAIL_POLL_MS,
  })
  return { mailer: new QueuedMailer(ledger.mail, relay.giveUpAfterMs, () => delivery.poke()), delivery }
}

/** Stripe's keys (from the environment only) and API, when plans are sold online. */
interface StripeSettings {
  readonly secretKey: string
  readonly webhookSecret: string
  readonly apiBase: URL
}

/**
 * Stripe Checkout, when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are both set: keys
 * are never options, so that no process list or shell history shows them.
 */
function stripeSettings(apiBase: string): StripeSettings | undefined {
  const secretKey = env.STRIPE_SECRET_KEY
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET
  if (secretKey === undefined && webhookSecret === undefined) return undefined
  if (secretKey === undefined || webhookSecret === undefined)
    throw new UsageError(
      'selling online needs both STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET in the environment; one of them is not set',
    )
  return { secretKey, webhookSecret, apiBase: new URL(httpUrl(apiBase, '--stripe-api-base')) }
}

async function checkoutOf(stripe: StripeSettings | undefined): Promise<StripeCheckout | undefined> {
  if (stripe === undefined) return undefined
  // The Stripe library is loaded only to sell online.
  const { StripeCheckout } = await import('../runtime/stripe-checkout.js')
  return new StripeCheckout(stripe.secretKey, stripe.webhookSecret, stripe.apiBase)
}

/** The longest wait between two attempts at a message. */
const MAX_MAIL_RETRY_MS = 3_600_000
/** How long a sender holds the messages it took: well past an attempt's own time-outs (smtp-transport.ts). */
const MAIL_LEASE_MS = 5 * 60_000
/** How often each runtime looks at the queue for mail that another queued or that came due. */
const MAIL_POLL_MS = 1_000

/**
 * The OpenAPI document and the web pages made from it, for the snapshot served (its
 * latest production year, next year's while there is none, and the answers of the
 * example requests) at the public URL.
 */
export function siteOf(demoQuota: number): (snapshot: Snapshot | undefined, links: Links) => Site {
  return (snapshot, links) => {
    const examples = snapshot === undefined ? new Map() : exampleCalls(snapshot)
    const maxYear = snapshot?.maxYear ?? latestYear(new Date().getUTCFullYear())
    const document = servedDocument(maxYear, links.publicUrl, examples)
    const served = snapshot === undefined ? undefined : { manifest: snapshot.manifest, examples }
    return { document, pages: webRoutes(document.body, links, demoQuota, served) }
  }
}
