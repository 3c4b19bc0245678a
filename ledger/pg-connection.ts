import pg from 'pg'

/**
 * Connections to a PostgreSQL ledger: the pool each engine opens, its timeouts, and what
 * of a failure means the server cannot be used now (as opposed to a bug).
 */

/** The URL as it may be shown: without its password. */
export function shownUrl(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed === undefined) return 'the PostgreSQL URL given'
  if (parsed.password !== '') parsed.password = '***'
  return parsed.toString()
}

/**
 * Bounds on waiting, so that a request is answered within 2 s whatever the server does
 * (down, unreachable, frozen, shutting down): connecting (or waiting for a pooled
 * connection); a statement, ended by the server (its transaction then certainly rolled
 * back); and an answer, ended by the client for a server that no longer answers at all
 * (after the server's own limit, which normally comes first). A statement of the ledger
 * takes milliseconds; these bounds are met only by a server in trouble. A URL may set
 * the statement's and the answer's (`?statement_timeout=2000&query_timeout=2500`).
 */
const TIMEOUTS = { connectionTimeoutMillis: 700, statement_timeout: 1_000, query_timeout: 1_200 } as const

/**
 * How long a request waits at most for work it shares with others (a batch of key look-ups, a batch of debits),
 * counted from when it asked: the wait for the batch in flight and its own batch's. Its later calls, if any, are
 * single statements within TIMEOUTS.
 */
export const SHARED_WORK_WITHIN_MS = 1_500

/**
 * `work`'s outcome, or the error `late()` makes once `ms` have passed, whichever comes first. The work itself goes
 * on: its later outcome is the caller's to watch.
 */
export function within<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), ms)
    work.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

export interface PoolSettings {
  /** Connections at most. */
  readonly max: number
  /**
   * The database's synchronous_commit for these connections: `on` for the ledger, so a
   * commit is on disk before it is acknowledged whatever the database's default; `off`
   * for counts that need not survive a crash of the server.
   */
  readonly synchronousCommit: 'on' | 'off'
  /**
   * Told of an error of a connection the pool holds idle (the server went away); the pool drops that connection and
   * opens another when one is needed.
   */
  readonly onIdleError: (error: Error) => void
}

/** A pool of connections to `url` that reconnects by itself after the server returns. */
export function openPool(url: string, settings: PoolSettings): pg.Pool {
  const pool = new pg.Pool({ ...TIMEOUTS, ...connectionConfig(url, settings.synchronousCommit), max: settings.max })
  pool.on('error', settings.onIdleError)
  // A connection's error reaches the query it fails, or (idle) the handler above; but one checked out with no query
  // in flight (between a transaction's statements, or taken and not yet used) has neither, and node-postgres throws
  // it, ending the process. Heard here, for every connection: its next query fails, and its holder drops it.
  pool.on('connect', (client) => client.on('error', heard))
  return pool
}

/** How a connection to `url` is made, for a pool or a client of its own; `synchronousCommit` as in PoolSettings. */
export function connectionConfig(url: string, synchronousCommit: 'on' | 'off'): pg.ClientConfig {
  // node-postgres reads the URL over the configuration, so the URL's own `options` are
  // taken out of it and given together with the setting the engine needs (the last wins).
  const location = new URL(url)
  const given = location.searchParams.get('options')
  location.searchParams.delete('options')
  return {
    connectionString: location.toString(),
    options: [given, `-c synchronous_commit=${synchronousCommit}`].filter((o) => o !== null).join(' '),
    keepAlive: true,
    application_name: 'carmarket',
  }
}

/**
 * SQLSTATE classes of a server that cannot do the work now: connection exception, insufficient resources (disk full,
 * too many connections), operator intervention (shutdown, statement timeout), system error (I/O).
 */
const UNAVAILABLE_CLASSES: ReadonlySet<string> = new Set(['08', '53', '57', '58'])
/**
 * Single SQLSTATEs of the same kind: a deadlock or serialization failure still there
 * after retries, a lock not granted, a read-only server (a standby after a failover),
 * a database that does not exist (yet) and a refused login.
 */
const UNAVAILABLE_STATES: ReadonlySet<string> = new Set(['40001', '40P01', '55P03', '25006', '3D000', '28000', '28P01'])
/** Node's codes for a network that does not get through. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/**
 * What node-postgres says of a connection that failed, was cut, or timed out: plain
 * Errors without a code, so they are known by their messages only.
 */
const CLIENT_FAILURES: readonly RegExp[] = [
  /^Connection terminated/,
  /^Query read timeout$/,
  /^timeout exceeded when trying to connect$/,
  /^timeout expired$/,
  /is not queryable$/,
]

/**
 * Whether `error` is PostgreSQL telling that the work was rolled back for a conflict with another transaction, and may
 * simply be done again.
 */
export function isRetryable(error: unknown): boolean {
  return error instanceof pg.DatabaseError && (error.code === '40001' || error.code === '40P01')
}

/**
 * Whether a statement sent on an open connection, which failed with `error`, may have
 * committed all the same. An ERROR the server answered with rolled the statement's
 * transaction back: nothing of it committed. But a connection that failed, was cut or
 * timed out before the answer came, and a session the server ended (FATAL, PANIC), leave
 * the outcome unknown: a server stops, crashes or is told to terminate a session at any
 * moment, after the commit too (an immediate shutdown, a crash, a terminate while the
 * commit waits for a synchronous standby), and a server that never noticed the lost
 * connection goes on with the statement. A client that knew its connection broken never
 * sent the statement (`is not queryable`).
 *
 * The server may translate the severity it reports; in another language than English
 * every error counts as unknown, which costs only the asking (pg-doubt.ts).
 */
export function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof Error) || unavailability(error) === undefined) return false
  if (error instanceof pg.DatabaseError) return error.severity !== 'ERROR'
  return !NOT_SENT.test(error.message)
}

const NOT_SENT = /is not queryable$/

/** Why the server cannot be used now, when `error` says so; undefined for any other error (a bug, to be thrown on). */
export function unavailability(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined
  if (error instanceof pg.DatabaseError) {
    const state = error.code ?? ''
    return UNAVAILABLE_CLASSES.has(state.slice(0, 2)) || UNAVAILABLE_STATES.has(state)
      ? `${error.message} (${state})`
      : undefined
  }
  if ('code' in error && typeof error.code === 'string' && NETWORK_CODES.has(error.code)) return error.message
  return CLIENT_FAILURES.some((failure) => failure.test(error.message)) ? error.message : undefined
}

/** An error of a connection is told by the query it fails; the event itself needs only a listener. */
function heard(): void {}
