import { StringDecoder } from 'node:string_decoder'
import { BuildError } from './build-error.js'
import { CsvTokenizer, MAX_RECORD_CHARS } from './csv.js'

/** The columns of the listings export (data contract, section 1). */
export const COLUMNS = [
  'listing_id',
  'make',
  'model',
  'year',
  'price',
  'currency',
  'mileage_km',
  'fuel_type',
  'gearbox',
  'imported',
  'voivodeship',
  'first_seen',
  'last_seen',
  'active',
] as const
export type Column = (typeof COLUMNS)[number]
/** Position of each column in COLUMNS: rows are read by these numbers, not by name. */
export const COL = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as { readonly [C in Column]: number }
export const REQUIRED_COLUMNS: readonly Column[] = [
  'listing_id',
  'make',
  'model',
  'year',
  'price',
  'first_seen',
  'last_seen',
  'active',
]

/**
 * One data row, read by column. `get` gives a value's raw text ('' when absent or
 * empty, spaces and tabs trimmed): exact for ASCII, which numbers, dates and ids are,
 * but a CSV's other characters are still its UTF-8 bytes one per character (see
 * readExport). `text` turns raw text into the real string wherever it is interpreted.
 */
export interface RawRow {
  /** The raw text of a column given by its COL number. */
  get(column: number): string
  text(raw: string): string
}

export type ExportFormat = 'csv' | 'ndjson'

/**
 * Reads an export's bytes (CSV or NDJSON, told apart by the first character) and calls
 * `onRow` once per data row: with the row, or with `undefined` for a row that is not a
 * row at all (wrong number of CSV fields, an NDJSON line that is no JSON object).
 * Returns the format found. Memory stays bounded by one chunk plus one record.
 *
 * A CSV is read as latin1, one character per byte: that costs no decoding and keeps
 * every structural character (comma, quote, line break) where UTF-8 has it, since
 * UTF-8 never uses those bytes inside a multi-byte character. Values are decoded as
 * UTF-8 only where they are interpreted, once per distinct value.
 */
export async function readExport(
  bytes: AsyncIterable<Buffer>,
  onRow: (row: RawRow | undefined) => void,
  known?: ExportFormat,
): Promise<ExportFormat | undefined> {
  let parser: { push(chunk: Buffer): void; end(): void } | undefined
  let format = known
  let head = Buffer.alloc(0)
  for await (const chunk of bytes) {
    if (parser !== undefined) {
      parser.push(chunk)
      continue
    }
    head = Buffer.concat([head, chunk])
    const detected = detectFormat(head)
    if (detected === undefined) continue
    format ??= detected.format
    parser = format === 'csv' ? csvRows(onRow) : ndjsonRows(onRow)
    parser.push(head.subarray(detected.start))
  }
  parser?.end()
  return format
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/**
 * The format of an export from its first bytes: NDJSON when the first character after
 * a BOM and white space is `{`, CSV otherwise; `start` skips the BOM. Undefined while
 * the bytes are all white space (or the start of a BOM).
 */
export function detectFormat(head: Buffer): { format: ExportFormat; start: number } | undefined {
  // Wait for the rest of a BOM the first bytes may have only begun.
  if (head.length < 3 && BOM.subarray(0, head.length).equals(head)) return undefined
  const start = head.subarray(0, 3).equals(BOM) ? 3 : 0
  let first = start
  while (first < head.length && (head[first] === 0x20 || head[first] === 0x09 || head[first] === 0x0a || head[first] === 0x0d)) first++
  if (first === head.length) return undefined
  return { format: head[first] === 0x7b ? 'ndjson' : 'csv', start }
}

/** Trims spaces and tabs only: a latin1-read value may end in 0xA0, the last byte of a UTF-8 `Š`. */
function trimBlanks(s: string): string {
  let start = 0
  let end = s.length
  while (start < end && (s.charCodeAt(start) === 0x20 || s.charCodeAt(start) === 0x09)) start++
  while (end > start && (s.charCodeAt(end - 1) === 0x20 || s.charCodeAt(end - 1) === 0x09)) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}

const NON_ASCII = /[\u0080-\u00ff]/
/** The real string of latin1-read UTF-8 bytes. */
function utf8(raw: string): string {
  return NON_ASCII.test(raw) ? Buffer.from(raw, 'latin1').toString('utf8') : raw
}

function csvRows(onRow: (row: RawRow | undefined) => void) {
  let index: Int16Array | undefined
  let width = 0
  let fields: readonly string[] = []
  const row: RawRow = {
    get(column) {
      const at = index![column]!
      return at < 0 ? '' : trimBlanks(fields[at]!)
    },
    text: utf8,
  }
  const tokenizer = new CsvTokenizer((values, count, malformed) => {
    if (index === undefined) {
      index = headerIndex(values.slice(0, count).map(utf8))
      width = count
      tokenizer.readOnly(Array.from({ length: count }, (_, at) => index!.includes(at)))
      return
    }
    if (malformed || count !== width) return onRow(undefined)
    fields = values
    onRow(row)
  })
  return tokenizer
}


function headerIndex(header: readonly string[]): Int16Array {
  const index = new Int16Array(COLUMNS.length).fill(-1)
  header.forEach((name, at) => {
    const column = COL[name.trim().toLowerCase() as Column]
    if (column !== undefined && index[column] === -1) index[column] = at
  })
  const missing = REQUIRED_COLUMNS.filter((c) => index[COL[c]] === -1)
  if (missing.length > 0) {
    throw new BuildError(
      `not a listings export: the CSV header has no column ${missing.join(', ')} (found: ${header
        .slice(0, 20)
        .map((h) => JSON.stringify(h.slice(0, 40)))
        .join(', ')})`,
    )
  }
  return index
}

function ndjsonRows(onRow: (row: RawRow | undefined) => void) {
  const decoder = new StringDecoder('utf8')
  let carry = ''
  let object: Record<string, unknown> = {}
  const row: RawRow = {
    get(column) {
      return textOf(object[COLUMNS[column]!])
    },
    text: (raw) => raw,
  }
  const line = (text: string) => {
    if (text.trim().length === 0) return
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return onRow(undefined)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return onRow(undefined)
    object = parsed as Record<string, unknown>
    onRow(row)
  }
  return {
    push(chunk: Buffer) {
      const text = decoder.write(chunk)
      let from = 0
      let s = text
      if (carry.length > 0) {
        s = carry + text
        carry = ''
      }
      for (let nl = s.indexOf('\n'); nl >= 0; nl = s.indexOf('\n', from)) {
        line(s.slice(from, nl))
        from = nl + 1
      }
      carry = s.slice(from)
      if (carry.length > MAX_RECORD_CHARS) throw new BuildError(`an NDJSON line is longer than ${MAX_RECORD_CHARS} characters`)
    },
    end() {
      line(carry + decoder.end())
      carry = ''
    },
  }
}

/** NDJSON values may be JSON numbers and booleans or strings in the CSV forms. */
function textOf(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.trim()
    case 'number':
      return Number.isFinite(value) ? String(value) : 'NaN'
    case 'boolean':
      return value ? 'true' : 'false'
    case 'undefined':
      return ''
    default:
      // null is an empty value; an object or array is a value no column accepts.
      return value === null ? '' : '[object]'
  }
}
