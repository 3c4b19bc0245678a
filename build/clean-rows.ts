import { yearOfDay } from '../format/calendar.js'
import { normalize } from '../format/normalize.js'
import { BuildError } from './build-error.js'
import { DUPLICATE, KEPT, REJECTED, dropDuplicates, settleAsOf, type ListingStore } from './listing-store.js'
import type { RejectionReason } from './validate.js'

export type RejectionCounts = Partial<Record<RejectionReason, number>>

export interface CleanRows {
  /** KEPT, REJECTED or DUPLICATE for every row of the store. */
  readonly state: Uint8Array
  /** Day number of the as-of date. */
  readonly asOf: number
  readonly rowsRejected: number
  readonly duplicates: number
  readonly kept: number
}

/**
 * The checks that need every row at once, after each row has passed validation on its
 * own: names with no letter or digit, the year bound when the as-of date comes from the
 * data, and de-duplication (after rejection, as the contract orders). Adds to
 * `rejected`; throws, so that nothing is published, when no row is kept or more than
 * `maxRejectedShare` of the rows were rejected.
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
  const kept = store.length - countState(state, REJECTED) - countState(state, DUPLICATE)
  const rowsRejected = rowsRead - store.length + countState(state, REJECTED)
  if (kept === 0 || Number.isNaN(asOf)) {
    throw new BuildError(
      'too_many_rejected',
      `no row of the export passed validation (${summarize(rejected)}); nothing was published`,
    )
  }
  if (rowsRejected / rowsRead > maxRejectedShare) {
    throw new BuildError(
      'too_many_rejected',
      `${rowsRejected} of ${rowsRead} rows were rejected (${summarize(rejected)}), more than the allowed share ` +
        `${maxRejectedShare}; nothing was published`,
    )
  }
  return { state, asOf, rowsRejected, duplicates, kept }
}

/** A make or model with no letter or digit at all names nothing: its rows are rejected. */
function rejectUnnamed(
  store: ListingStore,
  state: Uint8Array,
  reject: (reason: RejectionReason, count: number) => void,
) {
  const badMake = store.spellings.makeSpellings.map((s) => normalize(s) === '')
  const badModel = store.spellings.modelSpellings.map((s) => normalize(s) === '')
  if (!badMake.includes(true) && !badModel.includes(true)) return
  for (let i = 0; i < store.length; i++) {
    const reason = badMake[store.makeSpelling[i]!]
      ? 'invalid_make'
      : badModel[store.modelSpelling[i]!]
        ? 'invalid_model'
        : undefined
    if (reason === undefined) continue
    state[i] = REJECTED
    reject(reason, 1)
  }
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
