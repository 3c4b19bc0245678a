import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  createClient,
  defineScript,
  DisconnectsClientError,
  ErrorReply,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
  type CommandParser,
} from '@redis/client'
import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { unavailable } from './ledger-error.js'
import {
  COUNTER_WINDOW_MS,
  type Counted,
  type CounterKind,
  type Counters,
  type WriteHealth,
  alwaysWanted,
} from './types.js'
import { WriteFailures } from './write-failures.js'

/** The key prefix when the URL names none. */
export const DEFAULT_PREFIX = 'carmarket:'

/**
 * How long a call waits for Redis. A request waits on its count, so a server that does
 * not answer (stopped, overloaded, cut off without a reset) must cost it a refusal or the
 * rate limit's per-process stand-in, not a hang. Also the bound on connecting.
 */
export const COMMAND_TIMEOUT_MS = 1_000

/**
 * How much longer than its window a count is kept: the clocks of a deployment's
 * processes differ a little, and one that is behind still counts in a window the others
 * have left; its key must still be there for the count to go on adding up.
 */
export const EXPIRY_MARGIN_MS = 60_000

/**
 * Commands sent and not yet answered, past which calls are refused at once. Those a
 * caller stopped waiting for still hold their place until Redis answers or the
 * connection drops, so a server that hangs under traffic cannot make them pile up.
 */
export const PENDING_COMMANDS = 1_000

/** Reconnection: exponential from 50 ms to at most 2 s, jittered so that processes do not reconnect in step. */
function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2_000) + Math.floor(Math.random() * 200)
}

/**
 * The check and the count in one step on the server: the count, or 0 (no count ever is)
 * when one more would pass the limit. The key expires `ttl` ms after its latest count.
 */
const COUNT_UP_TO = defineScript({
  SCRIPT: `
local count = (tonumber(redis.call('GET', KEYS[1])) or 0) + 1
if count > tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], count, 'PX', ARGV[2])
return count`,
  NUMBER_OF_KEYS: 1,
  parseCommand(parser: CommandParser, key: string, limit: number, ttl: number) {
    parser.pushKey(key)
    parser.push(String(limit), String(ttl))
  },
  transformReply: (reply: unknown) => Number(reply),
})

function connect(url: string) {
  return createClient({
    url,
    scripts: { countUpTo: COUNT_UP_TO },
    // A command sent while disconnected is refused at once rather than queued for a
    // reconnection its request cannot wait for.
    disableOfflineQueue: true,
    socket: { connectTimeout: COMMAND_TIMEOUT_MS, reconnectStrategy: reconnectDelay },
  })
}

type Client = ReturnType<typeof connect>

/** A call that waited COMMAND_TIMEOUT_MS for Redis. */
class NoAnswer extends Error {
  override name = 'NoAnswer'
  constructor() {
    super(`Redis did not answer within ${COMMAND_TIMEOUT_MS} ms`)
  }
}

/** A call refused before it was sent: PENDING_COMMANDS are waiting for Redis already. */
class TooManyPending extends Error {
  override name = 'TooManyPending'
  constructor() {
    super(`${PENDING_COMMANDS} commands are waiting for Redis`)
  }
}

/**
 * Server replies that say a write cannot be done now (out of memory, a read-only replica,
 * a dataset still loading, a script running, snapshots failing) rather than that the
 * command is wrong.
 */
const TRANSIENT_REPLY = /^(OOM|READONLY|LOADING|BUSY|MISCONF|MASTERDOWN|TRYAGAIN|NOREPLICAS|CLUSTERDOWN)\b/

/** Whether a failed command says Redis cannot be reached or written now (anything else is a bug, rethrown). */
function isUnavailable(error: unknown): error is Error {
  if (error instanceof ErrorReply) return TRANSIENT_REPLY.test(error.message)
  return (
    error instanceof NoAnswer ||
    error instanceof TooManyPending ||
    error instanceof ClientOfflineError ||
    error instanceof ClientClosedError ||
    error instanceof ConnectionTimeoutError ||
    error instanceof SocketClosedUnexpectedlyError ||
    error instanceof SocketTimeoutError ||
    error instanceof TimeoutError ||
    error instanceof DisconnectsClientError ||
    // A connection that broke: the socket's own error (ECONNRESET, EPIPE) is passed on to the commands it held.
    (error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string')
  )
}

/**
 * What an operator is told of a failure; a refused connection to several addresses is an AggregateError without a
 * message.
 */
function describe(error: Error): string {
  if (error.message !== '') return error.message
  const code = (error as NodeJS.ErrnoException).code
  return code ?? error.name
}

/**
 * The counters in Redis, for deployments on more than one machine: every process of
 * every machine counts in the same keys. Each key is
 * `<prefix><kind>:<window>:<who>`; a kind and a window never hold a colon, so a client
 * address or mailbox (which may) cannot make one kind's key another's. The prefix lets
 * deployments share one Redis.
 *
 * A check-and-count is one Lua script, atomic on the server. Every count sets its key to
 * expire at the end of its window (by this process's clock, at most one window ahead)
 * plus EXPIRY_MARGIN_MS, so old windows go by themselves and `sweep` has nothing to do.
 *
 * While Redis cannot be reached every call rejects as LedgerError `unavailable` within
 * COMMAND_TIMEOUT_MS, and the health says writes are failing; the client reconnects by
 * itself, and counting resumes when Redis is back. A count whose answer did not arrive in
 * time may still have been made.
 */
export class RedisCounters implements Counters {
  private readonly failures = new WriteFailures()
  /**
   * Settles once the first connection is made or has failed, or COMMAND_TIMEOUT_MS after
   * opening: calls made while a starting process connects wait for it, not refused as if
   * Redis were down.
   */
  private readonly started: Promise<unknown>
  private pending = 0
  private closing: Promise<void> | undefined

  private constructor(
    private readonly client: Client,
    private readonly prefix: string,
  ) {
    // The client reports every failed connection attempt here; without a listener an
    // EventEmitter error would end the process.
    client.on('error', (error: Error) => this.failures.failed(`Redis: ${describe(error)}`))
    this.started = Promise.race([
      once(client, 'ready').catch(() => {}),
      delay(COMMAND_TIMEOUT_MS, undefined, { ref: false }),
    ])
    // It keeps trying until closed: it settles only then, and its failures are reported above.
    client.connect().catch(() => {})
  }

  /**
   * Opens the counters at `redis://HOST:PORT[/DB][?prefix=PREFIX]` (or `rediss:`),
   * whether or not Redis answers yet: calls are refused until it does.
   */
  static open(location: string): RedisCounters {
    const url = new URL(location)
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
      throw new TypeError('the counters take a redis:// or rediss:// URL')
    const prefix = url.searchParams.get('prefix') ?? DEFAULT_PREFIX
    url.searchParams.delete('prefix')
    return new RedisCounters(connect(url.toString()), prefix)
  }

  get health(): WriteHealth {
    return this.failures
  }

  async count(kind: CounterKind, window: number, who: string): Promise<number> {
    const value = await this.send(() => this.client.get(this.key(kind, window, who)))
    return value === null ? 0 : Number(value)
  }

  countUpTo(
    kind: CounterKind,
    window: number,
    who: string,
    limit: number,
    wanted: () => boolean = alwaysWanted,
  ): Promise<Counted> {
    return this.send(async (): Promise<Counted> => {
      if (!wanted()) return 'unwanted'
      const count = await this.client.countUpTo(this.key(kind, window, who), limit, this.ttl(kind, window))
      this.failures.committed()
      return count === 0 ? 'limit' : count
    })
  }

  /** Keys expire by themselves. */
  async sweep(): Promise<void> {}

  /** As Ledger.probe: a key of its own, which expires. */
  probe(): Promise<void> {
    return this.send(async () => {
      await this.client.set(`${this.prefix}probe`, String(Date.now()), { expiration: { type: 'PX', value: 60_000 } })
      this.failures.committed()
    })
  }

  /** Waits for answers still to come, for at most COMMAND_TIMEOUT_MS (a hung server would never send them). */
  close(): Promise<void> {
    this.closing ??= Promise.race([this.client.close(), delay(COMMAND_TIMEOUT_MS)]).then(() => this.client.destroy())
    return this.closing
  }

  private key(kind: CounterKind, window: number, who: string): string {
    return `${this.prefix}${kind}:${window}:${who}`
  }

  /** Until the window's end plus the margin; a window already past (by this clock) keeps its count for the margin. */
  private ttl(kind: CounterKind, window: number): number {
    const length = COUNTER_WINDOW_MS[kind]
    return Math.min(Math.max((window + 1) * length - Date.now(), 0), length) + EXPIRY_MARGIN_MS
  }

  /**
   * Runs `command` (which sends one command to Redis) once the first connection is
   * settled, and waits COMMAND_TIMEOUT_MS at most in all; Redis failing is `unavailable`.
   */
  private async send<T>(command: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new NoAnswer()), COMMAND_TIMEOUT_MS)),
    )
    try {
      await Promise.race([this.started, late])
      if (this.pending >= PENDING_COMMANDS) throw new TooManyPending()
      this.pending++
      return await Promise.race([command().finally(() => this.pending--), late])
    } catch (error) {
      if (!isUnavailable(error)) throw error
      // While disconnected, what the connection last met says more than that the client is offline.
      this.failures.failed(
        error instanceof ClientOfflineError && this.failures.reason !== undefined
          ? this.failures.reason
          : `Redis: ${describe(error)}`,
      )
      throw unavailable('the counters')
    } finally {
      clearTimeout(timer)
    }
  }
}
