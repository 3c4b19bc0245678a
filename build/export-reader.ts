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

/** One data row, read by column: '' for a value that is absent or empty (after trimming). */
export interface RawRow {
  get(column: Column): string
}

export type ExportFormat = 'csv' | 'ndjson'

/**
 * Reads an export's bytes (CSV or NDJSON, told apart by the first character) and calls
 * `onRow` once per data row: with the row, or with `undefined` for a row that is not a
 * row at all (wrong number of CSV fields, an NDJSON line that is no JSON object).
 * Returns the format found. Memory stays bounded by one chunk plus one record.
 */
export async function readExport(
  bytes: AsyncIterable<Buffer>,
  onRow: (row: RawRow | undefined) => void,
): Promise<ExportFormat | undefined> {
  const decoder = new StringDecoder('utf8')
  let parser: { push(text: string): void; end(): void } | undefined
  let format: ExportFormat | undefined
  for await (const chunk of bytes) {
    let text = decoder.write(chunk)
    if (parser === undefined) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      const first = text.trimStart()
      if (first.length === 0) continue
      format = first.startsWith('{') ? 'ndjson' : 'csv'
      parser = format === 'csv' ? csvRows(onRow) : ndjsonRows(onRow)
    }
    parser.push(text)
  }
  const rest = decoder.end()
  if (parser !== undefined) {
    if (rest.length > 0) parser.push(rest)
    parser.end()
  }
  return format
}

function csvRows(onRow: (row: RawRow | undefined) => void) {
  let index: Int16Array | undefined
  let width = 0
  let fields: readonly string[] = []
  const row: RawRow = {
    get(column) {
      const at = index![COLUMN_NUMBER[column]]!
      return at < 0 ? '' : fields[at]!.trim()
    },
  }
  return new CsvTokenizer((values, count, malformed) => {
    if (index === undefined) {
      index = headerIndex(values.slice(0, count))
      width = count
      return
    }
    if (malformed || count !== width) return onRow(undefined)
    fields = values
    onRow(row)
  })
}

const COLUMN_NUMBER = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<Column, number>

function headerIndex(header: readonly string[]): Int16Array {
  const index = new Int16Array(COLUMNS.length).fill(-1)
  header.forEach((name, at) => {
    const column = COLUMN_NUMBER[name.trim().toLowerCase() as Column]
    if (column !== undefined && index[column] === -1) index[column] = at
  })
  const missing = REQUIRED_COLUMNS.filter((c) => index[COLUMN_NUMBER[c]] === -1)
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
  let carry = ''
  let object: Record<string, unknown> = {}
  const row: RawRow = {
    get(column) {
      return textOf(object[column])
    },
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
    push(text: string) {
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
      line(carry)
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
