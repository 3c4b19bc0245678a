import type { Manifest } from '../format/schema.js'
import type { MailCounts } from './mail-delivery.js'
import type { ProcessSeries } from './process-metrics.js'

/** Upper bounds of the latency histogram's buckets, in seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const

/** The label a request whose path matched no route is counted under (never the path itself). */
export const UNMATCHED = 'unmatched'

/** What a business watches, counted by the processes that do it: accounts registered, credits bought and spent. */
export type BusinessCount = 'registrations' | 'credits_sold' | 'credits_spent'
/** Tells the metrics that `n` more of `what` happened. */
export type CountBusiness = (what: BusinessCount, n: number) => void

/** One route's requests: counts by status, and the latency histogram (per bucket, not cumulative). */
export interface RouteSample {
  readonly statuses: Record<string, number>
  readonly buckets: number[]
  readonly sum: number
  readonly count: number
}

/** The snapshot one process serves. */
export interface ServedSample {
  readonly build_id: string
  readonly as_of: string
  readonly created_at: string
}

/**
 * What /metrics reports, as plain data: one process's counts, or the sum of every
 * worker's (it crosses the cluster's IPC channel as JSON).
 */
export interface MetricsSample {
  readonly processes: number
  readonly routes: Record<string, RouteSample>
  /** Error answers by the spec's code (DEMO_LIMIT_REACHED and RATE_LIMIT_EXCEEDED are the refusals). */
  readonly errors: Record<string, number>
  /** Ledger write transactions committed, by what they did. */
  readonly ledger: Record<string, number>
  /** Snapshot swaps done and refused since start. */
  readonly swaps: Record<string, number>
  readonly snapshots: ServedSample[]
  readonly resident_bytes: number
  /** Mail handed to the relay, tried again later, and given up, by the processes that send it. */
  readonly mail: Record<string, number>
  /** Accounts registered, credits sold and spent (BusinessCount). */
  readonly business: Record<string, number>
  /** The mail queue (one for the deployment) as last seen by a process that sends mail; null where none does. */
  readonly mail_queue: { readonly queued: number; readonly failed: number } | null
  /** Each process's default Node.js series (process-metrics.ts), summed only when rendered. */
  readonly node: readonly ProcessSeries[]
}

class RouteCounts {
  readonly statuses = new Map<number, number>()
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1)
  sum = 0
  count = 0

  observe(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
    let bucket = 0
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++
    this.buckets[bucket]!++
    this.sum += seconds
    this.count++
  }
}

/**
 * One process's request counts, kept as numbers per route (the runtime's own paths, a
 * bounded set) so counting a request allocates nothing once its route has been seen.
 * Labels are routes, statuses and error codes only: never keys, addresses or ids.
 */
export class Metrics {
  private readonly routes = new Map<string, RouteCounts>()
  private readonly errors = new Map<string, number>()
  private readonly swaps = { swapped: 0, refused: 0 }
  private readonly business: Record<BusinessCount, number> = { registrations: 0, credits_sold: 0, credits_spent: 0 }

  readonly count: CountBusiness = (what, n) => {
    this.business[what] += n
  }

  observe(route: string | null, status: number, seconds: number): void {
    const name = route ?? UNMATCHED
    let counts = this.routes.get(name)
    if (counts === undefined) this.routes.set(name, (counts = new RouteCounts()))
    counts.observe(status, seconds)
  }

  error(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1)
  }

  swap(result: 'swapped' | 'refused'): void {
    this.swaps[result]++
  }

  /** This process's counts, with the ledger's commits, the manifest of the snapshot served, and its mail sender's. */
  sample(
    ledger: Readonly<Record<string, number>>,
    served: Manifest | undefined,
    mail: { readonly counts: MailCounts; readonly depth: MetricsSample['mail_queue'] | undefined } | undefined,
    node: ProcessSeries,
  ): MetricsSample {
    const routes: Record<string, RouteSample> = {}
    for (const [name, counts] of this.routes) {
      routes[name] = {
        statuses: Object.fromEntries(counts.statuses),
        buckets: [...counts.buckets],
        sum: counts.sum,
        count: counts.count,
      }
    }
    return {
      processes: 1,
      routes,
      errors: Object.fromEntries(this.errors),
      ledger: { ...ledger },
      swaps: { ...this.swaps },
      snapshots:
        served === undefined ? [] : [{ build_id: served.build_id, as_of: served.as_of, created_at: served.created_at }],
      resident_bytes: process.memoryUsage.rss(),
      mail: { ...mail?.counts },
      business: { ...this.business },
      mail_queue: mail?.depth ?? null,
      node: [node],
    }
  }
}

/** The sum of several processes' samples. */
export function mergeSamples(samples: readonly MetricsSample[]): MetricsSample {
  const routes: Record<string, RouteSample> = {}
  for (const sample of samples) {
    for (const [name, route] of Object.entries(sample.routes)) {
      const into = routes[name]
      routes[name] =
        into === undefined
          ? route
          : {
              statuses: addCounts(into.statuses, route.statuses),
              buckets: into.buckets.map((n, i) => n + (route.buckets[i] ?? 0)),
              sum: into.sum + route.sum,
              count: into.count + route.count,
            }
    }
  }
  return {
    processes: samples.reduce((n, s) => n + s.processes, 0),
    routes,
    errors: samples.reduce((into, s) => addCounts(into, s.errors), {}),
    ledger: samples.reduce((into, s) => addCounts(into, s.ledger), {}),
    swaps: samples.reduce((into, s) => addCounts(into, s.swaps), {}),
    snapshots: samples.flatMap((s) => s.snapshots),
    resident_bytes: samples.reduce((n, s) => n + s.resident_bytes, 0),
    mail: samples.reduce((into, s) => addCounts(into, s.mail), {}),
    business: samples.reduce((into, s) => addCounts(into, s.business), {}),
    // Every sender sees the one queue: the deepest view is the latest that matters.
    mail_queue: samples.reduce<MetricsSample['mail_queue']>(
      (deepest, s) =>
        s.mail_queue !== null && (deepest === null || s.mail_queue.queued > deepest.queued) ? s.mail_queue : deepest,
      null,
    ),
    node: samples.flatMap((s) => s.node),
  }
}

function addCounts(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): Record<string, number> {
  const sum = { ...a }
  for (const [name, n] of Object.entries(b)) sum[name] = (sum[name] ?? 0) + n
  return sum
}

/** A label value as the exposition format quotes it. */
function label(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`
}

function family(lines: string[], name: string, type: 'counter' | 'gauge' | 'histogram', help: string): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
}

/**
 * The Prometheus text exposition format (version 0.0.4). The snapshot gauges report
 * the oldest snapshot any process serves, so a worker left behind by a refused swap
 * shows; carmarket_snapshot_processes says which builds are served, and by how many.
 */
export function renderMetrics(sample: MetricsSample, now: number): string {
  const lines: string[] = []
  const routes = Object.entries(sample.routes).sort(([a], [b]) => a.localeCompare(b))

  family(lines, 'carmarket_http_requests_total', 'counter', 'HTTP requests answered, by route and status.')
  for (const [route, counts] of routes) {
    for (const [status, n] of Object.entries(counts.statuses))
      lines.push(`carmarket_http_requests_total{route=${label(route)},status="${status}"} ${n}`)
  }

  family(lines, 'carmarket_http_request_duration_seconds', 'histogram', 'Time from a request to its answer, by route.')
  for (const [route, counts] of routes) {
    let cumulative = 0
    LATENCY_BUCKETS.forEach((bound, i) => {
      cumulative += counts.buckets[i]!
      lines.push(`carmarket_http_request_duration_seconds_bucket{route=${label(route)},le="${bound}"} ${cumulative}`)
    })
    lines.push(
      `carmarket_http_request_duration_seconds_bucket{route=${label(route)},le="+Inf"} ${counts.count}`,
      `carmarket_http_request_duration_seconds_sum{route=${label(route)}} ${counts.sum}`,
      `carmarket_http_request_duration_seconds_count{route=${label(route)}} ${counts.count}`,
    )
  }

  family(
    lines,
    'carmarket_errors_total',
    'counter',
    'Error answers by code; DEMO_LIMIT_REACHED and RATE_LIMIT_EXCEEDED are the demo-tier and rate-limit refusals.',
  )
  for (const [code, n] of Object.entries(sample.errors).sort())
    lines.push(`carmarket_errors_total{code=${label(code)}} ${n}`)

  family(
    lines,
    'carmarket_ledger_commits_total',
    'counter',
    'Ledger write transactions committed, by kind (charge, failed_call refund entry, account, grant, key, status, code).',
  )
  for (const [kind, n] of Object.entries(sample.ledger).sort())
    lines.push(`carmarket_ledger_commits_total{kind=${label(kind)}} ${n}`)

  family(
    lines,
    'carmarket_snapshot_swaps_total',
    'counter',
    'Hot snapshot swaps, by result: swapped, or refused (the snapshot was broken and the old one kept serving).',
  )
  for (const [result, n] of Object.entries(sample.swaps).sort())
    lines.push(`carmarket_snapshot_swaps_total{result=${label(result)}} ${n}`)

  const served = sample.snapshots
  if (served.length > 0) {
    const asOf = Math.min(...served.map((s) => Date.parse(`${s.as_of}T00:00:00Z`)))
    const created = Math.min(...served.map((s) => Date.parse(s.created_at)))
    family(
      lines,
      'carmarket_snapshot_as_of_timestamp_seconds',
      'gauge',
      'The day the served figures describe (00:00 UTC), as a Unix time.',
    )
    lines.push(`carmarket_snapshot_as_of_timestamp_seconds ${asOf / 1000}`)
    family(lines, 'carmarket_snapshot_age_seconds', 'gauge', 'Seconds since the served snapshot was built.')
    lines.push(`carmarket_snapshot_age_seconds ${Math.max(0, Math.round((now - created) / 1000))}`)
    family(lines, 'carmarket_snapshot_processes', 'gauge', 'Processes serving each snapshot build.')
    const byBuild = new Map<string, number>()
    for (const s of served) byBuild.set(s.build_id, (byBuild.get(s.build_id) ?? 0) + 1)
    for (const [build, n] of byBuild) lines.push(`carmarket_snapshot_processes{build_id=${label(build)}} ${n}`)
  }

  family(lines, 'carmarket_registrations_total', 'counter', 'Accounts opened by registration.')
  lines.push(`carmarket_registrations_total ${sample.business.registrations ?? 0}`)
  family(
    lines,
    'carmarket_credits_total',
    'counter',
    'Credits sold (granted by a paid checkout) and spent (charged for a market call).',
  )
  lines.push(`carmarket_credits_total{kind="sold"} ${sample.business.credits_sold ?? 0}`)
  lines.push(`carmarket_credits_total{kind="spent"} ${sample.business.credits_spent ?? 0}`)

  family(
    lines,
    'carmarket_mail_total',
    'counter',
    'Mail through the SMTP relay, by outcome: sent (taken by the relay), retried (an attempt failed; tried again later), given_up.',
  )
  for (const [outcome, n] of Object.entries(sample.mail).sort())
    lines.push(`carmarket_mail_total{outcome=${label(outcome)}} ${n}`)
  if (sample.mail_queue !== null) {
    family(
      lines,
      'carmarket_mail_queue_messages',
      'gauge',
      'Messages in the mail queue: queued (waiting to be sent) or failed (given up).',
    )
    lines.push(`carmarket_mail_queue_messages{state="queued"} ${sample.mail_queue.queued}`)
    lines.push(`carmarket_mail_queue_messages{state="failed"} ${sample.mail_queue.failed}`)
  }

  family(lines, 'carmarket_processes', 'gauge', 'Serving processes whose counts are included (the workers).')
  lines.push(`carmarket_processes ${sample.processes}`)
  family(
    lines,
    'carmarket_resident_memory_bytes',
    'gauge',
    'Resident memory of the serving processes, summed (the snapshot pages mapped are shared between them).',
  )
  lines.push(`carmarket_resident_memory_bytes ${sample.resident_bytes}`)
  return `${lines.join('\n')}\n`
}
