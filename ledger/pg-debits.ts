import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { LedgerError } from './ledger-error.js'
import { Batches } from './pg-batch.js'
import { isRetryable, outcomeUnknown } from './pg-connection.js'
import { batchEntries } from './pg-doubt.js'
import type { PgHealth } from './pg-health.js'
import { entryOf, instant, oneOf, text, whole, type Row } from './pg-rows.js'
import type { Call, ChargeResult, DebitsInDoubt, Entry } from './types.js'
import { messageOf } from '../format/message-of.js'

/** Times a batch is sent again after the server rolled it back for a deadlock or a serialization failure. */
const RETRIES = 3

export interface Debit {
  readonly accountId: string
  readonly credits: number
  /** The call as stored (see storable in pg-ledger.ts). */
  readonly call: Call
  /** Whether the answer can still be delivered. */
  readonly wanted: () => boolean
}

const OUTCOMES = ['ok', 'insufficient_credits', 'disabled', 'unknown_account', 'not_wanted'] as const

const CHARGE =
  'SELECT o_outcome, o_balance, o_seq, o_time FROM carmarket_charge_batch_v2($1, $2, $3, $4, $5, $6, $7, $8) WITH ORDINALITY ORDER BY ordinality'

/**
 * Debits in batches (pg-batch.ts), each one call of carmarket_charge_batch_v2: one
 * transaction, one commit (one WAL flush) for all of its debits.
 *
 * Each debit is checked and taken on the server (UPDATE … WHERE balance >= cost), never
 * read here and written back, so concurrent batches, of this process or another, can
 * never overspend an account. The debits are sent sorted by account, so that batches
 * lock accounts in the same order and cannot deadlock one another; should the server
 * roll a batch back all the same (a deadlock, a serialization failure), nothing of it
 * was written and it is sent again.
 *
 * A batch whose connection fails once it was sent may have committed. Its debits are not
 * answered until that is known: the batch has an id of its own, which its entries record,
 * and it is asked what the batch did (pg-doubt.ts). A debit that has its entry is
 * answered charged, as it would have been; every other one is `unavailable`, and truly
 * not charged. Should that not be learned (the server out of reach past
 * OUTCOME_WAIT_MS, or an answer this code cannot read), every debit is `in_doubt`, never
 * `unavailable` nor a plain error (whose refund record would claim nothing was taken),
 * and `onDoubt` is told the batch.
 */
export class PgDebits {
  private readonly batches = new Batches<Debit, ChargeResult>((debits) => this.send(debits))

  constructor(
    private readonly pool: pg.Pool,
    private readonly calls: PgHealth,
    /** The ledger's URL, where a batch that lost its answer asks what it did. */
    private readonly url: string,
    /** Told of each batch known to have committed. */
    private readonly committed: () => void,
    /** Told of a batch whose outcome could not be learned. */
    private readonly onDoubt: (doubt: DebitsInDoubt) => void,
  ) {}

  charge(debit: Debit): Promise<ChargeResult> {
    return this.batches.add(debit)
  }

  /** The debits' results, in their order: a promise for each debit of a batch that lost its answer. */
  private async send(debits: readonly Debit[]): Promise<(ChargeResult | Promise<ChargeResult>)[]> {
    const order = debits.map((_, i) => i).sort((a, b) => compare(debits[a]!.accountId, debits[b]!.accountId))
    const sorted = order.map((i) => debits[i]!)
    // The connection is taken first, so that not getting one (the server down: nothing
    // sent) is told apart from losing it once the batch was sent; and before the
    // clients are asked, since waiting for one may take seconds.
    const client = await this.calls.read(() => this.pool.connect())
    // Asked last, just before the debits go: a client gone by now is charged nothing.
    const wanted = sorted.map((debit) => debit.wanted())
    const batch = randomUUID()
    const values = [
      batch,
      sorted.map((d) => d.accountId),
      sorted.map((d) => d.credits),
      wanted,
      sorted.map((d) => d.call.endpoint),
      sorted.map((d) => d.call.make),
      sorted.map((d) => d.call.model),
      sorted.map((d) => d.call.year),
    ]
    // A connection that fails fails the query, where that is handled; unheard, the client's error event would be
    // thrown.
    client.on('error', ignore)
    const results: (ChargeResult | Promise<ChargeResult>)[] = []
    let rows: Row[]
    try {
      rows = (await this.calls.write(() => withRetries(() => client.query<Row>(CHARGE, values)))).rows
    } catch (error) {
      client.release(true)
      if (!(error instanceof LedgerError && outcomeUnknown(error.cause))) throw error
      const entries = this.learn(batch, sorted, wanted)
      sorted.forEach((_, n) => (results[order[n]!] = entries.then((found) => charged(found[n]))))
      return results
    }
    client.removeListener('error', ignore)
    client.release()
    this.committed()
    try {
      if (rows.length !== debits.length)
        throw new Error(`carmarket_charge_batch_v2 answered ${rows.length} rows for ${debits.length} debits`)
      rows.forEach((row, n) => (results[order[n]!] = resultOf(row, sorted[n]!)))
    } catch (error) {
      throw this.inDoubt(batch, wanted, error)
    }
    return results
  }

  /** The error of every debit of a batch whose outcome is not known; the operator is told. */
  private inDoubt(batch: string, wanted: readonly boolean[], error: unknown): LedgerError {
    const reason = messageOf(error)
    this.onDoubt({ batch, debits: wanted.filter((w) => w).length, reason })
    return new LedgerError('in_doubt', `the outcome of this debit (batch ${batch}) is not known: ${reason}`)
  }

  /** The entry each debit of a batch that lost its answer got (undefined: not charged), in the batch's order. */
  private async learn(
    batch: string,
    sorted: readonly Debit[],
    wanted: readonly boolean[],
  ): Promise<(Entry | undefined)[]> {
    try {
      const rows = await this.calls.write(() => batchEntries(this.url, batch))
      if (rows.length > 0) this.committed()
      return entriesOf(batch, sorted, wanted, rows)
    } catch (error) {
      throw this.inDoubt(batch, wanted, error)
    }
  }
}

function ignore(): void {}

async function withRetries<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send()
    } catch (error) {
      if (attempt >= RETRIES || !isRetryable(error)) throw error
    }
  }
}

function resultOf(row: Row, debit: Debit): ChargeResult {
  const outcome = oneOf(row, 'o_outcome', OUTCOMES)
  const balance = whole(row, 'o_balance')
  if (outcome !== 'ok') return { ok: false, reason: outcome, balance }
  const seq = whole(row, 'o_seq')
  const { endpoint, make, model, year } = debit.call
  return {
    ok: true,
    balance,
    entry: {
      id: `${debit.accountId}-${seq}`,
      time: instant(row, 'o_time'),
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
    },
  }
}

/**
 * The entries a batch committed, matched to its debits as the batch wrote them: an
 * account's debits in the batch's order took the account's next seqs, each debit that
 * was charged the next one. A debit is matched to its account's next entry when that is
 * its charge (its credits and call); matched so, a debit can be given the entry of
 * another just like it (the same account, credits and call), never the charge of
 * another call, and every entry goes to one debit.
 */
function entriesOf(
  batch: string,
  sorted: readonly Debit[],
  wanted: readonly boolean[],
  rows: readonly Row[],
): (Entry | undefined)[] {
  const byAccount = new Map<string, Entry[]>()
  for (const row of rows) {
    const account = text(row, 'account_id')
    const entries = byAccount.get(account) ?? []
    entries.push(entryOf(row))
    byAccount.set(account, entries)
  }
  const matched = sorted.map((debit, n) => {
    const entries = byAccount.get(debit.accountId) ?? []
    return wanted[n] && entries[0] !== undefined && isChargeOf(entries[0], debit) ? entries.shift() : undefined
  })
  if ([...byAccount.values()].some((left) => left.length > 0))
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

/** A debit of a batch whose outcome was learned: charged, with its entry, or not. */
function charged(entry: Entry | undefined): ChargeResult {
  if (entry === undefined)
    throw new LedgerError('unavailable', 'the ledger lost the answer to this debit, then found it not charged')
  return { ok: true, balance: entry.balance_after, entry }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
