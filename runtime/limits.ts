import { LedgerError } from '../ledger/ledger-error.js'
import { secondsLeft, windowOf, type Counted, type Counters } from '../ledger/types.js'
import { ApiError } from '../query/api-error.js'
import { SIGNUP_CREDITS } from '../query/prices.js'
import { ClientGone } from './client-gone.js'
import type { HeaderList } from './send.js'

/**
 * How long a request waits for the shared count before this process counts it on its own:
 * every route is rate-limited, /livez too, and a counters engine that hangs (a stopped
 * Redis, a PostgreSQL that does not answer) must not hold every request for the
 * engine's own timeout.
 */
export const RATE_COUNT_WAIT_MS = 500
/**
 * Client addresses the stand-in rate limit keeps a count for in a minute; beyond them new ones go uncounted (bounded
 * memory).
 */
const LOCAL_ADDRESSES = 100_000

/** Milliseconds since the epoch; tests pass their own. */
export type Clock = () => number

/**
 * Requests per client address per minute, on every route and across all processes that
 * share the counters (fixed one-minute windows). Answers carry the IETF draft
 * RateLimit-Policy and RateLimit headers so that a client can pace itself; `limit` 0
 * turns it off.
 *
 * While the shared counters cannot be written (a full disk, Redis unreachable) or do not
 * answer within RATE_COUNT_WAIT_MS, each process counts on its own, with the same limit: a flood from one address is
 * still
 * stopped, at worst N times the limit over N processes, and no request is refused for
 * want of a counter, which would turn a storage fault into an outage.
 */
export class RateLimiter {
  private readonly policy: string
  /** The stand-in's counts, of the minute `localWindow`. */
  private readonly local = new Map<string, number>()
  private localWindow = -1

  constructor(
    private readonly counters: Counters,
    private readonly limit: number,
    private readonly clock: Clock,
  ) {
    this.policy = `"ip";q=${limit};w=60`
  }

  /** Counts a request; resolves to the headers to answer with, or throws RATE_LIMIT_EXCEEDED. */
  async admit(ip: string): Promise<Record<string, string>> {
    if (this.limit === 0) return {}
    const now = this.clock()
    const window = windowOf('rate', now)
    const reset = secondsLeft('rate', now)
    const count = await this.countShared(window, ip)
    const headers = {
      'RateLimit-Policy': this.policy,
      RateLimit: `"ip";r=${this.limit - (typeof count === 'number' ? count : this.limit)};t=${reset}`,
    }
    if (count === 'limit') {
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        `More than ${this.limit} requests in a minute from this address; retry in ${reset} s.`,
        {},
        { ...headers, 'Retry-After': String(reset) },
      )
    }
    return headers
  }

  /**
   * The shared count, or the stand-in's when the counters fail or keep it waiting (a shared count made late is left as
   * it is).
   */
  private countShared(window: number, ip: string): Promise<Counted> {
    return new Promise((resolve, reject) => {
      let settled = false
      const here = () => {
        if (settled) return
        settled = true
        resolve(this.countHere(window, ip))
      }
      const timer = setTimeout(here, RATE_COUNT_WAIT_MS)
      this.counters.countUpTo('rate', window, ip, this.limit).then(
        (count) => {
          clearTimeout(timer)
          settled = true
          resolve(count)
        },
        (error: unknown) => {
          clearTimeout(timer)
          if (error instanceof LedgerError && error.code === 'unavailable') here()
          else reject(error)
        },
      )
    })
  }

  /** The stand-in: this process's own count of the minute. */
  private countHere(window: number, ip: string): Counted {
    if (window !== this.localWindow) {
      this.local.clear()
      this.localWindow = window
    }
    const count = (this.local.get(ip) ?? 0) + 1
    if (count > this.limit) return 'limit'
    if (this.local.size < LOCAL_ADDRESSES || this.local.has(ip)) this.local.set(ip, count)
    return count
  }
}

/**
 * The keyless demo tier: `quota` successful market calls per client address per UTC
 * day, shared by all processes and kept across restarts. A failed call uses none;
 * `quota` 0 turns the demo tier off (every keyless market call is refused). No answer
 * is given without its count: when the count cannot be written the call is refused
 * (LedgerError `unavailable`, a 503): a free call that cannot be counted is not given away.
 */
export class DemoQuota {
  /** The demo tier as a policy of the IETF draft's RateLimit fields, beside the per-minute one: a UTC day's calls. */
  private readonly policy: string

  constructor(
    private readonly counters: Counters,
    private readonly quota: number,
    private readonly registerUrl: string,
    private readonly clock: Clock,
  ) {
    this.policy = `"demo";q=${quota};w=86400`
  }

  /**
   * The RateLimit fields of the demo policy once `used` calls of today are counted: what
   * is left of the day's quota and the seconds until it starts again (at midnight UTC).
   */
  fields(used: number): HeaderList {
    const left = Math.max(this.quota - used, 0)
    return ['RateLimit-Policy', this.policy, 'RateLimit', `"demo";r=${left};t=${secondsLeft('demo', this.clock())}`]
  }

  /** Throws DEMO_LIMIT_REACHED when the address has no demo call left today. */
  async check(ip: string): Promise<void> {
    if ((await this.counters.count('demo', this.day(), ip)) >= this.quota) throw this.reached()
  }

  /**
   * Counts a successful call; resolves to the calls of today counted so far, this one
   * included. Throws DEMO_LIMIT_REACHED when concurrent calls used the last one first,
   * and ClientGone (counting nothing) when the answer can no longer be delivered.
   */
  async use(ip: string, wanted: () => boolean): Promise<number> {
    const counted = await this.counters.countUpTo('demo', this.day(), ip, this.quota, wanted)
    if (counted === 'limit') throw this.reached()
    if (counted === 'unwanted') throw new ClientGone()
    return counted
  }

  /**
   * Counts up to `calls` successful calls of one request (a batch's items) as far as the
   * quota goes: resolves to how many were counted, each count atomic like use()'s, and
   * the calls of today counted so far. Only as many counts as the address has left are
   * tried, so a batch past the quota costs one read.
   */
  async useMany(
    ip: string,
    calls: number,
    wanted: () => boolean,
  ): Promise<{ readonly counted: number; readonly used: number }> {
    const day = this.day()
    const before = await this.counters.count('demo', day, ip)
    const left = Math.min(calls, this.quota - before)
    if (left <= 0) return { counted: 0, used: before }
    if (!wanted()) throw new ClientGone()
    const results = await Promise.all(
      Array.from({ length: left }, () => this.counters.countUpTo('demo', day, ip, this.quota, wanted)),
    )
    if (results.includes('unwanted')) throw new ClientGone()
    const counts = results.filter((c) => typeof c === 'number')
    // Each count is the total after it: the greatest is today's total, others' concurrent calls included.
    return { counted: counts.length, used: counts.length === 0 ? this.quota : Math.max(...counts) }
  }

  private day(): number {
    return windowOf('demo', this.clock())
  }

  /** DEMO_LIMIT_REACHED, naming where to register in its message and its register_url. */
  reached(): ApiError {
    const retry = secondsLeft('demo', this.clock())
    return new ApiError(
      'DEMO_LIMIT_REACHED',
      this.quota === 0
        ? `The keyless demo tier is off: send an X-API-Key header. Register for a free key with ${SIGNUP_CREDITS} credits at ${this.registerUrl}`
        : `The keyless demo tier answers ${this.quota} market calls per address per day; register for a free key with ${SIGNUP_CREDITS} credits at ${this.registerUrl}`,
      { register_url: this.registerUrl },
      {
        'Retry-After': String(retry),
        'RateLimit-Policy': this.policy,
        RateLimit: `"demo";r=0;t=${retry}`,
      },
    )
  }
}
