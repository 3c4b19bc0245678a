/**
 * The ranks of the distribution-free confidence interval of a median (data contract 5.1):
 * for n prices sorted ascending, the interval is [x(k), x(n - k + 1)], where k is the
 * largest integer >= 1 with B(k - 1) <= 0.025, B the cumulative distribution of
 * Binomial(n, 1/2); its coverage is 1 - 2 B(k - 1).
 *
 * k depends on n alone, so it is kept in a table for every n up to the largest asked for,
 * filled in one sweep over n: going from n to n + 1 at a fixed j, B_{n+1}(j) = B_n(j) -
 * pmf_n(j) / 2 (a fair coin more), and from j to j + 1 at a fixed n, B_n(j + 1) = B_n(j) +
 * pmf_n(j + 1). k never falls as n grows (B_{n+1}(j) <= B_n(j)), so the sweep costs O(n)
 * in all, and every later look-up is an index.
 */

/** The contract's one-sided tail: a 95 % two-sided interval at least. */
const TAIL = 0.025

export interface MedianInterval {
  /** 1-based rank of the lower bound; the upper bound is rank n - k + 1. */
  readonly k: number
  /** 100 (1 - 2 B(k - 1)), unrounded. */
  readonly levelPct: number
}

class IntervalTable {
  private k = new Int32Array(0)
  private level = new Float64Array(0)
  // The sweep's state: at n, j = k(n) - 1, b = B_n(j), pmf = P(X = j).
  private n = 0
  private j = 0
  private b = 1
  private pmf = 1

  get(n: number): MedianInterval {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`a median interval needs a positive count, not ${n}`)
    if (n >= this.k.length) this.grow(n)
    return { k: this.k[n]!, levelPct: this.level[n]! }
  }

  private grow(n: number): void {
    const size = Math.max(n + 1, this.k.length * 2, 1024)
    const k = new Int32Array(size)
    const level = new Float64Array(size)
    k.set(this.k)
    level.set(this.level)
    this.k = k
    this.level = level
    while (this.n < size - 1) this.step()
  }

  /** From n to n + 1: the coin, then as many steps of j as B allows. */
  private step(): void {
    const { n, j } = this
    // n = 0 is one outcome, X = 0: B_0(0) = pmf_0(0) = 1.
    this.b -= this.pmf / 2
    this.pmf = (this.pmf * (n + 1)) / (2 * (n + 1 - j))
    this.n = n + 1
    for (;;) {
      const next = (this.pmf * (this.n - this.j)) / (this.j + 1)
      if (this.b + next > TAIL) break
      this.j++
      this.pmf = next
      this.b += next
    }
    // Below n = 6 not even B(0) = 2^-n is within the tail: k = 1 is the least the definition allows.
    this.k[this.n] = this.b <= TAIL ? this.j + 1 : 1
    this.level[this.n] = 100 * (1 - 2 * (this.b <= TAIL ? this.b : 0))
  }
}

const table = new IntervalTable()

/** k and the coverage of the median's interval for n prices (n >= 1). */
export function medianInterval(n: number): MedianInterval {
  return table.get(n)
}
