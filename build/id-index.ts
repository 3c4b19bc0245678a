/**
 * The listing ids of an export, kept as UTF-16 code units in one growing arena rather
 * than as a million small strings (a third of the memory, and nothing for the
 * collector to walk), with an open-addressing hash table to find a repeated id.
 */
/** An IdIndex's arrays, trimmed, as they cross between threads. */
export interface IdParts {
  readonly chars: Uint16Array
  readonly starts: Uint32Array
  readonly hashes: Uint32Array
  readonly count: number
}

export class IdIndex {
  private chars = new Uint16Array(1 << 20)
  private used = 0
  private starts = new Uint32Array(1 << 10)
  private hashes = new Uint32Array(1 << 10)
  private count = 0

  /** Appends the id of the next row. */
  add(id: string): void {
    if (this.count === this.starts.length - 1) {
      this.starts = grow(this.starts, this.starts.length * 2)
      this.hashes = grow(this.hashes, this.hashes.length * 2)
    }
    if (this.used + id.length > this.chars.length)
      this.chars = grow(this.chars, Math.max(this.chars.length * 2, this.used + id.length))
    let h = 0x811c9dc5
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i)
      this.chars[this.used + i] = c
      h = Math.imul(h ^ c, 0x01000193)
    }
    this.hashes[this.count] = h >>> 0
    this.used += id.length
    this.starts[++this.count] = this.used
  }

  parts(): IdParts {
    return {
      chars: this.chars.slice(0, this.used),
      starts: this.starts.slice(0, this.count + 1),
      hashes: this.hashes.slice(0, this.count),
      count: this.count,
    }
  }

  /** Appends the ids of rows [from, to) of another index. */
  append(other: IdParts, from: number, to: number): void {
    const start = other.starts[from]!
    const end = other.starts[to]!
    if (this.used + end - start > this.chars.length)
      this.chars = grow(this.chars, Math.max(this.chars.length * 2, this.used + end - start))
    while (this.count + (to - from) >= this.starts.length) {
      this.starts = grow(this.starts, this.starts.length * 2)
      this.hashes = grow(this.hashes, this.hashes.length * 2)
    }
    this.chars.set(other.chars.subarray(start, end), this.used)
    this.hashes.set(other.hashes.subarray(from, to), this.count)
    for (let row = from; row < to; row++) this.starts[++this.count] = this.used + other.starts[row + 1]! - start
    this.used += end - start
  }

  private same(a: number, b: number): boolean {
    const start = this.starts[a]!
    const length = this.starts[a + 1]! - start
    const other = this.starts[b]!
    if (this.starts[b + 1]! - other !== length || this.hashes[a] !== this.hashes[b]) return false
    for (let i = 0; i < length; i++) if (this.chars[start + i] !== this.chars[other + i]) return false
    return true
  }

  /**
   * Calls `onRepeat(earlier, later)` for each row (in order, among those `include`
   * accepts) whose id an earlier included row had; `onRepeat` returns the row that
   * stands for the id from then on.
   */
  forEachRepeat(include: (row: number) => boolean, onRepeat: (earlier: number, later: number) => number): void {
    let size = 1024
    while (size < this.count * 2) size *= 2
    const mask = size - 1
    const table = new Int32Array(size).fill(-1)
    for (let row = 0; row < this.count; row++) {
      if (!include(row)) continue
      let slot = this.hashes[row]! & mask
      for (;;) {
        const held = table[slot]!
        if (held === -1) {
          table[slot] = row
          break
        }
        if (this.same(held, row)) {
          table[slot] = onRepeat(held, row)
          break
        }
        slot = (slot + 1) & mask
      }
    }
  }
}

function grow<T extends Uint16Array | Uint32Array>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length)
  b.set(a)
  return b
}
