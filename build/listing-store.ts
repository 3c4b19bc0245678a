import { MAX_DETAIL_TEXT, latestYear } from '../format/bounds.js'
import { UNKNOWN } from '../format/vocabulary.js'
import { IdIndex, type IdParts } from './id-index.js'
import { TextTable } from './text-table.js'
import type { ParsedListing } from './validate.js'

/** The per-row columns of a ListingStore. */
const COLUMN_TYPES = {
  makeSpelling: Uint32Array,
  modelSpelling: Uint32Array,
  year: Uint16Array,
  price: Float64Array,
  mileage: Int32Array,
  fuel: Uint8Array,
  gearbox: Uint8Array,
  imported: Uint8Array,
  voivodeship: Uint8Array,
  condition: Uint8Array,
  active: Uint8Array,
  firstSeen: Int32Array,
  lastSeen: Int32Array,
}
/**
 * The columns of the export's detail (contract 1): allocated only once a row gives any, so
 * that an export without them costs no memory for them.
 */
const DETAIL_TYPES = {
  version: Uint32Array,
  generation: Uint32Array,
  bodyType: Uint8Array,
  power: Uint16Array,
}
const ALL_TYPES = { ...COLUMN_TYPES, ...DETAIL_TYPES }
type ColumnName = keyof typeof ALL_TYPES
const COLUMN_NAMES = Object.keys(COLUMN_TYPES) as ColumnName[]
const DETAIL_NAMES = Object.keys(DETAIL_TYPES) as ColumnName[]
type Columns = { [K in ColumnName]: InstanceType<(typeof ALL_TYPES)[K]> }

/**
 * The texts of an export that rows share, each interned once: the make and model
 * spellings as written, and the versions and generations (contract 1.1: kept as written,
 * trimmed, at most MAX_DETAIL_TEXT characters, control characters as spaces).
 */
export class Spellings {
  /** Spelling of each make id. */
  readonly makeSpellings: string[] = []
  /** Spelling of each model id and the make id it was written with. */
  readonly modelSpellings: string[] = []
  readonly modelSpellingMake: number[] = []
  /** Make spelling -> id, adding new ones. */
  readonly makes = new TextTable((text) => this.makeSpellings.push(text) - 1, Infinity)
  private readonly models: TextTable<number>[] = []
  /** Each version or generation kept, by its id; 0 is none (an empty value). */
  readonly detailTexts: string[] = ['']
  private readonly detailIds = new Map<string, number>([['', 0]])
  /** Version or generation as written -> id, adding new ones. */
  readonly details = new TextTable((text) => this.detailId(detailText(text)), Infinity)

  /** The id of a version or generation already cleaned (detailText), adding it when new. */
  detailId(text: string): number {
    let id = this.detailIds.get(text)
    if (id === undefined) this.detailIds.set(text, (id = this.detailTexts.push(text) - 1))
    return id
  }

  /** Model spelling -> id among one make spelling's models, adding new ones. */
  modelsOf(make: number): TextTable<number> {
    let table = this.models[make]
    if (table === undefined) {
      table = new TextTable((text) => {
        this.modelSpellingMake.push(make)
        return this.modelSpellings.push(text) - 1
      }, Infinity)
      this.models[make] = table
    }
    return table
  }
}

// Control characters never belong in a version; a line break inside a quoted field becomes a space.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/gu

/** A version or generation as the snapshot keeps it: trimmed, control characters as spaces, cut at MAX_DETAIL_TEXT. */
export function detailText(text: string): string {
  const clean = text.replace(CONTROL, ' ').trim()
  return clean.length <= MAX_DETAIL_TEXT ? clean : [...clean].slice(0, MAX_DETAIL_TEXT).join('').trim()
}

/** A store as it crosses between threads: plain arrays and typed arrays only. */
export interface StorePart {
  readonly length: number
  /** Whether its detail columns hold anything (empty arrays when not). */
  readonly detailed: boolean
  readonly columns: Columns
  readonly ids: IdParts
  readonly makeSpellings: readonly string[]
  readonly modelSpellings: readonly string[]
  readonly modelSpellingMake: readonly number[]
  readonly detailTexts: readonly string[]
}

/**
 * The validated rows of an export, held column by column in typed arrays (about 40
 * bytes a row plus its id, 11 more with detail), so 1.4 million rows stay far under the
 * memory a row object each would take. Make and model spellings are interned
 * (Spellings): a row stores numbers. The detail columns (version, generation, body type,
 * power) exist once a row has given one of them (`detailed`); until then every row's
 * detail is unknown.
 */
export class ListingStore implements Columns {
  length = 0
  private capacity = 0
  detailed = false
  ids = new IdIndex()
  makeSpelling = new Uint32Array(0)
  modelSpelling = new Uint32Array(0)
  year = new Uint16Array(0)
  price = new Float64Array(0)
  mileage = new Int32Array(0)
  fuel = new Uint8Array(0)
  gearbox = new Uint8Array(0)
  imported = new Uint8Array(0)
  voivodeship = new Uint8Array(0)
  condition = new Uint8Array(0)
  active = new Uint8Array(0)
  firstSeen = new Int32Array(0)
  lastSeen = new Int32Array(0)
  version = new Uint32Array(0)
  generation = new Uint32Array(0)
  bodyType = new Uint8Array(0)
  power = new Uint16Array(0)

  readonly spellings = new Spellings()

  add(listing: ParsedListing): void {
    if (this.length === this.capacity) this.resize(Math.max(1024, this.capacity * 2))
    const i = this.length++
    this.ids.add(listing.listingId)
    this.makeSpelling[i] = listing.makeSpelling
    this.modelSpelling[i] = listing.modelSpelling
    this.year[i] = listing.year
    this.price[i] = listing.price
    this.mileage[i] = listing.mileage
    this.fuel[i] = listing.fuel
    this.gearbox[i] = listing.gearbox
    this.imported[i] = listing.imported
    this.voivodeship[i] = listing.voivodeship
    this.condition[i] = listing.condition
    this.active[i] = listing.active ? 1 : 0
    this.firstSeen[i] = listing.firstSeen
    this.lastSeen[i] = listing.lastSeen
    if (!this.detailed) {
      if (listing.version === 0 && listing.generation === 0 && listing.bodyType === UNKNOWN && listing.power === 0)
        return
      this.startDetail()
    }
    this.version[i] = listing.version
    this.generation[i] = listing.generation
    this.bodyType[i] = listing.bodyType
    this.power[i] = listing.power
  }

  /** Allocates the detail columns, every row so far without detail. */
  private startDetail(): void {
    this.detailed = true
    this.resizeColumns(DETAIL_NAMES, this.capacity)
    this.bodyType.fill(UNKNOWN)
  }

  /** The store, trimmed, ready to be posted to another thread (its buffers transferred). */
  part(): { part: StorePart; transfer: ArrayBuffer[] } {
    this.resize(this.length)
    const columns = Object.fromEntries([...COLUMN_NAMES, ...DETAIL_NAMES].map((name) => [name, this[name]])) as Columns
    const ids = this.ids.parts()
    const part = {
      length: this.length,
      detailed: this.detailed,
      columns,
      ids,
      makeSpellings: this.spellings.makeSpellings,
      modelSpellings: this.spellings.modelSpellings,
      modelSpellingMake: this.spellings.modelSpellingMake,
      detailTexts: this.spellings.detailTexts,
    }
    const transfer = [...Object.values(columns), ids.chars, ids.starts, ids.hashes].map((a) => a.buffer as ArrayBuffer)
    return { part, transfer }
  }

  /**
   * One store from parts read in parallel: `ranges` lists, in file order, which part
   * each run of rows came from and how many rows it has (a part's runs are in order).
   */
  static merge(parts: readonly StorePart[], ranges: readonly (readonly [part: number, rows: number])[]): ListingStore {
    const store = new ListingStore()
    const total = ranges.reduce((n, [, rows]) => n + rows, 0)
    store.resize(total)
    if (parts.some((p) => p.detailed)) store.startDetail()
    // Spelling ids of each part, renumbered into the merged store's.
    const spellings = store.spellings
    const makeMaps = parts.map((p) => p.makeSpellings.map((spelling) => spellings.makes.fromText(spelling)))
    const modelMaps = parts.map((p, k) =>
      p.modelSpellings.map((spelling, id) =>
        spellings.modelsOf(makeMaps[k]![p.modelSpellingMake[id]!]!).fromText(spelling),
      ),
    )
    const detailMaps = parts.map((p) => p.detailTexts.map((text) => spellings.detailId(text)))
    const next = parts.map(() => 0)
    for (const [k, rows] of ranges) {
      const part = parts[k]!
      const from = next[k]!
      const to = from + rows
      next[k] = to
      const names = part.detailed ? [...COLUMN_NAMES, ...DETAIL_NAMES] : COLUMN_NAMES
      for (const name of names) store[name].set(part.columns[name].subarray(from, to) as never, store.length)
      const makes = makeMaps[k]!
      const models = modelMaps[k]!
      for (let i = store.length; i < store.length + rows; i++) {
        store.makeSpelling[i] = makes[store.makeSpelling[i]!]!
        store.modelSpelling[i] = models[store.modelSpelling[i]!]!
      }
      if (part.detailed) {
        const details = detailMaps[k]!
        for (let i = store.length; i < store.length + rows; i++) {
          store.version[i] = details[store.version[i]!]!
          store.generation[i] = details[store.generation[i]!]!
        }
      }
      store.ids.append(part.ids, from, to)
      store.length += rows
    }
    return store
  }

  private resize(capacity: number): void {
    this.capacity = capacity
    this.resizeColumns(this.detailed ? [...COLUMN_NAMES, ...DETAIL_NAMES] : COLUMN_NAMES, capacity)
  }

  private resizeColumns(names: readonly ColumnName[], capacity: number): void {
    for (const name of names) {
      const old = this[name]
      const resized = new ALL_TYPES[name](capacity)
      resized.set(old.subarray(0, Math.min(old.length, capacity)) as never)
      ;(this as Columns)[name] = resized as never
    }
  }
}

/** What became of each validated row: kept (a used car), set apart as a new car, or dropped and why. */
export const KEPT = 0
export const REJECTED = 1
export const DUPLICATE = 2
export const NEW_CAR = 3

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
    const maxYear = latestYear(yearOf(asOf))
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
 * The row kept takes the earliest first_seen of them all (contract 1.1): an export that
 * appends daily sightings repeats a listing with later first_seen dates, and its first
 * sighting is what the price history and the liquidity count.
 */
export function dropDuplicates(store: ListingStore, state: Uint8Array): number {
  let count = 0
  const { firstSeen, lastSeen } = store
  store.ids.forEachRepeat(
    (row) => state[row] === KEPT,
    (earlier, later) => {
      count++
      const first = Math.min(firstSeen[earlier]!, firstSeen[later]!)
      const [kept, dropped] = lastSeen[later]! >= lastSeen[earlier]! ? [later, earlier] : [earlier, later]
      state[dropped] = DUPLICATE
      firstSeen[kept] = first
      return kept
    },
  )
  return count
}
