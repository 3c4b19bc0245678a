import { IdIndex } from './id-index.js'
import type { ParsedListing } from './validate.js'

/**
 * The validated rows of an export, held column by column in typed arrays (about 40
 * bytes a row plus its id), so 1.4 million rows stay far under the memory a row object
 * each would take. Make and model spellings are interned: a row stores numbers.
 * Values arrive as the reader's raw text; `text` turns a spelling into a real string
 * once, when it is first seen.
 */
export class ListingStore {
  length = 0
  private capacity = 0
  readonly ids = new IdIndex()
  makeSpelling = new Uint32Array(0)
  modelSpelling = new Uint32Array(0)
  year = new Uint16Array(0)
  price = new Float64Array(0)
  mileage = new Int32Array(0)
  fuel = new Uint8Array(0)
  gearbox = new Uint8Array(0)
  imported = new Uint8Array(0)
  voivodeship = new Uint8Array(0)
  active = new Uint8Array(0)
  firstSeen = new Int32Array(0)
  lastSeen = new Int32Array(0)

  /** Spelling of each make id, as written in the export. */
  readonly makeSpellings: string[] = []
  /** Spelling of each model id and the make id it was written with. */
  readonly modelSpellings: string[] = []
  readonly modelSpellingMake: number[] = []
  private readonly makeIds = new Map<string, number>()
  private readonly modelIds = new Map<number, Map<string, number>>()

  add(listing: ParsedListing, text: (raw: string) => string): void {
    if (this.length === this.capacity) this.grow()
    const i = this.length++
    this.ids.add(listing.listingId)
    const make = this.makeId(listing.make, text)
    this.makeSpelling[i] = make
    this.modelSpelling[i] = this.modelId(make, listing.model, text)
    this.year[i] = listing.year
    this.price[i] = listing.price
    this.mileage[i] = listing.mileage
    this.fuel[i] = listing.fuel
    this.gearbox[i] = listing.gearbox
    this.imported[i] = listing.imported
    this.voivodeship[i] = listing.voivodeship
    this.active[i] = listing.active ? 1 : 0
    this.firstSeen[i] = listing.firstSeen
    this.lastSeen[i] = listing.lastSeen
  }

  private makeId(raw: string, text: (raw: string) => string): number {
    let id = this.makeIds.get(raw)
    if (id === undefined) {
      id = this.makeSpellings.push(text(raw)) - 1
      this.makeIds.set(raw, id)
      this.modelIds.set(id, new Map())
    }
    return id
  }

  private modelId(make: number, raw: string, text: (raw: string) => string): number {
    const ids = this.modelIds.get(make)!
    let id = ids.get(raw)
    if (id === undefined) {
      id = this.modelSpellings.push(text(raw)) - 1
      this.modelSpellingMake.push(make)
      ids.set(raw, id)
    }
    return id
  }

  private grow(): void {
    this.capacity = Math.max(1024, this.capacity * 2)
    const grown = <T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(this.capacity)
      b.set(a)
      return b
    }
    this.makeSpelling = grown(this.makeSpelling)
    this.modelSpelling = grown(this.modelSpelling)
    this.year = grown(this.year)
    this.price = grown(this.price)
    this.mileage = grown(this.mileage)
    this.fuel = grown(this.fuel)
    this.gearbox = grown(this.gearbox)
    this.imported = grown(this.imported)
    this.voivodeship = grown(this.voivodeship)
    this.active = grown(this.active)
    this.firstSeen = grown(this.firstSeen)
    this.lastSeen = grown(this.lastSeen)
  }
}

/** What became of each validated row: kept, or dropped and why. */
export const KEPT = 0
export const REJECTED = 1
export const DUPLICATE = 2

/**
 * The as-of date when the build was not given one: the greatest last_seen among kept
 * rows. A row whose year is past (as-of year + 1) is rejected, which can lower the
 * greatest last_seen; the loop settles on a date consistent with the rows it keeps.
 * Marks those rows REJECTED in `state`; returns the date and how many it rejected.
 */
export function settleAsOf(
  store: ListingStore,
  state: Uint8Array,
  yearOf: (day: number) => number,
): { asOf: number; yearRejected: number } {
  let yearRejected = 0
  for (;;) {
    let asOf = -Infinity
    for (let i = 0; i < store.length; i++) if (state[i] === KEPT && store.lastSeen[i]! > asOf) asOf = store.lastSeen[i]!
    if (asOf === -Infinity) return { asOf: NaN, yearRejected }
    const maxYear = yearOf(asOf) + 1
    let changed = false
    for (let i = 0; i < store.length; i++) {
      if (state[i] === KEPT && store.year[i]! > maxYear) {
        state[i] = REJECTED
        yearRejected++
        changed = true
      }
    }
    if (!changed) return { asOf, yearRejected }
  }
}

/**
 * Keeps one row per listing_id among the kept rows: the one with the latest last_seen,
 * and on a tie the later row in the file. Marks the others DUPLICATE; returns how many.
 */
export function dropDuplicates(store: ListingStore, state: Uint8Array): number {
  let count = 0
  store.ids.forEachRepeat(
    (row) => state[row] === KEPT,
    (earlier, later) => {
      count++
      if (store.lastSeen[later]! >= store.lastSeen[earlier]!) {
        state[earlier] = DUPLICATE
        return later
      }
      state[later] = DUPLICATE
      return earlier
    },
  )
  return count
}
