import { StringDecoder } from 'node:string_decoder'
import { COL, COLUMNS, REQUIRED_COLUMNS, type Column } from '../format/export-columns.js'
import { BuildError } from './build-error.js'
import { CsvRecord, CsvTokenizer, MAX_RECORD_BYTES } from './csv.js'
import type { TextTable } from './text-table.js'

/**
 * One data row, read by column (a COL number). Values are trimmed of spaces and tabs; an
 * absent column reads as empty. Besides the text, a row offers the few readings the
 * build needs so that a CSV row can answer them from its bytes without making strings.
 */
export interface RawRow {
  /** The value's text ('' when absent or empty). */
  get(column: number): string
  isEmpty(column: number): boolean
  /** Whether the value is text (a CSV field always is; an NDJSON object or array is not). */
  isText(column: number): boolean
  /** The value as an integer: an optional minus and at most 15 digits; NaN otherwise. */
  integer(column: number): number
  /** A string that identifies the value exactly (an id to compare), not meant for display. */
  key(column: number): string
  /** table's value for this value's text, looked up by its bytes where the row has them. */
  lookup<T>(column: number, table: TextTable<T>): T
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
  while (
    first < head.length &&
    (head[first] === 0x20 || head[first] === 0x09 || head[first] === 0x0a || head[first] === 0x0d)
  )
    first++
  if (first === head.length) return undefined
  return { format: head[first] === 0x7b ? 'ndjson' : 'csv', start }
}

const SPACE = 0x20
const TAB = 0x09

/** A CSV row over the tokenizer's current record. */
class CsvRow implements RawRow {
  record = new CsvRecord()
  // The trimmed range of the field last located, and whether it holds doubled quotes.
  private start = 0
  private end = 0
  private escaped = false

  constructor(private readonly index: Int16Array) {}

  private locate(column: number): void {
    const at = this.index[column]!
    if (at < 0) {
      this.start = this.end = 0
      this.escaped = false
      return
    }
    const b = this.record.bytes
    let start = this.record.start[at]!
    let end = this.record.end[at]!
    while (start < end && (b[start] === SPACE || b[start] === TAB)) start++
    while (end > start && (b[end - 1] === SPACE || b[end - 1] === TAB)) end--
    this.start = start
    this.end = end
    this.escaped = this.record.escaped[at] === 1
  }

  get(column: number): string {
    this.locate(column)
    const text = this.record.bytes.toString('utf8', this.start, this.end)
    return this.escaped ? text.replace(/""/g, '"') : text
  }

  isEmpty(column: number): boolean {
    this.locate(column)
    return this.start === this.end
  }

  isText(): boolean {
    return true
  }

  integer(column: number): number {
    this.locate(column)
    const b = this.record.bytes
    const negative = b[this.start] === 0x2d
    const from = negative ? this.start + 1 : this.start
    if (from === this.end || this.end - from > 15) return NaN
    let n = 0
    for (let i = from; i < this.end; i++) {
      const d = b[i]! - 0x30
      if (d < 0 || d > 9) return NaN
      n = n * 10 + d
    }
    return negative ? -n : n
  }

  key(column: number): string {
    this.locate(column)
    // latin1 maps each byte to one character: exact, and cheaper than decoding UTF-8.
    return this.escaped ? this.get(column) : this.record.bytes.toString('latin1', this.start, this.end)
  }

  lookup<T>(column: number, table: TextTable<T>): T {
    this.locate(column)
    return this.escaped ? table.fromText(this.get(column)) : table.fromBytes(this.record.bytes, this.start, this.end)
  }
}

function csvRows(onRow: (row: RawRow | undefined) => void) {
  let row: CsvRow | undefined
  let width = 0
  return new CsvTokenizer((record) => {
    if (row === undefined) {
      width = record.count
      row = new CsvRow(headerIndex(Array.from({ length: record.count }, (_, k) => record.text(k))))
      return
    }
    if (record.malformed || record.count !== width) return onRow(undefined)
    row.record = record
    onRow(row)
  })
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
      'not_an_export',
      `not a listings export: the CSV header has no column ${missing.join(', ')} (found: ${header
        .slice(0, 20)
        .map((h) => JSON.stringify(h.slice(0, 40)))
        .join(', ')})`,
    )
  }
  return index
}

/** An NDJSON row over the current line's object. */
class JsonRow implements RawRow {
  object: Record<string, unknown> = {}

  get(column: number): string {
    return textOf(this.object[COLUMNS[column]!])
  }

  isEmpty(column: number): boolean {
    return this.get(column) === ''
  }

  isText(column: number): boolean {
    const value = this.object[COLUMNS[column]!]
    return typeof value !== 'object' || value === null
  }

  integer(column: number): number {
    const text = this.get(column)
    return /^-?[0-9]{1,15}$/.test(text) ? Number(text) : NaN
  }

  key(column: number): string {
    return this.get(column)
  }

  lookup<T>(column: number, table: TextTable<T>): T {
    return table.fromText(this.get(column))
  }
}

function ndjsonRows(onRow: (row: RawRow | undefined) => void) {
  const decoder = new StringDecoder('utf8')
  let carry = ''
  const row = new JsonRow()
  const line = (text: string) => {
    if (text.trim().length === 0) return
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return onRow(undefined)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return onRow(undefined)
    row.object = parsed as Record<string, unknown>
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
      if (carry.length > MAX_RECORD_BYTES)
        throw new BuildError('record_too_long', `an NDJSON line is longer than ${MAX_RECORD_BYTES} characters`)
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
