import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { connectionConfig, unavailability } from './pg-connection.js'
import { ENTRY_COLUMNS, type Row } from './pg-rows.js'

/**
 * How long a batch of debits whose answer was lost goes on asking what it did: enough for
 * PostgreSQL to restart. Its requests are answered long before (SHARED_WORK_WITHIN_MS,
 * pg-connection.ts); what is learned after decides whether a charge is given back.
 */
export const OUTCOME_WAIT_MS = 10_000
/** Between attempts while the server cannot be reached. */
const ATTEMPT_PAUSE_MS = 200

/**
 * The entries batch `batch` committed (account_id, batch_group and ENTRY_COLUMNS, in seq order), asked
 * of the ledger at `url` by carmarket_batch_outcome, which settles the batch for good: a
 * batch still running on the server is waited for, one that has not committed never will.
 *
 * Each attempt is a connection of its own (the batch's was lost, and the pool's may have
 * been lost with it); while the server cannot be reached, it is asked again, for at most
 * OUTCOME_WAIT_MS. Rejects with the last attempt's error once that has passed.
 */
export async function batchEntries(url: string, batch: string): Promise<Row[]> {
  const deadline = Date.now() + OUTCOME_WAIT_MS
  for (;;) {
    try {
      return await ask(url, batch, deadline)
    } catch (error) {
      if (unavailability(error) === undefined || Date.now() + ATTEMPT_PAUSE_MS >= deadline) throw error
    }
    await sleep(ATTEMPT_PAUSE_MS)
  }
}

async function ask(url: string, batch: string, deadline: number): Promise<Row[]> {
  const left = Math.max(1, deadline - Date.now())
  // Synchronous commit as the ledger's own connections: a batch found not committed is
  // void on disk before its debits are answered as not charged.
  const client = new pg.Client({
    ...connectionConfig(url, 'on'),
    connectionTimeoutMillis: left,
    statement_timeout: left,
  })
  // A connection lost while asking fails the connect or the query, where it is handled.
  client.on('error', ignore)
  try {
    await client.connect()
    const query: pg.QueryConfig & { readonly query_timeout: number } = {
      text: `SELECT account_id, batch_group, ${ENTRY_COLUMNS} FROM carmarket_batch_outcome($1)`,
      values: [batch],
      query_timeout: Math.max(1, deadline - Date.now()),
    }
    return (await client.query<Row>(query)).rows
  } finally {
    await client.end()
  }
}

function ignore(): void {}
