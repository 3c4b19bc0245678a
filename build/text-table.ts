/**
 * A memo of a function of short texts, looked up by the text itself or by its UTF-8
 * bytes. An export repeats the same few hundred makes, fuel names, voivodeships and
 * dates a million times: a CSV reader looks them up straight from the file's bytes,
 * so only the first sighting of each distinct value is decoded into a string.
 * Past `limit` distinct values (a column of unique date-times, say) it stops
 * remembering and just computes.
 */
export class TextTable<T> {
  private readonly byText = new Map<string, T>()
  // Open addressing over the bytes of the values seen: slot -> entry, entry -> key bytes and value.
  private slots = new Int32Array(64).fill(-1)
  private keys = new Uint8Array(1024)
  private keyStart = new Int32Array(32)
  private keyEnd = new Int32Array(32)
  private hashes = new Uint32Array(32)
  private readonly values: T[] = []
  private used = 0

  constructor(
    private readonly compute: (text: string) => T,
    private readonly limit = 4096,
  ) {}

  /** The value for a text. */
  fromText(text: string): T {
    const known = this.byText.get(text)
    if (known !== undefined || this.byText.has(text)) return known as T
    const value = this.compute(text)
    if (this.byText.size < this.limit) this.byText.set(text, value)
    return value
  }

  /** The value for the UTF-8 text in bytes[start, end). */
  fromBytes(bytes: Buffer, start: number, end: number): T {
    let h = 0x811c9dc5
    for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193)
    h >>>= 0
    const mask = this.slots.length - 1
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!
      if (entry === -1) return this.add(slot, h, bytes, start, end)
      if (this.hashes[entry] === h && this.sameKey(entry, bytes, start, end)) return this.values[entry]!
    }
  }

  private sameKey(entry: number, bytes: Buffer, start: number, end: number): boolean {
    const from = this.keyStart[entry]!
    if (this.keyEnd[entry]! - from !== end - start) return false
    for (let i = 0; i < end - start; i++) if (this.keys[from + i] !== bytes[start + i]) return false
    return true
  }

  private add(slot: number, hash: number, bytes: Buffer, start: number, end: number): T {
    const value = this.compute(bytes.toString('utf8', start, end))
    const entry = this.values.length
    if (entry >= this.limit) return value
    if (entry === this.hashes.length) {
      this.keyStart = grown(this.keyStart, entry * 2)
      this.keyEnd = grown(this.keyEnd, entry * 2)
      this.hashes = grown(this.hashes, entry * 2)
    }
    if (this.used + end - start > this.keys.length)
      this.keys = grown(this.keys, Math.max(this.keys.length * 2, this.used + end - start))
    this.keys.set(bytes.subarray(start, end), this.used)
    this.keyStart[entry] = this.used
    this.keyEnd[entry] = this.used += end - start
    this.hashes[entry] = hash
    this.values.push(value)
    this.slots[slot] = entry
    if (this.values.length * 2 > this.slots.length) this.rehash()
    return value
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1)
    const mask = this.slots.length - 1
    for (let entry = 0; entry < this.values.length; entry++) {
      let slot = this.hashes[entry]! & mask
      while (this.slots[slot] !== -1) slot = (slot + 1) & mask
      this.slots[slot] = entry
    }
  }
}

function grown<A extends Uint8Array | Int32Array | Uint32Array>(a: A, length: number): A {
  const b = new (a.constructor as new (n: number) => A)(length)
  b.set(a)
  return b
}
