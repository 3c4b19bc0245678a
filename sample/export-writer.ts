import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { COLUMNS, DETAIL_COLUMNS } from '../format/export-columns.js'

/** The contract's columns, and a free-text title as real exports carry (the build ignores it). */
export const HEADER = [...COLUMNS, 'title'] as const
export type Row = Record<(typeof HEADER)[number], string | number>
export type Header = readonly (typeof HEADER)[number][]
/** The columns of an export that tells no more of a car than its model: as exports were before the detail columns. */
export const WITHOUT_DETAIL: Header = HEADER.filter((c) => !(DETAIL_COLUMNS as readonly string[]).includes(c))

export function csvHeader(header: Header): string {
  return `${header.join(',')}\n`
}

export function csvLine(row: Row, header: Header): string {
  let line = ''
  for (let i = 0; i < header.length; i++) {
    if (i > 0) line += ','
    const value = row[header[i]!]
    // Numbers and empty fields, most of a row, never need quoting: not testing them keeps the generator fast.
    line += typeof value === 'number' || value === '' ? value : csvField(value)
  }
  return `${line}\n`
}

/** RFC 4180 quoting where a field needs it. */
function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

export function ndjsonLine(row: Row, header: Header): string {
  return `${JSON.stringify(ndjsonValues(row, header))}\n`
}

/** NDJSON carries numbers as numbers and booleans as booleans, where the row has them so. */
function ndjsonValues(row: Row, header: Header): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {}
  for (const key of header) {
    const value = row[key]
    out[key] = value === '' ? null : value === 'true' ? true : value === 'false' ? false : value
  }
  return out
}

/** Collects small writes into large ones and honours back-pressure. */
export class BufferedWriter {
  private pending = ''

  constructor(private readonly sink: Writable) {}

  async write(text: string): Promise<void> {
    this.pending += text
    if (this.pending.length < 1 << 16) return
    const chunk = this.pending
    this.pending = ''
    if (!this.sink.write(chunk)) await new Promise<void>((resolve) => this.sink.once('drain', resolve))
  }

  async end(): Promise<void> {
    if (this.pending.length > 0) this.sink.write(this.pending)
    this.pending = ''
    this.sink.end()
    await finished(this.sink)
  }
}
