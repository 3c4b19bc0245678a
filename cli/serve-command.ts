import { Command } from 'commander'
import { DEFAULTS } from '../runtime/defaults.js'
import { STRIPE_API_BASE } from '../runtime/stripe-api.js'
import { DEFAULT_LEDGER } from './ledger-options.js'
import { DEFAULT_SNAPSHOTS, collect } from './options.js'
import type { ServeFlags } from './serve-run.js'

const env = process.env

/** The runtime is loaded only to serve: every other command starts without it. */
export const serveCommand = new Command('serve')
  .description('serve the current snapshot over HTTP')
  .option('-s, --snapshots <dir>', 'snapshots folder (env CARMARKET_SNAPSHOTS)', DEFAULT_SNAPSHOTS)
  .option(
    '--ledger <location>',
    'ledger folder or postgres:// URL: accounts, and the counters unless --counters is given (env CARMARKET_LEDGER)',
    DEFAULT_LEDGER,
  )
  .option(
    '--counters <url>',
    'count the rate limit, demo quota and signup throttles in Redis, shared by every machine: redis://HOST:PORT[/DB][?prefix=PREFIX] (env CARMARKET_COUNTERS; by default with the ledger)',
    env.CARMARKET_COUNTERS,
  )
  .option('--host <host>', 'address to listen on (env HOST)', env.HOST ?? '127.0.0.1')
  .option('-p, --port <port>', 'port to listen on, 0 for any free one (env PORT)', env.PORT ?? '8080')
  .option(
    '-w, --workers <n>',
    'worker processes sharing the port, the snapshot and the ledger (env CARMARKET_WORKERS)',
    env.CARMARKET_WORKERS ?? '1',
  )
  .option(
    '--rate-limit <n>',
    'requests per minute per client address, 0 for none (env CARMARKET_RATE_LIMIT)',
    env.CARMARKET_RATE_LIMIT ?? String(DEFAULTS.rateLimit),
  )
  .option(
    '--demo-quota <n>',
    'keyless market calls per address per day, 0 turns the demo tier off (env CARMARKET_DEMO_QUOTA)',
    env.CARMARKET_DEMO_QUOTA ?? String(DEFAULTS.demoQuota),
  )
  .option(
    '--trusted-proxy <address>',
    'a proxy whose X-Forwarded-For is believed (repeatable; env CARMARKET_TRUSTED_PROXIES, comma-separated)',
    collect,
    env.CARMARKET_TRUSTED_PROXIES?.split(',').filter(Boolean) ?? [],
  )
  .option(
    '--ipv6-prefix <bits>',
    'the leading bits of an IPv6 address that make one client for the rate limit, the demo quota and the signup limits, 32 to 128 (env CARMARKET_IPV6_PREFIX)',
    env.CARMARKET_IPV6_PREFIX ?? String(DEFAULTS.ipv6Prefix),
  )
  .option(
    '--public-url <url>',
    'the address callers reach the service at, for links in answers and pages and the origin /mcp accepts (env CARMARKET_PUBLIC_URL; by default the address listened on, 127.0.0.1 for 0.0.0.0 or ::)',
    env.CARMARKET_PUBLIC_URL,
  )
  .option(
    '--support-email <address>',
    "the mailbox support answers at, named when an account is disabled and on the pages (env CARMARKET_SUPPORT_EMAIL; by default support@ the public URL's host)",
    env.CARMARKET_SUPPORT_EMAIL,
  )
  .option(
    '--cors-origins <list>',
    'web pages that may call the API from a browser: * (any), none, or a comma-separated list of origins such as https://app.example.com (env CARMARKET_CORS_ORIGINS)',
    env.CARMARKET_CORS_ORIGINS ?? '*',
  )
  .option(
    '--outbox <dir>',
    'the folder e-mail is written to, one JSON file a message (env CARMARKET_OUTBOX)',
    env.CARMARKET_OUTBOX ?? 'data/outbox',
  )
  .option(
    '--smtp-url <url>',
    'send e-mail through this SMTP relay, smtp[s]://user:password@host:port, queued in the ledger and retried until it is taken (env CARMARKET_SMTP_URL, which keeps the password out of the process list); without it, mail goes to --outbox',
    env.CARMARKET_SMTP_URL,
  )
  .option(
    '--mail-from <from>',
    'the From of the e-mail sent through --smtp-url, such as "carmarket <noreply@example.com>" (env CARMARKET_MAIL_FROM)',
    env.CARMARKET_MAIL_FROM,
  )
  .option(
    '--mail-retry-after <seconds>',
    'the wait before a message the relay did not take is tried again; each later wait doubles, up to an hour (env CARMARKET_MAIL_RETRY_AFTER)',
    env.CARMARKET_MAIL_RETRY_AFTER ?? String(DEFAULTS.mailRetryAfterSeconds),
  )
  .option(
    '--mail-give-up-after <seconds>',
    'a message not taken by the relay this long after it was written is given up (a code sooner: when it expires) (env CARMARKET_MAIL_GIVE_UP_AFTER)',
    env.CARMARKET_MAIL_GIVE_UP_AFTER ?? String(DEFAULTS.mailGiveUpAfterSeconds),
  )
  .option(
    '--sales-email <address>',
    'the mailbox plans are ordered from when they are not sold online, named on the pages (env CARMARKET_SALES_EMAIL)',
    env.CARMARKET_SALES_EMAIL,
  )
  .option(
    '--stripe-api-base <url>',
    "sell plans online through Stripe Checkout at this API (env CARMARKET_STRIPE_API_BASE; Stripe's own by default), with the keys of env STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, which turn it on",
    env.CARMARKET_STRIPE_API_BASE ?? STRIPE_API_BASE,
  )
  .option(
    '--verify-key <file>',
    'serve only snapshots signed by the build whose Ed25519 public key this PEM file holds (env CARMARKET_VERIFY_KEY)',
    env.CARMARKET_VERIFY_KEY,
  )
  .option('--sample', 'when there is no snapshot yet, generate and build the embedded sample first')
  .option(
    '--no-request-log',
    'no line per request on stdout (env CARMARKET_REQUEST_LOG=off); on a terminal each line is short (time, status, method, route, ms), else it is JSON',
  )
  .action(async (flags: ServeFlags) => (await import('./serve-run.js')).serve(flags))
