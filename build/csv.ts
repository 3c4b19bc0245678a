import { BuildError } from './build-error.js'

const QUOTE = 0x22
const COMMA = 0x2c
const LF = 0x0a
const CR = 0x0d

function indexOrEnd(s: string, char: string, from: number): number {
  const at = s.indexOf(char, from)
  return at < 0 ? s.length : at
}

/** A record longer than this is an unbalanced quote swallowing the file, not data. */
export const MAX_RECORD_CHARS = 1 << 20

/**
 * Streaming RFC 4180 tokenizer: comma-separated, records ended by LF or CRLF, fields in
 * double quotes may hold commas, quotes (doubled) and line breaks. Bytes arrive in
 * chunks and are read as latin1, one character per byte (see readExport); a record cut
 * by a chunk boundary waits, as bytes, for the next chunk.
 *
 * `onRecord` receives one reused array of fields (valid only during the call), its field
 * count, and whether the record was malformed (characters after a closing quote).
 */
export class CsvTokenizer {
  private carry: Buffer = Buffer.alloc(0)
  private readonly fields: string[] = []
  private records = 0
  /** Per field position, whether anyone reads it; others are skipped, never sliced. */
  private wanted: readonly boolean[] | undefined

  /** From now on build values only for the fields at these positions (the rest become ''). */
  readOnly(wanted: readonly boolean[]): void {
    this.wanted = wanted
  }

  constructor(private readonly onRecord: (fields: readonly string[], count: number, malformed: boolean) => void) {}

  push(chunk: Buffer): void {
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk
    const consumed = this.parse(bytes.toString('latin1'), false)
    this.carry = bytes.subarray(consumed)
    if (this.carry.length > MAX_RECORD_CHARS) {
      throw new BuildError(
        `CSV record ${this.records + 1} is longer than ${MAX_RECORD_CHARS} characters: an unbalanced quote?`,
      )
    }
  }

  end(): void {
    if (this.carry.length > 0) this.parse(this.carry.toString('latin1'), true)
    this.carry = Buffer.alloc(0)
  }

  /** Parses the complete records of `s`; returns where the first incomplete one starts. */
  private parse(s: string, final: boolean): number {
    const n = s.length
    const fields = this.fields
    const wanted = this.wanted
    // Next comma and line feed at or after the cursor, found by indexOf (n when none)
    // and reused until the cursor passes them, so the scan stays linear.
    let comma = -1
    let lf = -1
    let i = 0
    records: while (i < n) {
      const start = i
      let count = 0
      let malformed = false
      for (;;) {
        const keep = wanted === undefined || wanted[count] === true
        if (s.charCodeAt(i) === QUOTE) {
          let value = ''
          let from = i + 1
          for (;;) {
            const q = s.indexOf('"', from)
            if (q < 0 || (q + 1 === n && !final)) {
              if (!final) return start
              throw new BuildError(`CSV record ${this.records + 1} has a quoted field that is never closed`)
            }
            if (s.charCodeAt(q + 1) === QUOTE) {
              if (keep) value += s.slice(from, q + 1)
              from = q + 2
              continue
            }
            if (keep) value += s.slice(from, q)
            i = q + 1
            break
          }
          fields[count++] = value
          // After a closing quote only a separator or the end of the record may follow.
          while (i < n) {
            const c = s.charCodeAt(i)
            if (c === COMMA || c === LF || (c === CR && s.charCodeAt(i + 1) === LF)) break
            if (c === CR && i + 1 === n && !final) return start
            malformed = true
            i++
          }
          if (i >= n) {
            if (!final) return start
            this.emit(count, malformed)
            return n
          }
          const c = s.charCodeAt(i)
          if (c === COMMA) {
            i++
            continue
          }
          i += c === CR ? 2 : 1
          this.emit(count, malformed)
          continue records
        }
        if (comma < i) comma = indexOrEnd(s, ',', i)
        if (lf < i) lf = indexOrEnd(s, '\n', i)
        const j = comma < lf ? comma : lf
        if (j >= n && !final) return start
        const end = j > i && s.charCodeAt(j - 1) === CR && j === lf ? j - 1 : j
        fields[count++] = keep ? s.slice(i, end) : ''
        if (j === comma && j < n) {
          i = j + 1
          if (i < n || !final) continue
          fields[count++] = ''
        }
        // A blank line is no record (RFC 4180 would make it one empty field); judged by
        // the text, since a field nobody reads is '' whatever it holds.
        const blank = count === 1 && end === start
        i = j + 1
        if (!blank) this.emit(count, malformed)
        continue records
      }
    }
    return n
  }

  private emit(count: number, malformed: boolean): void {
    this.records++
    this.onRecord(this.fields, count, malformed)
  }
}
