import type pg from 'pg'
import { isRetryable } from './pg-connection.js'
import { instant, oneOf, whole, type Row } from './pg-rows.js'
import type { Call, ChargeResult } from './types.js'

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

/**
 * Debits in one call of carmarket_charge_batch: one transaction, one commit (one WAL
 * flush) for all of them; the results in the order of `debits`.
 *
 * Each debit is checked and taken on the server (UPDATE … WHERE balance >= cost), never
 * read here and written back, so concurrent batches, of this process or another, can
 * never overspend an account. The debits are sent sorted by account, so that batches
 * lock accounts in the same order and cannot deadlock one another; should the server
 * roll a batch back all the same (a deadlock, a serialization failure), nothing of it
 * was written and it is sent again.
 */
export async function chargeBatch(pool: pg.Pool, debits: readonly Debit[]): Promise<ChargeResult[]> {
  const order = debits.map((_, i) => i).sort((a, b) => compare(debits[a]!.accountId, debits[b]!.accountId))
  const sorted = order.map((i) => debits[i]!)
  // Asked last, just before the debits go: a client gone by now is charged nothing.
  const wanted = sorted.map((debit) => debit.wanted())
  const values = [
    sorted.map((d) => d.accountId),
    sorted.map((d) => d.credits),
    wanted,
    sorted.map((d) => d.call.endpoint),
    sorted.map((d) => d.call.make),
    sorted.map((d) => d.call.model),
    sorted.map((d) => d.call.year),
  ]
  const rows = await withRetries(() =>
    pool.query<Row>('SELECT o_outcome, o_balance, o_seq, o_time FROM carmarket_charge_batch($1, $2, $3, $4, $5, $6, $7) WITH ORDINALITY ORDER BY ordinality', values),
  )
  if (rows.rows.length !== debits.length) throw new Error(`carmarket_charge_batch answered ${rows.rows.length} rows for ${debits.length} debits`)
  const results: ChargeResult[] = []
  rows.rows.forEach((row, n) => (results[order[n]!] = resultOf(row, sorted[n]!)))
  return results
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

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
