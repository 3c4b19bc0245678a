import type pg from 'pg'
import { isRetryable } from './pg-connection.js'
import type { PgHealth } from './pg-health.js'
import { oneOf, whole, instant, type Row } from './pg-rows.js'
import type { Call, ChargeResult } from './types.js'

/** Batches on their way to the server at once, each on a pooled connection of its own. */
const BATCHES_IN_FLIGHT = 4
/** Debits in one batch at most. */
const BATCH_SIZE = 500
/** Times a batch is sent again after the server rolled it back for a deadlock or a serialization failure. */
const RETRIES = 3

export interface Debit {
  readonly accountId: string
  readonly credits: number
  /** The call as stored (see storable in pg-ledger.ts). */
  readonly call: Call
  readonly wanted: () => boolean
}

interface Waiting {
  readonly debit: Debit
  readonly resolve: (result: ChargeResult) => void
  readonly reject: (error: unknown) => void
}

const OUTCOMES = ['ok', 'insufficient_credits', 'disabled', 'unknown_account', 'not_wanted'] as const

/**
 * Debits sharing commits. A debit waits for the batches in flight (at most
 * BATCHES_IN_FLIGHT) and then goes with every debit that waited beside it as one call of
 * carmarket_charge_batch: one transaction, one commit (one WAL flush) for all of them.
 * However many requests are charging at once, the server sees a few transactions at a
 * time, never one awaited round trip per request in series; a lone debit goes at once.
 *
 * Each debit is checked and taken on the server (UPDATE … WHERE balance >= cost), never
 * read here and written back, so concurrent batches, of this process or another, can
 * never overspend an account. A batch's debits are sent sorted by account, so that
 * batches lock accounts in the same order and cannot deadlock one another; should the
 * server roll one back all the same (a deadlock, a serialization failure), nothing of it
 * was written and it is sent again.
 */
export class DebitBatches {
  private readonly waiting: Waiting[] = []
  private inFlight = 0
  private scheduled = false

  constructor(
    private readonly pool: pg.Pool,
    private readonly calls: PgHealth,
    /** Told of each batch committed. */
    private readonly committed: () => void,
  ) {}

  charge(debit: Debit): Promise<ChargeResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ debit, resolve, reject })
      this.schedule()
    })
  }

  /** Starts batches at the end of this turn of the event loop, so that the debits of one turn go together. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= BATCHES_IN_FLIGHT || this.waiting.length === 0) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      while (this.inFlight < BATCHES_IN_FLIGHT && this.waiting.length > 0) void this.settle(this.waiting.splice(0, BATCH_SIZE))
    })
  }

  private async settle(batch: Waiting[]): Promise<void> {
    this.inFlight++
    try {
      const results = await this.calls.write(() => this.send(batch.map(({ debit }) => debit)))
      this.committed()
      batch.forEach(({ resolve }, i) => resolve(results[i]!))
    } catch (error) {
      for (const { reject } of batch) reject(error)
    } finally {
      this.inFlight--
      this.schedule()
    }
  }

  /** One batch as one statement; the results in the order of `debits`. */
  private async send(debits: readonly Debit[]): Promise<ChargeResult[]> {
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
    const rows = await this.sendWithRetries(values)
    if (rows.length !== debits.length) throw new Error(`carmarket_charge_batch answered ${rows.length} rows for ${debits.length} debits`)
    const results: ChargeResult[] = []
    rows.forEach((row, n) => (results[order[n]!] = resultOf(row, sorted[n]!)))
    return results
  }

  private async sendWithRetries(values: readonly unknown[]): Promise<Row[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.pool.query<Row>(
          'SELECT o_outcome, o_balance, o_seq, o_time FROM carmarket_charge_batch($1, $2, $3, $4, $5, $6, $7) WITH ORDINALITY ORDER BY ordinality',
          [...values],
        )
        return result.rows
      } catch (error) {
        if (attempt >= RETRIES || !isRetryable(error)) throw error
      }
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
