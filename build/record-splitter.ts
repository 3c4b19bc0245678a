import { BuildError } from './build-error.js'
import { MAX_RECORD_BYTES } from './csv.js'
import type { ExportFormat } from './export-reader.js'

const LF = 0x0a
const QUOTE = 0x22

/**
 * Cuts an export's byte stream into pieces that end at a record boundary, so that
 * pieces can be parsed apart (in parallel) and still give every record whole. For CSV
 * a line feed ends a record only outside quotes, so it follows the quote parity; in
 * NDJSON every line feed ends one (JSON strings cannot hold a raw line feed).
 */
export class RecordSplitter {
  private carry: Buffer = Buffer.alloc(0)
  /** Whether the end of `carry` lies inside a quoted CSV field. */
  private quoted = false

  constructor(private readonly format: ExportFormat) {}

  /** Takes the next bytes; returns the complete records they finish, possibly none. */
  push(chunk: Buffer): Buffer | undefined {
    const data = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk])
    const cut = this.format === 'ndjson' ? data.lastIndexOf(LF) + 1 : this.lastCsvCut(data, this.carry.length)
    this.carry = data.subarray(cut)
    if (this.carry.length > MAX_RECORD_BYTES + chunk.length) {
      throw new BuildError(`a record is longer than ${MAX_RECORD_BYTES} bytes: an unbalanced quote?`)
    }
    return cut > 0 ? data.subarray(0, cut) : undefined
  }

  /** The bytes after the last complete record. */
  end(): Buffer {
    const rest = this.carry
    this.carry = Buffer.alloc(0)
    return rest
  }

  /**
   * The offset just after the last line feed outside quotes, scanning only the new
   * bytes from `from` (the carry before them holds no such line feed); 0 when none.
   * Updates the parity for what is left over.
   */
  private lastCsvCut(data: Buffer, from: number): number {
    let quoted = this.quoted
    let cut = 0
    for (let segment = from; ; ) {
      const q = data.indexOf(QUOTE, segment)
      const end = q < 0 ? data.length : q
      if (!quoted && end > segment) {
        const lf = data.lastIndexOf(LF, end - 1)
        if (lf >= segment) cut = lf + 1
      }
      if (q < 0) break
      quoted = !quoted
      segment = q + 1
    }
    // The carry starts at a record boundary (outside quotes), so its parity is that of the whole.
    this.quoted = quoted
    return cut
  }

  /** Length of the first record of `data` (its line feed included), or undefined if it is not complete. */
  static firstCsvRecord(data: Buffer): number | undefined {
    let quoted = false
    for (let segment = 0; ; ) {
      const q = data.indexOf(QUOTE, segment)
      const end = q < 0 ? data.length : q
      if (!quoted) {
        const lf = data.indexOf(LF, segment)
        if (lf >= 0 && lf < end) return lf + 1
      }
      if (q < 0) return undefined
      quoted = !quoted
      segment = q + 1
    }
  }
}
