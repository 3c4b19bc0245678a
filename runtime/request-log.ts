import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { logEvent } from './events.js'

/** What is logged of one request: never its key, its query string or its body. */
export interface RequestRecord {
  readonly request_id: string
  readonly method: string
  /** The route's path, or null when the path matched none. */
  readonly route: string | null
  readonly status: number
  readonly duration_ms: number
  readonly account_id: string | null
  readonly ip: string
}

/** Lines kept before they are written together, and how long the first may wait. */
const BATCH_LINES = 256
const BATCH_MS = 100

/** How a request's line reads: JSON for a log shipper, or short for a person at a terminal. */
export type LogStyle = 'json' | 'terminal'

/**
 * One line per request (JSON, structured, for a log shipper; or short, for a terminal),
 * written in batches: at thousands of requests a second a write per line would cost
 * more than the request. `write` gets whole lines; flush() writes what is pending (on shutdown).
 */
export class RequestLog {
  private lines: string[] = []
  private timer: NodeJS.Timeout | undefined
  private lastMs = NaN
  private lastIso = ''

  constructor(
    private readonly write: (text: string) => void,
    private readonly clock: () => number = Date.now,
    private readonly style: LogStyle = 'json',
  ) {}

  record(e: RequestRecord): void {
    this.lines.push(this.style === 'json' ? this.json(e) : terminalLine(e, this.clock()))
    if (this.lines.length >= BATCH_LINES) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), BATCH_MS).unref()
  }

  private json(e: RequestRecord): string {
    // Every value is a token that needs no escaping (ids checked or made here, the
    // runtime's own route paths, a method node's parser accepted, checked IP addresses),
    // so the line is put together directly: JSON.stringify would cost several times more.
    return (
      `{"time":"${this.time()}","level":"info","message":"request","pid":${process.pid},"request_id":"${e.request_id}","method":"${e.method}",` +
      `"route":${e.route === null ? 'null' : `"${e.route}"`},"status":${e.status},"duration_ms":${e.duration_ms},` +
      `"account_id":${e.account_id === null ? 'null' : `"${e.account_id}"`},"ip":"${e.ip}"}`
    )
  }

  /** The time as ISO 8601, made once per millisecond. */
  private time(): string {
    const now = this.clock()
    if (now !== this.lastMs) {
      this.lastMs = now
      this.lastIso = new Date(now).toISOString()
    }
    return this.lastIso
  }

  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.lines.length === 0) return
    const text = `${this.lines.join('\n')}\n`
    this.lines = []
    this.write(text)
  }
}

/**
 * A request as a person at a terminal reads it, at the local time `now`:
 * `14:03:27 200 GET /v1/market/valuation 3.21 ms`; a path that matched no route is `-`.
 * Its values are tokens, as in the JSON line: nothing in it acts on a terminal.
 */
export function terminalLine(e: RequestRecord, now: number): string {
  return `${new Date(now).toTimeString().slice(0, 8)} ${e.status} ${e.method} ${e.route ?? '-'} ${e.duration_ms} ms`
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The caller's X-Request-Id when it is a sane token (so it can be echoed and logged), else a new one. */
export function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID()
}

/** Bytes of log lines that may wait for a slow reader before new lines are dropped. */
const MAX_PENDING_BYTES = 8 << 20

/**
 * A writer to stdout that never blocks the event loop: Node writes to a pipe
 * synchronously, so a log reader that falls behind would stall every request. This
 * writes from libuv's thread pool instead and, past MAX_PENDING_BYTES waiting, drops
 * lines (counted, and reported on stderr once the reader catches up) rather than grow.
 * `end` resolves once everything written has reached stdout.
 */
export function stdoutWriter(): { readonly write: (text: string) => void; readonly end: () => Promise<void> } {
  const out = createWriteStream('', { fd: 1, autoClose: false })
  let dropped = 0
  out.on('error', () => {}) // stdout closed: nothing left to tell
  const end = () => new Promise<void>((resolve) => out.end(resolve))
  const write = (text: string) => {
    if (out.writableLength > MAX_PENDING_BYTES) {
      dropped += text.split('\n').length - 1
      return
    }
    if (dropped > 0) {
      logEvent('warn', 'request log lines dropped: stdout was not read', { dropped })
      dropped = 0
    }
    out.write(text)
  }
  return { write, end }
}
