import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { LedgerError } from './ledger-error.js'
import { Batches } from './pg-batch.js'
import { SHARED_WORK_WITHIN_MS, isRetryable, outcomeUnknown, within } from './pg-connection.js'
import { batchEntries } from './pg-doubt.js'
import type { PgHealth } from './pg-health.js'
import { entryOf, flags, instant, oneOf, text, whole, wholes, type Row } from './pg-rows.js'
import { FAILED_CALL_ENTRIES_PER_DAY, IDEMPOTENCY } from './types.js'
import type { Charges, ChargesResult, Debit, DebitOutcome, DebitsInDoubt, Entry, Failure } from './types.js'
import { messageOf } from '../format/message-of.js'

/** Times a batch is sent again after the server rolled it back for a deadlock or a serialization failure. */
const RETRIES = 3

/** What one request charges (Charges), for one account, its calls as stored (see storable in pg-ledger.ts). */
export interface Request {
  readonly accountId: string
  readonly debits: readonly Debit[]
  readonly failures: readonly Failure[]
  readonly remember: Charges['remember']
  /** Whether the answer can still be delivered. */
  readonly wanted: () => boolean
  /** Told the batch a request wanted is sent in, just before it goes. */
  readonly sending?: (batch: string) => void
}

const OUTCOMES = ['ok', 'replayed', 'reused', 'disabled', 'unknown_account', 'not_wanted'] as const

const CHARGE = `SELECT o_outcome, o_balance, o_charged, o_balances, o_seqs, o_times, o_parts
  FROM carmarket_charge_batch_v3(${Array.from({ length: 22 }, (_, i) => `$${i + 1}`).join(', ')}) WITH ORDINALITY ORDER BY ordinality`

/**
 * Requests' charges in batches (pg-batch.ts), each one call of carmarket_charge_batch_v3: one
 * transaction, one commit (one WAL flush) for all of their debits, failure records and
 * stored answers.
 *
 * Each debit is checked and taken on the server (UPDATE … WHERE balance >= cost), never
 * read here and written back, so concurrent batches, of this process or another, can
 * never overspend an account. The requests are sent sorted by account, so that batches
 * lock accounts in the same order and cannot deadlock one another; should the server
 * roll a batch back all the same (a deadlock, a serialization failure), nothing of it
 * was written and it is sent again.
 *
 * A batch whose connection fails once it was sent may have committed. Its requests are not
 * answered until that is known: the batch has an id of its own, which its entries record,
 * and it is asked what the batch did (pg-doubt.ts). A request whose debits have their
 * entries is answered charged, as it would have been; every other one is `unavailable`,
 * and truly not charged. Should that not be learned (the server out of reach past
 * OUTCOME_WAIT_MS, or an answer this code cannot read), every request is `in_doubt`, never
 * `unavailable` nor a plain error (whose refund record would claim nothing was taken),
 * and `onDoubt` is told the batch.
 *
 * A request is answered within SHARED_WORK_WITHIN_MS of asking, whatever the server does
 * meanwhile. One not sent by then never will be (`unavailable`, nothing charged); one sent
 * is `in_doubt`, and should its batch turn out to have charged it after all, the charge is
 * given back by a grant naming the entries (`refund`), since its answer was never
 * delivered. A request under an Idempotency-Key keeps its charge: its retry is answered
 * with what was paid for.
 */
export class PgDebits {
  private readonly batches = new Batches<Request, ChargesResult>((requests) => this.send(requests))

  constructor(
    private readonly pool: pg.Pool,
    private readonly calls: PgHealth,
    /** The ledger's URL, where a batch that lost its answer asks what it did. */
    private readonly url: string,
    /** Told of each batch known to have committed. */
    private readonly committed: () => void,
    /** Told of a batch whose outcome could not be learned, or whose late charges could not be given back. */
    private readonly onDoubt: (doubt: DebitsInDoubt) => void,
    /** Gives `credits` back to an account, durably. */
    private readonly refund: (accountId: string, credits: number, reference: string) => Promise<unknown>,
  ) {}

  charge(request: Request): Promise<ChargesResult> {
    let late = false
    let sent: string | undefined
    const result = this.batches.add({
      ...request,
      wanted: () => !late && request.wanted(),
      sending: (batch) => (sent = batch),
    })
    result.then(
      (done) => {
        if (late && sent !== undefined) void this.giveBack(sent, request, done)
      },
      () => {},
    )
    return within(result, SHARED_WORK_WITHIN_MS, () => {
      late = true
      return sent === undefined
        ? new LedgerError('unavailable', 'the ledger did not take this debit in time; nothing was charged')
        : new LedgerError('in_doubt', `the ledger did not answer this debit (batch ${sent}) in time`)
    })
  }

  /** Gives back what a request answered in doubt was charged after all. */
  private async giveBack(batch: string, request: Request, done: ChargesResult): Promise<void> {
    if (!done.ok || request.remember !== undefined) return
    const charges = done.outcomes.flatMap((outcome) => (outcome.charged ? [outcome.entry] : []))
    if (charges.length === 0) return
    const credits = -charges.reduce((sum, entry) => sum + entry.credits, 0)
    const reference = `refund of ${charges.map((entry) => entry.id).join(', ')}: its call was answered 503 before the ledger committed`
    try {
      await this.refund(request.accountId, credits, reference)
    } catch (error) {
      this.onDoubt({
        batch,
        debits: charges.length,
        reason: `charged after its call was answered 503, and not refunded: ${messageOf(error)}`,
      })
    }
  }

  /** The requests' results, in their order: a promise for each request of a batch that lost its answer. */
  private async send(requests: readonly Request[]): Promise<(ChargesResult | Promise<ChargesResult>)[]> {
    const order = requests.map((_, i) => i).sort((a, b) => compare(requests[a]!.accountId, requests[b]!.accountId))
    const sorted = order.map((i) => requests[i]!)
    // The connection is taken first, so that not getting one (the server down: nothing
    // sent) is told apart from losing it once the batch was sent; and before the
    // clients are asked, since waiting for one may take seconds.
    const client = await this.calls.read(() => this.pool.connect())
    // Asked last, just before the debits go: a client gone by now is charged nothing.
    const wanted = sorted.map((request) => request.wanted())
    const batch = randomUUID()
    sorted.forEach((request, n) => wanted[n] && request.sending?.(batch))
    const debits = sorted.flatMap((request, g) => request.debits.map((debit) => ({ group: g + 1, ...debit })))
    const failures = sorted.flatMap((request, g) => request.failures.map((failure) => ({ group: g + 1, ...failure })))
    const values = [
      batch,
      sorted.map((r) => r.accountId),
      wanted,
      sorted.map((r) => r.remember?.key ?? null),
      sorted.map((r) => r.remember?.fingerprint ?? null),
      sorted.map((r) => r.remember?.token ?? null),
      sorted.map((r) => r.remember?.parts ?? null),
      debits.map((d) => d.group),
      debits.map((d) => d.credits),
      debits.map((d) => d.call.endpoint),
      debits.map((d) => d.call.make),
      debits.map((d) => d.call.model),
      debits.map((d) => d.call.year),
      failures.map((f) => f.group),
      failures.map((f) => f.call.endpoint),
      failures.map((f) => f.call.make),
      failures.map((f) => f.call.model),
      failures.map((f) => f.call.year),
      failures.map((f) => f.code),
      FAILED_CALL_ENTRIES_PER_DAY,
      IDEMPOTENCY.ttlMs,
      IDEMPOTENCY.keysPerAccount,
    ]
    const results: (ChargesResult | Promise<ChargesResult>)[] = []
    let rows: Row[]
    try {
      rows = (await this.calls.write(() => withRetries(() => client.query<Row>(CHARGE, values)))).rows
    } catch (error) {
      client.release(true)
      if (!(error instanceof LedgerError && outcomeUnknown(error.cause))) throw error
      const learned = this.learn(batch, sorted, wanted)
      sorted.forEach((_, n) => (results[order[n]!] = learned.then((found) => found[n]!)))
      return results
    }
    client.release()
    this.committed()
    try {
      if (rows.length !== requests.length)
        throw new Error(`carmarket_charge_batch_v3 answered ${rows.length} rows for ${requests.length} requests`)
      rows.forEach((row, n) => (results[order[n]!] = resultOf(row, sorted[n]!)))
    } catch (error) {
      throw this.inDoubt(batch, sorted, wanted, error)
    }
    return results
  }

  /** The error of every request of a batch whose outcome is not known; the operator is told. */
  private inDoubt(batch: string, sorted: readonly Request[], wanted: readonly boolean[], error: unknown): LedgerError {
    const reason = messageOf(error)
    const debits = sorted.reduce((sum, request, n) => sum + (wanted[n] ? request.debits.length : 0), 0)
    this.onDoubt({ batch, debits, reason })
    return new LedgerError('in_doubt', `the outcome of this debit (batch ${batch}) is not known: ${reason}`)
  }

  /**
   * What each request of a batch that lost its answer came to, learned from the entries the batch committed, in the
   * batch's order: charged as the entries say, or `unavailable` (a rejected promise) when it charged nothing.
   */
  private async learn(
    batch: string,
    sorted: readonly Request[],
    wanted: readonly boolean[],
  ): Promise<Promise<ChargesResult>[]> {
    let rows: Row[]
    try {
      rows = await this.calls.write(() => batchEntries(this.url, batch))
      if (rows.length > 0) this.committed()
      const entries = entriesOf(batch, sorted, wanted, rows)
      return sorted.map((request, n) => settled(request, entries[n]!))
    } catch (error) {
      throw this.inDoubt(batch, sorted, wanted, error)
    }
  }
}

async function withRetries<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send()
    } catch (error) {
      if (attempt >= RETRIES || !isRetryable(error)) throw error
    }
  }
}

function resultOf(row: Row, request: Request): ChargesResult {
  const outcome = oneOf(row, 'o_outcome', OUTCOMES)
  if (outcome === 'reused') return { ok: false, reason: 'reused' }
  const charged = flags(row, 'o_charged')
  const balances = wholes(row, 'o_balances')
  if (outcome === 'replayed')
    return {
      ok: false,
      reason: 'replayed',
      answer: { parts: text(row, 'o_parts'), outcomes: charged.map((c, i) => ({ charged: c, balance: balances[i]! })) },
    }
  const balance = whole(row, 'o_balance')
  if (outcome !== 'ok') return { ok: false, reason: outcome, balance }
  const seqs = row.o_seqs
  const times = row.o_times
  if (!Array.isArray(seqs) || !Array.isArray(times) || charged.length !== request.debits.length)
    throw new Error(`carmarket_charge_batch_v3 answered ${charged.length} debits for ${request.debits.length}`)
  const outcomes = request.debits.map((debit, i): DebitOutcome => {
    if (!charged[i]) return { charged: false, balance: balances[i]! }
    const seq = whole({ seq: seqs[i] }, 'seq')
    return {
      charged: true,
      balance: balances[i]!,
      entry: chargeEntry(request.accountId, debit, seq, instant({ time: times[i] }, 'time'), balances[i]!),
    }
  })
  return { ok: true, outcomes, balance }
}

function chargeEntry(accountId: string, debit: Debit, seq: number, time: string, balance: number): Entry {
  const { endpoint, make, model, year } = debit.call
  return {
    id: `${accountId}-${seq}`,
    time,
    type: 'charge',
    credits: -debit.credits,
    balance_after: balance,
    endpoint,
    make,
    model,
    year,
    status: 'success',
    reference: null,
    count: 1,
  }
}

/**
 * The entries a batch committed, matched to its requests' debits: each entry names its
 * request (batch_group, its place in the batch), whose charged debits took the account's
 * next seqs in their order. A debit is matched to its request's next entry when that is
 * its charge (its credits and call), so a request gets only its own entries (one that
 * charged nothing, refused or answered under its key by another call, gets none), and
 * every entry goes to one debit. Per request, per debit, in order.
 */
function entriesOf(
  batch: string,
  sorted: readonly Request[],
  wanted: readonly boolean[],
  rows: readonly Row[],
): (Entry | undefined)[][] {
  const byRequest = new Map<number, Entry[]>()
  for (const row of rows) {
    const group = whole(row, 'batch_group')
    const entries = byRequest.get(group) ?? []
    entries.push(entryOf(row))
    byRequest.set(group, entries)
  }
  const matched = sorted.map((request, n) => {
    const entries = byRequest.get(n + 1) ?? []
    return request.debits.map((debit) =>
      wanted[n] && entries[0] !== undefined && isChargeOf(entries[0], debit) ? entries.shift() : undefined,
    )
  })
  if ([...byRequest.values()].some((left) => left.length > 0))
    throw new Error(`batch ${batch} committed entries that none of its debits took`)
  return matched
}

function isChargeOf(entry: Entry, debit: Debit): boolean {
  const { endpoint, make, model, year } = debit.call
  return (
    entry.credits === -debit.credits &&
    entry.endpoint === endpoint &&
    entry.make === make &&
    entry.model === model &&
    entry.year === year
  )
}

/**
 * A request of a batch whose outcome was learned, from the entries its debits got: charged (a debit without one was
 * refused, at the balance left by those before it), or, with none, not charged.
 */
function settled(request: Request, entries: readonly (Entry | undefined)[]): Promise<ChargesResult> {
  const first = entries.findIndex((e) => e !== undefined)
  if (first < 0)
    return Promise.reject(
      new LedgerError('unavailable', 'the ledger lost the answer to this debit, then found it not charged'),
    )
  const firstEntry = entries[first]!
  let balance = firstEntry.balance_after - firstEntry.credits
  const outcomes = entries.map((entry): DebitOutcome => {
    if (entry === undefined) return { charged: false, balance }
    balance = entry.balance_after
    return { charged: true, balance, entry }
  })
  return Promise.resolve({ ok: true, outcomes, balance })
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
