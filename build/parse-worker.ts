/**
 * A worker thread that parses and validates its share of an export: pieces that each
 * end at a record boundary (RecordSplitter), in the order the main thread sends them.
 * It keeps the rows in a ListingStore of its own and, at the end, posts that store
 * with how many rows each piece gave, so the main thread can merge in file order.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { BuildError } from './build-error.js'
import { MAX_UNRATED_CURRENCIES } from './build-warnings.js'
import { readExport, type ExportFormat } from './export-reader.js'
import { ListingStore } from './listing-store.js'
import { RowValidator, emptyListing, type RejectionReason } from './validate.js'
import type { ReaderMessage, WorkerMessage, WorkerSetup } from './parallel-read.js'
import { messageOf } from '../format/message-of.js'

const port = parentPort!
const setup = workerData as WorkerSetup
const store = new ListingStore()
const validator = new RowValidator({ fx: new Map(setup.fx), maxYear: setup.maxYear }, store.spellings)
const parsed = emptyListing()
const rejected: Partial<Record<RejectionReason, number>> = {}
const conversions: Record<string, number> = {}
const unrated: Record<string, number> = {}
/** Rows each piece added to the store (rejected rows are not in it). */
const pieceRows: number[] = []
let rows = 0

const pending: (Buffer | null)[] = []
let wake: (() => void) | undefined
port.on('message', (message: ReaderMessage) => {
  pending.push(
    message.piece === null
      ? null
      : Buffer.from(message.piece.buffer, message.piece.byteOffset, message.piece.byteLength),
  )
  wake?.()
})

/** The header first, then the pieces as they arrive; counts the rows each piece gave once it is parsed. */
async function* pieces(): AsyncIterable<Buffer> {
  if (setup.header.byteLength > 0) yield Buffer.from(setup.header)
  for (;;) {
    if (pending.length === 0) await new Promise<void>((resolve) => (wake = resolve))
    const piece = pending.shift()!
    if (piece === null) return
    const before = store.length
    yield piece
    // Resumed: readExport has parsed the whole piece.
    pieceRows.push(store.length - before)
    port.postMessage({ kind: 'parsed' } satisfies WorkerMessage)
  }
}

async function main(format: ExportFormat) {
  await readExport(
    pieces(),
    (row) => {
      rows++
      const reason = row === undefined ? 'malformed_row' : validator.validate(row, parsed)
      if (reason !== undefined) {
        rejected[reason] = (rejected[reason] ?? 0) + 1
        if (reason === 'unsupported_currency') countUnrated(parsed.currency)
        return
      }
      if (parsed.currency !== 'PLN') conversions[parsed.currency] = (conversions[parsed.currency] ?? 0) + 1
      store.add(parsed)
    },
    format,
  )
  // A last record without a line feed is only given when the parser ends.
  const late = store.length - pieceRows.reduce((n, r) => n + r, 0)
  if (late > 0) pieceRows[pieceRows.length - 1] = (pieceRows.at(-1) ?? 0) + late
  const { part, transfer } = store.part()
  port.postMessage(
    {
      kind: 'done',
      part,
      pieceRows,
      rowsRead: rows,
      rejected,
      ignored: validator.ignored,
      conversions,
      unrated,
    } satisfies WorkerMessage,
    transfer,
  )
}

/**
 * A currency is text of the export: past a few distinct ones, new ones go uncounted (rejected_by_reason counts all).
 */
function countUnrated(currency: string) {
  if (!(currency in unrated) && Object.keys(unrated).length >= MAX_UNRATED_CURRENCIES) return
  unrated[currency] = (unrated[currency] ?? 0) + 1
}

main(setup.format).catch((error: unknown) => {
  const message = messageOf(error)
  const stack = error instanceof Error ? error.stack : undefined
  port.postMessage({
    kind: 'failed',
    message,
    stack,
    code: error instanceof BuildError ? error.code : undefined,
  } satisfies WorkerMessage)
})
