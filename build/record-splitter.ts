import { BuildError } from './build-error.js'
import { MAX_RECORD_BYTES } from './csv.js'
import type { ExportFormat } from './export-reader.js'

const LF = 0x0a
const QUOTE = 0x22

/**
 * Gathers an export's byte stream into pieces of about `size` bytes that end at a
 * record boundary, so that pieces can be parsed apart (in parallel) and still give
 * every record whole. For CSV a line feed ends a record only outside quotes, so the
 * quote parity is followed; in NDJSON every line feed ends one (JSON strings cannot
 * hold a raw line feed). Each byte is copied once, into the piece it ends up in, and a
 * piece owns its buffer, so it can be transferred to a worker as it is.
 */
export class RecordSplitter {
  private buffer: Buffer
  private used = 0
  /** End of the last complete record in `buffer`. */
  private cut = 0
  /** Whether the end of `buffer` lies inside a quoted CSV field. */
  private quoted = false

  constructor(
    private readonly format: ExportFormat,
    private readonly size: number,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(size * 2)
  }

  /** Takes the next bytes; returns a piece once one is complete. */
  push(chunk: Buffer): Buffer | undefined {
    if (this.used + chunk.length > this.buffer.length) this.grow(this.used + chunk.length)
    chunk.copy(this.buffer, this.used)
    const from = this.used
    this.used += chunk.length
    const cut = this.format === 'ndjson' ? this.buffer.lastIndexOf(LF, this.used - 1) + 1 : this.lastCsvCut(from)
    if (cut > this.cut) this.cut = cut
    if (this.used - this.cut > MAX_RECORD_BYTES + chunk.length) {
      throw new BuildError('record_too_long', `a record is longer than ${MAX_RECORD_BYTES} bytes: an unbalanced quote?`)
    }
    return this.cut >= this.size ? this.take() : undefined
  }

  /** The last piece: everything not yet given, complete records or not. */
  end(): Buffer {
    this.cut = this.used
    return this.take()
  }

  /** Hands out the complete records gathered; what follows them starts the next piece. */
  private take(): Buffer {
    const old = this.buffer
    const rest = this.used - this.cut
    this.buffer = Buffer.allocUnsafeSlow(Math.max(this.size * 2, rest * 2))
    old.copy(this.buffer, 0, this.cut, this.used)
    const piece = old.subarray(0, this.cut)
    this.used = rest
    this.cut = 0
    return piece
  }

  private grow(needed: number): void {
    const grown = Buffer.allocUnsafeSlow(Math.max(needed, this.buffer.length * 2))
    this.buffer.copy(grown, 0, 0, this.used)
    this.buffer = grown
  }

  /**
   * The offset just after the last line feed outside quotes, scanning only the bytes
   * from `from` (those before were scanned already); 0 when there is none.
   */
  private lastCsvCut(from: number): number {
    const data = this.buffer.subarray(0, this.used)
    let quoted = this.quoted
    let cut = 0
    for (let segment = from; ;) {
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
    this.quoted = quoted
    return cut
  }

  /** Length of the first record of `data` (its line feed included), or undefined if it is not complete. */
  static firstCsvRecord(data: Buffer): number | undefined {
    let quoted = false
    for (let segment = 0; ;) {
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
