import { BuildError } from './build-error.js'

const QUOTE = 0x22
const COMMA = 0x2c
const LF = 0x0a
const CR = 0x0d

/** A record longer than this is an unbalanced quote swallowing the file, not data. */
export const MAX_RECORD_BYTES = 1 << 20

/**
 * One CSV record as byte ranges into the bytes it was read from (valid only during the
 * callback that receives it): field k is bytes[start[k], end[k]), without its quotes;
 * `escaped[k]` is 1 when a quoted field holds doubled quotes still to be undone.
 */
export class CsvRecord {
  bytes: Buffer = Buffer.alloc(0)
  count = 0
  /** Characters stood after a closing quote: not a well-formed record. */
  malformed = false
  start = new Int32Array(16)
  end = new Int32Array(16)
  escaped = new Uint8Array(16)

  set(k: number, start: number, end: number, escaped: boolean): void {
    if (k === this.start.length) {
      this.start = grow(this.start)
      this.end = grow(this.end)
      this.escaped = grow(this.escaped)
    }
    this.start[k] = start
    this.end[k] = end
    this.escaped[k] = escaped ? 1 : 0
  }

  /** Field k as text: UTF-8 decoded, doubled quotes undone. */
  text(k: number): string {
    const text = this.bytes.toString('utf8', this.start[k], this.end[k])
    return this.escaped[k] === 1 ? text.replace(/""/g, '"') : text
  }
}

function grow<A extends Int32Array | Uint8Array>(a: A): A {
  const b = new (a.constructor as new (n: number) => A)(a.length * 2)
  b.set(a)
  return b
}

/**
 * Streaming RFC 4180 tokenizer over bytes: comma-separated, records ended by LF or
 * CRLF, fields in double quotes may hold commas, quotes (doubled) and line breaks.
 * It only finds where fields are; nothing is decoded unless a reader asks (CsvRecord).
 * UTF-8 never uses the bytes of a comma, quote or line break inside a character, so
 * scanning bytes is exact. A record cut by a chunk boundary waits for the next chunk.
 */
export class CsvTokenizer {
  private carry: Buffer = Buffer.alloc(0)
  private readonly record = new CsvRecord()

  constructor(private readonly onRecord: (record: CsvRecord) => void) {}

  push(chunk: Buffer): void {
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk
    const consumed = this.parse(bytes, false)
    this.carry = bytes.subarray(consumed)
    if (this.carry.length > MAX_RECORD_BYTES) {
      throw new BuildError(
        'record_too_long',
        `a CSV record is longer than ${MAX_RECORD_BYTES} bytes: an unbalanced quote?`,
      )
    }
  }

  end(): void {
    if (this.carry.length > 0) this.parse(this.carry, true)
    this.carry = Buffer.alloc(0)
  }

  /** Parses the complete records of `b`; returns where the first incomplete one starts. */
  private parse(b: Buffer, final: boolean): number {
    const n = b.length
    const record = this.record
    record.bytes = b
    let i = 0
    records: while (i < n) {
      const start = i
      let count = 0
      record.malformed = false
      for (;;) {
        if (b[i] === QUOTE) {
          let j = i + 1
          let escaped = false
          for (;;) {
            while (j < n && b[j] !== QUOTE) j++
            if (j >= n || (j + 1 === n && !final)) {
              if (!final) return start
              throw new BuildError('unclosed_quote', 'a CSV quoted field is never closed')
            }
            if (b[j + 1] !== QUOTE) break
            escaped = true
            j += 2
          }
          record.set(count++, i + 1, j, escaped)
          i = j + 1
          // After a closing quote only a separator or the end of the record may follow.
          while (i < n) {
            const c = b[i]
            if (c === COMMA || c === LF || (c === CR && b[i + 1] === LF)) break
            if (c === CR && i + 1 === n && !final) return start
            record.malformed = true
            i++
          }
          if (i >= n) {
            if (!final) return start
            this.emit(count)
            return n
          }
          if (b[i] === COMMA) {
            i++
            continue
          }
          i += b[i] === CR ? 2 : 1
          this.emit(count)
          continue records
        }
        let j = i
        while (j < n) {
          const c = b[j]
          if (c === COMMA || c === LF) break
          j++
        }
        if (j >= n && !final) return start
        const end = j > i && b[j - 1] === CR && (j >= n || b[j] === LF) ? j - 1 : j
        record.set(count++, i, end, false)
        if (j < n && b[j] === COMMA) {
          i = j + 1
          if (i < n || !final) continue
          record.set(count++, n, n, false)
        }
        // A blank line is no record (RFC 4180 would make it one empty field).
        const blank = count === 1 && end === start
        i = j + 1
        if (!blank) this.emit(count)
        continue records
      }
    }
    return n
  }

  private emit(count: number): void {
    this.record.count = count
    this.onRecord(this.record)
  }
}
