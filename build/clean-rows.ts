import { NEW_CAR_BELOW_KM } from '../format/bounds.js'
import { yearOfDay } from '../format/calendar.js'
import { isCatchAll } from '../format/name-matcher.js'
import { normalize } from '../format/normalize.js'
import { NEW, UNKNOWN } from '../format/vocabulary.js'
import { BuildError } from './build-error.js'
import { KEPT, NEW_CAR, REJECTED, dropDuplicates, settleAsOf, type ListingStore } from './listing-store.js'
import type { RejectionReason } from './validate.js'

export type RejectionCounts = Partial<Record<RejectionReason, number>>

export interface CleanRows {
  /** KEPT, NEW_CAR, REJECTED or DUPLICATE for every row of the store. */
  readonly state: Uint8Array
  /** Day number of the as-of date. */
  readonly asOf: number
  readonly rowsRejected: number
  readonly duplicates: number
  /** Used listings: the market the figures describe. */
  readonly kept: number
  /** New cars, set apart (contract 1.2). */
  readonly newListings: number
}

/**
 * The checks that need every row at once, after each row has passed validation on its
 * own: names with no letter or digit and marketplaces' catch-alls, the year bound when
 * the as-of date comes from the data, de-duplication (after rejection, as the contract
 * orders), and then new cars set apart. Adds to `rejected`; throws, so that nothing is
 * published, when no used listing is kept or more than `maxRejectedShare` of the rows
 * were rejected.
 */
export function cleanRows(
  store: ListingStore,
  rowsRead: number,
  rejected: RejectionCounts,
  givenAsOf: number | undefined,
  maxRejectedShare: number,
): CleanRows {
  const state = new Uint8Array(store.length)
  const reject = (reason: RejectionReason, count: number) => {
    if (count > 0) rejected[reason] = (rejected[reason] ?? 0) + count
  }
  rejectUnnamed(store, state, reject)
  let asOf = givenAsOf
  if (asOf === undefined) {
    const settled = settleAsOf(store, state, yearOfDay)
    reject('year_out_of_range', settled.yearRejected)
    asOf = settled.asOf
  }
  const duplicates = dropDuplicates(store, state)
  const newListings = setNewCarsApart(store, state)
  const kept = countState(state, KEPT)
  const rowsRejected = rowsRead - store.length + countState(state, REJECTED)
  if (Number.isNaN(asOf) || kept + newListings === 0) {
    throw new BuildError(
      'too_many_rejected',
      `no row of the export passed validation (${summarize(rejected)}); nothing was published`,
    )
  }
  if (kept === 0) {
    throw new BuildError(
      'no_used_listings',
      `every one of the ${newListings} listings kept is a new car, and new cars are no part of the used-car ` +
        `market; nothing was published`,
    )
  }
  if (rowsRejected / rowsRead > maxRejectedShare) {
    throw new BuildError(
      'too_many_rejected',
      `${rowsRejected} of ${rowsRead} rows were rejected (${summarize(rejected)}), more than the allowed share ` +
        `${maxRejectedShare}; nothing was published`,
    )
  }
  return { state, asOf, rowsRejected, duplicates, kept, newListings }
}

/**
 * A make or model that names nothing: no letter or digit at all (`invalid_`), or a
 * marketplace's catch-all such as `Inny` (`unspecified_`). Its rows are rejected.
 */
function rejectUnnamed(
  store: ListingStore,
  state: Uint8Array,
  reject: (reason: RejectionReason, count: number) => void,
) {
  const problem = (spelling: string) =>
    normalize(spelling) === '' ? 'invalid' : isCatchAll(spelling) ? 'unspecified' : undefined
  const makeProblem = store.spellings.makeSpellings.map(problem)
  const modelProblem = store.spellings.modelSpellings.map(problem)
  if (makeProblem.every((p) => p === undefined) && modelProblem.every((p) => p === undefined)) return
  for (let i = 0; i < store.length; i++) {
    const make = makeProblem[store.makeSpelling[i]!]
    const model = modelProblem[store.modelSpelling[i]!]
    const reason =
      make !== undefined ? (`${make}_make` as const) : model !== undefined ? (`${model}_model` as const) : undefined
    if (reason === undefined) continue
    state[i] = REJECTED
    reject(reason, 1)
  }
}

/**
 * Marks NEW_CAR every kept listing that is new (contract 1.2): its condition says so, or
 * it says nothing and its odometer is known and under NEW_CAR_BELOW_KM. Returns how many.
 */
function setNewCarsApart(store: ListingStore, state: Uint8Array): number {
  let count = 0
  for (let i = 0; i < store.length; i++) {
    if (state[i] !== KEPT) continue
    const condition = store.condition[i]!
    const mileage = store.mileage[i]!
    if (condition === NEW || (condition === UNKNOWN && mileage >= 0 && mileage < NEW_CAR_BELOW_KM)) {
      state[i] = NEW_CAR
      count++
    }
  }
  return count
}

function countState(state: Uint8Array, value: number): number {
  let n = 0
  for (const s of state) if (s === value) n++
  return n
}

/** Counts, largest first. */
export function sortedCounts<K extends string>(counts: Partial<Record<K, number>>): Partial<Record<K, number>> {
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => (b as number) - (a as number))) as Partial<
    Record<K, number>
  >
}

function summarize(rejected: RejectionCounts): string {
  const entries = Object.entries(sortedCounts(rejected))
  return entries.length === 0
    ? 'no rows'
    : entries
        .slice(0, 5)
        .map(([r, n]) => `${r}: ${n}`)
        .join(', ')
}

/** Kept listings written with each make and model spelling, which name mapping weighs. */
export function spellingCounts(store: ListingStore, state: Uint8Array) {
  const make = new Uint32Array(store.spellings.makeSpellings.length)
  const model = new Uint32Array(store.spellings.modelSpellings.length)
  for (let i = 0; i < store.length; i++) {
    if (state[i] !== KEPT) continue
    make[store.makeSpelling[i]!]!++
    model[store.modelSpelling[i]!]!++
  }
  return { make, model }
}
