/**
 * A seeded pseudo-random source (sfc32, seeded through a string hash), so the same seed
 * always yields the same sample export.
 */
export class Random {
  private a: number
  private b: number
  private c: number
  private d: number
  private spare: number | undefined

  constructor(seed: string) {
    let h = 1779033703 ^ seed.length
    const words: number[] = []
    for (let k = 0; k < 4; k++) {
      for (let i = 0; i < seed.length; i++) {
        h = Math.imul(h ^ seed.charCodeAt(i), 3432918353)
        h = (h << 13) | (h >>> 19)
      }
      h = Math.imul(h ^ (h >>> 16), 2246822507 + k)
      h = Math.imul(h ^ (h >>> 13), 3266489909)
      words.push((h ^= h >>> 16) >>> 0)
    }
    ;[this.a, this.b, this.c, this.d] = words as [number, number, number, number]
    for (let i = 0; i < 12; i++) this.next()
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return (t >>> 0) / 4294967296
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!
  }

  /** Standard normal (Box-Muller, the second value kept for the next call). */
  normal(): number {
    if (this.spare !== undefined) {
      const s = this.spare
      this.spare = undefined
      return s
    }
    const u = 1 - this.next()
    const v = this.next()
    const r = Math.sqrt(-2 * Math.log(u))
    this.spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }

  /** exp(N(log median, sigma)): a positive quantity with the given median. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal())
  }

  /** An index drawn with the given (non-negative, not all zero) weights. */
  weighted(weights: readonly number[], total = weights.reduce((s, w) => s + w, 0)): number {
    let x = this.next() * total
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!
      if (x < 0) return i
    }
    return weights.length - 1
  }
}
