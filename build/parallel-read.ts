import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { BuildError, type BuildErrorCode } from './build-error.js'
import { detectFormat, type ExportFormat } from './export-reader.js'
import { ListingStore, type StorePart } from './listing-store.js'
import { RecordSplitter } from './record-splitter.js'
import type { IgnoredValues, RejectionReason, ValidationRules } from './validate.js'

/** What a parse worker is started with. */
export interface WorkerSetup {
  readonly format: ExportFormat
  /** The CSV header record (empty for NDJSON), parsed by every worker before its pieces. */
  readonly header: Uint8Array
  readonly fx: readonly (readonly [string, number])[]
  readonly maxYear: number | undefined
}
/** Main thread to worker: the next piece, or null at the end. */
export interface ReaderMessage {
  readonly piece: Uint8Array | null
}
/** Worker to main thread. */
export type WorkerMessage =
  | { readonly kind: 'parsed' }
  | {
      readonly kind: 'done'
      readonly part: StorePart
      /** Rows each piece added to the worker's store, in the order the pieces came. */
      readonly pieceRows: readonly number[]
      readonly rowsRead: number
      readonly rejected: Partial<Record<RejectionReason, number>>
      readonly ignored: IgnoredValues
      readonly conversions: Readonly<Record<string, number>>
      /** Rows rejected as unsupported_currency, by their currency. */
      readonly unrated: Readonly<Record<string, number>>
    }
  | {
      readonly kind: 'failed'
      readonly message: string
      readonly stack: string | undefined
      /** The code of a BuildError (an expected failure); undefined for any other error. */
      readonly code: BuildErrorCode | undefined
    }
  | {
      readonly kind: 'failed'
      readonly message: string
      readonly stack: string | undefined
      readonly code: BuildErrorCode | undefined
    }

export interface ReadResult {
  readonly format: ExportFormat | undefined
  readonly rowsRead: number
  readonly rejected: Partial<Record<RejectionReason, number>>
  /** Values dropped from kept rows, by column (contract 1.1). */
  readonly ignored: IgnoredValues
  readonly conversions: Record<string, number>
  /** Rows rejected as unsupported_currency, by their currency. */
  readonly unrated: Record<string, number>
  readonly store: ListingStore
}

/** Bytes gathered into one piece before it goes to a worker: few messages, little waiting. */
const PIECE_BYTES = 4 << 20
/** Pieces a worker may have queued; beyond that reading waits, so memory stays bounded. */
const QUEUED_PER_WORKER = 3
const WORKER = new URL('./parse-worker.js', import.meta.url)
/** Past a few workers the one thread that decompresses and cuts the stream is the bound. */
const MAX_WORKERS = 4

/**
 * Reads and validates an export on all cores: this thread decompresses and cuts the
 * stream at record boundaries, workers parse and validate the pieces in turn, and their
 * rows are merged back in file order (which de-duplication depends on).
 */
export async function readInParallel(
  bytes: AsyncIterable<Buffer>,
  rules: ValidationRules,
  onProgress: () => void,
  workers = Math.min(MAX_WORKERS, Math.max(2, availableParallelism())),
): Promise<ReadResult> {
  const iterator = bytes[Symbol.asyncIterator]()
  const head = await readHead(iterator)
  if (head === undefined)
    return {
      format: undefined,
      rowsRead: 0,
      rejected: {},
      ignored: {},
      conversions: {},
      unrated: {},
      store: new ListingStore(),
    }
  const setup: WorkerSetup = { format: head.format, header: head.header, fx: [...rules.fx], maxYear: rules.maxYear }
  const pool = Array.from({ length: workers }, () => new ParseWorker(setup, onProgress))
  try {
    const splitter = new RecordSplitter(head.format, PIECE_BYTES)
    let sent = 0
    const take = async (chunk: Buffer) => {
      const piece = splitter.push(chunk)
      if (piece !== undefined) await pool[sent++ % workers]!.send(piece)
    }
    if (head.rest.length > 0) await take(head.rest)
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) await take(next.value)
    const last = splitter.end()
    if (last.length > 0) await pool[sent++ % workers]!.send(last)
    return { format: head.format, ...merge(await Promise.all(pool.map((w) => w.finish())), sent) }
  } finally {
    await Promise.all(pool.map((w) => w.terminate()))
  }
}

/**
 * The first bytes: the format and, for CSV, the header record every worker parses
 * first; `rest` is what follows it. Undefined for an export with nothing but white space.
 */
async function readHead(iterator: AsyncIterator<Buffer>) {
  let head = Buffer.alloc(0)
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
    head = Buffer.concat([head, next.value])
    const detected = detectFormat(head)
    if (detected === undefined) continue
    if (detected.format === 'ndjson')
      return { format: detected.format, header: new Uint8Array(0), rest: head.subarray(detected.start) }
    const length = RecordSplitter.firstCsvRecord(head.subarray(detected.start))
    if (length !== undefined) {
      const end = detected.start + length
      return {
        format: detected.format,
        header: new Uint8Array(head.subarray(detected.start, end)),
        rest: head.subarray(end),
      }
    }
    if (head.length > 1 << 20)
      throw new BuildError('not_an_export', 'not a listings export: no header line in the first MiB')
  }
  const detected = detectFormat(head)
  if (detected === undefined) return undefined
  // A CSV that is a header without a line feed, or NDJSON without one: all of it is the start.
  return detected.format === 'csv'
    ? { format: detected.format, header: new Uint8Array(head.subarray(detected.start)), rest: Buffer.alloc(0) }
    : { format: detected.format, header: new Uint8Array(0), rest: head.subarray(detected.start) }
}

/** The workers' rows in file order (piece k went to worker k mod n), and their counts summed. */
function merge(results: readonly Done[], pieces: number) {
  const ranges: [number, number][] = []
  const next = results.map(() => 0)
  for (let piece = 0; piece < pieces; piece++) {
    const k = piece % results.length
    ranges.push([k, results[k]!.pieceRows[next[k]!++]!])
  }
  const rejected: Partial<Record<RejectionReason, number>> = {}
  const ignored: IgnoredValues = {}
  const conversions: Record<string, number> = {}
  const unrated: Record<string, number> = {}
  let rowsRead = 0
  for (const result of results) {
    rowsRead += result.rowsRead
    addCounts(rejected, result.rejected)
    addCounts(ignored, result.ignored)
    addCounts(conversions, result.conversions)
    addCounts(unrated, result.unrated)
  }
  const store = ListingStore.merge(
    results.map((r) => r.part),
    ranges,
  )
  return { rowsRead, rejected, ignored, conversions, unrated, store }
}

function addCounts<K extends string>(into: Partial<Record<K, number>>, counts: Partial<Record<K, number>>): void {
  for (const [key, n] of Object.entries(counts) as [K, number][]) into[key] = (into[key] ?? 0) + n
}

type Done = Extract<WorkerMessage, { kind: 'done' }>

/** One worker with its queue of pieces in flight. */
class ParseWorker {
  private readonly worker: Worker
  private inFlight = 0
  private failure: Error | undefined
  private room: (() => void) | undefined
  private readonly result: Promise<Done>

  constructor(setup: WorkerSetup, onProgress: () => void) {
    // execArgv: none of the parent's flags; a test runner's loader hooks would cost each worker a second to start.
    this.worker = new Worker(WORKER, { workerData: setup, execArgv: [] })
    this.result = new Promise<Done>((resolve, reject) => {
      this.worker.on('message', (message: WorkerMessage) => {
        if (message.kind === 'parsed') {
          this.inFlight--
          this.room?.()
          onProgress()
        } else if (message.kind === 'done') {
          resolve(message)
        } else {
          const error =
            message.code !== undefined
              ? new BuildError(message.code, message.message)
              : Object.assign(new Error(message.message), { stack: message.stack })
          this.fail(error, reject)
        }
      })
      this.worker.on('error', (error) => this.fail(error, reject))
      this.worker.on('exit', (code) => this.fail(new Error(`a parse worker exited with code ${code}`), reject))
    })
    // Failures surface through finish() or the next send(); never as an unhandled rejection.
    this.result.catch(() => {})
  }

  private fail(error: Error, reject: (error: Error) => void): void {
    this.failure ??= error
    reject(error)
    this.room?.()
  }

  /**
   * Queues a piece, waiting while the worker has enough; fails as soon as the worker
   * has. The piece's memory moves to the worker: the caller must not touch it again.
   */
  async send(piece: Buffer): Promise<void> {
    if (this.failure !== undefined) throw this.failure
    while (this.inFlight >= QUEUED_PER_WORKER) {
      await new Promise<void>((resolve) => (this.room = resolve))
      if (this.failure !== undefined) throw this.failure
    }
    this.inFlight++
    this.worker.postMessage({ piece } satisfies ReaderMessage, [piece.buffer as ArrayBuffer])
  }

  finish(): Promise<Done> {
    this.worker.postMessage({ piece: null } satisfies ReaderMessage)
    return this.result
  }

  terminate(): Promise<number> {
    return this.worker.terminate()
  }
}
