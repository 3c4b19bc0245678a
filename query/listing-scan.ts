import { NO_DETAIL, detailTexts, type ListingColumns } from '../format/columns.js'
import { holdsPhrase } from '../format/detail-words.js'
import { powerWindow } from '../format/power-window.js'
import { UNKNOWN } from '../format/vocabulary.js'
import { codePointOrder } from './catalog.js'
import type { Narrowing } from './narrowing.js'

/**
 * The listings of one key that a narrowed question keeps (data contract 4.1): of its fuel,
 * gearbox and body type, within ±10 % of its power, holding every version word in their
 * version or generation, and for the valuation's own figures within its mileage window. A
 * scan in the key's price order, into buffers the next scan reuses: the prices kept come
 * out sorted, and beside them the listings of a known mileage that the mileage fit takes
 * (every filter but the window, contract 5.2).
 */
export class ListingScan {
  /** Prices of the listings kept, ascending: valid up to `count` after a run. */
  prices = new Float64Array(1 << 12)
  count = 0
  /** Listings kept before the mileage window: what the other filters leave. */
  matched = 0
  /** The fit's listings: price, ln(price) and mileage of those with a known mileage, up to `fitCount`. */
  fitPrices = new Float64Array(1 << 12)
  fitLogs = new Float64Array(1 << 12)
  fitMileages = new Int32Array(1 << 12)
  fitCount = 0
  /** Room for the fit's selections (mileage-fit.ts needs twice its listings). */
  scratch = new Float64Array(1 << 13)
  /** For each detail text of the key, the version words it holds, one bit each. */
  private masks = new Uint32Array(256)

  /**
   * Keeps the key's listings that `narrowing` asks for, those within `window` (inclusive km) among them for `prices`.
   * `fit` false skips the fit's columns (a depreciation's medians need none).
   */
  run(
    columns: ListingColumns,
    narrowing: Narrowing,
    window: { readonly from: number; readonly to: number } | null,
    fit: boolean,
  ): void {
    this.reserve(columns.count)
    this.count = this.matched = this.fitCount = 0
    const { fuel, gearbox, scanBody } = narrowing
    const { version, generation, power: powers, body } = columns
    // A filter on a detail no listing of the key gives keeps none of them.
    if ((scanBody !== UNKNOWN && body === undefined) || (narrowing.power !== null && powers === undefined)) return
    if (narrowing.phrases.length > 0 && (version === undefined || generation === undefined)) return
    const all = this.versionMasks(columns, narrowing.phrases)
    const power = narrowing.power === null ? null : powerWindow(narrowing.power)
    const masks = this.masks
    let count = 0
    let matched = 0
    let fitted = 0
    for (let i = 0; i < columns.count; i++) {
      if (fuel !== UNKNOWN && columns.fuel[i] !== fuel) continue
      if (gearbox !== UNKNOWN && columns.gearbox[i] !== gearbox) continue
      if (scanBody !== UNKNOWN && body![i] !== scanBody) continue
      if (power !== null) {
        const p = powers![i]!
        if (p === 0 || p < power.from || p > power.to) continue
      }
      if (all !== 0) {
        const v = version![i]!
        const g = generation![i]!
        const held = (v === NO_DETAIL ? 0 : masks[v]!) | (g === NO_DETAIL ? 0 : masks[g]!)
        if (held !== all) continue
      }
      matched++
      const price = columns.price[i]!
      const mileage = columns.mileage[i]!
      if (fit && mileage >= 0) {
        this.fitPrices[fitted] = price
        this.fitLogs[fitted] = Math.log(price)
        this.fitMileages[fitted++] = mileage
      }
      if (window !== null && (mileage < window.from || mileage > window.to)) continue
      this.prices[count++] = price
    }
    this.count = count
    this.matched = matched
    this.fitCount = fitted
  }

  /** The prices kept, ascending. */
  kept(): Float64Array {
    return this.prices.subarray(0, this.count)
  }

  /**
   * Marks in `masks` the version words each detail text of the key holds; returns the mask
   * a listing's version and generation must hold between them (0: no version words).
   */
  private versionMasks(columns: ListingColumns, phrases: readonly string[]): number {
    if (phrases.length === 0) return 0
    const texts = detailTexts(columns)
    if (this.masks.length < texts.length) this.masks = new Uint32Array(texts.length * 2)
    texts.forEach(({ normalized }, t) => {
      let mask = 0
      phrases.forEach((phrase, bit) => {
        if (holdsPhrase(normalized, phrase)) mask |= 1 << bit
      })
      this.masks[t] = mask
    })
    // At most MAX_VERSION_WORDS (16) words: the masks stay positive integers.
    return (1 << phrases.length) - 1
  }

  private reserve(n: number): void {
    if (this.prices.length >= n) return
    const size = 2 ** Math.ceil(Math.log2(n))
    this.prices = new Float64Array(size)
    this.fitPrices = new Float64Array(size)
    this.fitLogs = new Float64Array(size)
    this.fitMileages = new Int32Array(size)
    this.scratch = new Float64Array(size * 2)
  }
}

/** Whether a key's listings say anything of their version or generation (contract 4.1, rules 2 and 3). */
export function hasDetail(columns: ListingColumns | undefined): boolean {
  return columns !== undefined && columns.details.byteLength > 0
}

/** A version (or a generation) of a key's listings, as written, and how many listings give it. */
export interface Tally {
  readonly text: string
  readonly listings: number
}

/**
 * The versions of keys' listings with their counts, most listed first (then by name), each once whatever its case or
 * punctuation (counted under its most given spelling); and their generations likewise.
 */
export function detailTallies(columns: readonly ListingColumns[]): { versions: Tally[]; generations: Tally[] } {
  const tally = (version: boolean) => {
    const byKey = new Map<string, Map<string, number>>()
    for (const c of columns) {
      const texts = detailTexts(c)
      const indexes = version ? c.version : c.generation
      if (indexes === undefined) continue
      for (let i = 0; i < c.count; i++) {
        if (indexes[i] === NO_DETAIL) continue
        const { text, normalized } = texts[indexes[i]!]!
        let spellings = byKey.get(normalized)
        if (spellings === undefined) byKey.set(normalized, (spellings = new Map()))
        spellings.set(text, (spellings.get(text) ?? 0) + 1)
      }
    }
    return [...byKey.values()]
      .map((spellings) => {
        const [text] = [...spellings].sort((a, b) => b[1] - a[1] || codePointOrder(a[0], b[0]))[0]!
        return { text, listings: [...spellings.values()].reduce((n, c) => n + c, 0) }
      })
      .sort((a, b) => b.listings - a.listings || codePointOrder(a.text, b.text))
  }
  return { versions: tally(true), generations: tally(false) }
}

/**
 * The most listed versions of keys' listings (for rule 4's suggestions), as written, each
 * once; their generations where no listing gives a version.
 */
export function commonVersions(columns: readonly ListingColumns[], limit: number): string[] {
  const { versions, generations } = detailTallies(columns)
  return (versions.length > 0 ? versions : generations).slice(0, limit).map((v) => v.text)
}
