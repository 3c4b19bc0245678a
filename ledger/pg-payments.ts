import { randomBytes } from 'node:crypto'
import type pg from 'pg'
import { keyHash, keyPrefix, newKey } from './keys.js'
import { LedgerError } from './ledger-error.js'
import { parseEmail } from './mailbox.js'
import { paymentReference, reversalOf, reversalReference, type RefundTotals } from './payment-terms.js'
import type { PgHealth } from './pg-health.js'
import {
  ACCOUNT_COLUMNS,
  ENTRY_COLUMNS,
  PAYMENT_COLUMNS,
  accountOf,
  entryOf,
  paymentOf,
  whole,
  type Row,
} from './pg-rows.js'
import type { Entry, PaidSession, Payment, PaymentGrant, PaymentReversal, Payments } from './types.js'

/** Adds `$2` credits (a grant, or a reversal when negative) to account `$1` with an entry of type `$3`, reference `$4`. */
const ADD_ENTRY = `
  WITH account AS (
    UPDATE carmarket_accounts SET balance = balance + $2, granted = granted + $2, entries = entries + 1
    WHERE id = $1
    RETURNING id, balance, entries - 1 AS seq
  ), line AS (
    INSERT INTO carmarket_entries (account_id, seq, id, time, type, credits, balance_after, status, reference)
    SELECT id, seq, id || '-' || seq, clock_timestamp(), $3, $2, balance, 'success', $4 FROM account
  )
  SELECT balance FROM account`

/**
 * The payments of the PostgreSQL ledger: table carmarket_payments, each grant or
 * reversal one transaction with its entry. A session told twice at once waits on the
 * first's row of carmarket_payments and finds it granted; told twice one after the
 * other, it is found before anything is written.
 */
export class PgPayments implements Payments {
  constructor(
    private readonly pool: pg.Pool,
    private readonly calls: PgHealth,
    /** Counts a committed transaction. */
    private readonly committed: () => void,
  ) {}

  async grantPaid(session: PaidSession): Promise<PaymentGrant> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.grantOnce(session)
      } catch (error) {
        if (!(error instanceof AskAgain) || attempt >= 3) throw error
      }
    }
  }

  private async grantOnce(session: PaidSession): Promise<PaymentGrant> {
    const parsed = parseEmail(session.email)
    if (!parsed.ok) throw new LedgerError('invalid_email', parsed.message)
    const before = await this.payment(session.session_id)
    if (before !== undefined) return { outcome: 'already', payment: before }
    const reference = paymentReference(session.session_id)
    const key = newKey()
    const result = await this.transaction(async (client): Promise<PaymentGrant | undefined> => {
      // A refund told at the same moment waits for this grant, or this grant for it (reverse takes the same lock).
      if (session.payment_intent !== null) await lockIntent(client, session.payment_intent)
      const found =
        session.account_id ??
        (await client.query<Row>('SELECT id FROM carmarket_accounts WHERE mailbox = $1 FOR UPDATE', [parsed.mailbox]))
          .rows[0]?.id
      let accountId: string
      let opened = false
      if (typeof found === 'string') {
        const exists = await client.query('SELECT 1 FROM carmarket_accounts WHERE id = $1 FOR UPDATE', [found])
        if (exists.rowCount === 0) return undefined
        await client.query(ADD_ENTRY, [found, session.credits, 'grant', reference])
        accountId = found
      } else {
        accountId = `acc_${randomBytes(9).toString('base64url')}`
        const inserted = await client.query(
          `WITH account AS (
             INSERT INTO carmarket_accounts (id, email, mailbox, status, balance, granted, used, created, key_hash, key_prefix, key_delivered, entries)
             VALUES ($1, $2, $3, 'active', $4, $4, 0, clock_timestamp(), $5, $6, false, 1)
             ON CONFLICT (mailbox) DO NOTHING
             RETURNING *
           )
           INSERT INTO carmarket_entries (account_id, seq, id, time, type, credits, balance_after, status, reference)
           SELECT id, 0, id || '-0', created, 'grant', $4, $4, 'success', $7 FROM account`,
          [accountId, parsed.address, parsed.mailbox, session.credits, keyHash(key), keyPrefix(key), reference],
        )
        // The mailbox's account was opened meanwhile by a transaction that has committed now: asked again, this finds it.
        if (inserted.rowCount === 0) throw new AskAgain()
        opened = true
      }
      const inserted = await client.query<Row>(
        `INSERT INTO carmarket_payments (session_id, payment_intent, account_id, credits, amount, currency, granted_at)
         VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp())
         ON CONFLICT (session_id) DO NOTHING
         RETURNING ${PAYMENT_COLUMNS}`,
        [session.session_id, session.payment_intent, accountId, session.credits, session.amount, session.currency],
      )
      // Granted by another transaction meanwhile: this one's grant is rolled back with it.
      if (inserted.rows[0] === undefined) throw new AlreadyGranted()
      let payment = paymentOf(inserted.rows[0])
      // A refund or dispute told before the grant is taken back with it.
      const early =
        session.payment_intent === null
          ? undefined
          : (
              await client.query<Row>(
                'DELETE FROM carmarket_pending_reversals WHERE payment_intent = $1 RETURNING refunded, disputed',
                [session.payment_intent],
              )
            ).rows[0]
      if (early !== undefined)
        payment = (
          await reverseIn(client, payment, { refunded: whole(early, 'refunded'), disputed: whole(early, 'disputed') })
        ).payment
      const account = await client.query<Row>(`SELECT ${ACCOUNT_COLUMNS} FROM carmarket_accounts WHERE id = $1`, [
        accountId,
      ])
      return {
        outcome: 'granted',
        payment,
        account: accountOf(account.rows[0]!),
        key: opened ? key : null,
      }
    }).catch(async (error: unknown) => {
      if (!(error instanceof AlreadyGranted)) throw error
      return { outcome: 'already' as const, payment: (await this.payment(session.session_id))! }
    })
    if (result === undefined) throw new LedgerError('unknown_account', `no account ${session.account_id}`)
    return result
  }

  async reverse(paymentIntent: string, totals: RefundTotals): Promise<PaymentReversal | 'pending'> {
    return this.transaction(async (client) => {
      await lockIntent(client, paymentIntent)
      const row = (
        await client.query<Row>(
          `SELECT ${PAYMENT_COLUMNS} FROM carmarket_payments WHERE payment_intent = $1 FOR UPDATE`,
          [paymentIntent],
        )
      ).rows[0]
      if (row !== undefined) return reverseIn(client, paymentOf(row), totals)
      await client.query(
        `INSERT INTO carmarket_pending_reversals (payment_intent, refunded, disputed) VALUES ($1, $2, $3)
         ON CONFLICT (payment_intent) DO UPDATE SET
           refunded = GREATEST(carmarket_pending_reversals.refunded, excluded.refunded),
           disputed = GREATEST(carmarket_pending_reversals.disputed, excluded.disputed)`,
        [paymentIntent, totals.refunded ?? 0, totals.disputed ?? 0],
      )
      return 'pending' as const
    })
  }

  async list(from: string, to: string): Promise<Payment[]> {
    const rows = await this.calls.read(() =>
      this.pool.query<Row>(
        `SELECT ${PAYMENT_COLUMNS} FROM carmarket_payments WHERE granted_at BETWEEN $1 AND $2 ORDER BY granted_at`,
        [from, to],
      ),
    )
    return rows.rows.map(paymentOf)
  }

  async grantsOf(payment: Payment): Promise<Entry[]> {
    const rows = await this.calls.read(() =>
      this.pool.query<Row>(
        `SELECT ${ENTRY_COLUMNS} FROM carmarket_entries WHERE account_id = $1 AND type = 'grant' AND reference = $2`,
        [payment.account_id, paymentReference(payment.session_id)],
      ),
    )
    return rows.rows.map(entryOf)
  }

  private async payment(sessionId: string): Promise<Payment | undefined> {
    const rows = await this.calls.read(() =>
      this.pool.query<Row>(`SELECT ${PAYMENT_COLUMNS} FROM carmarket_payments WHERE session_id = $1`, [sessionId]),
    )
    return rows.rows[0] === undefined ? undefined : paymentOf(rows.rows[0])
  }

  /** `work` in one transaction on a connection of the pool: committed whole, or rolled back on any error. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const result = await this.calls.write(async () => {
      const client = await this.pool.connect()
      try {
        await client.query('BEGIN')
        const done = await work(client)
        await client.query('COMMIT')
        client.release()
        return done
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined)
        client.release(true)
        throw error
      }
    })
    this.committed()
    return result
  }
}

/**
 * Takes the transaction's lock on a payment intent: its grant and its refunds take turns, so a refund told while its
 * session is being granted is either seen by the grant (pending) or sees the payment.
 */
async function lockIntent(client: pg.PoolClient, paymentIntent: string): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock(hashtext('carmarket payment ' || $1))", [paymentIntent])
}

/** A payment's refund or dispute totals recorded, and what they come to taken back from its account, in `client`'s transaction. */
async function reverseIn(client: pg.PoolClient, payment: Payment, totals: RefundTotals): Promise<PaymentReversal> {
  const { refunded, disputed, due } = reversalOf(payment, totals)
  const balance = (
    await client.query<Row>('SELECT balance FROM carmarket_accounts WHERE id = $1 FOR UPDATE', [payment.account_id])
  ).rows[0]?.balance
  const taken = Math.min(due, Number(balance ?? 0))
  if (taken > 0)
    await client.query(ADD_ENTRY, [payment.account_id, -taken, 'reversal', reversalReference(payment.session_id)])
  const after = await client.query<Row>(
    `UPDATE carmarket_payments SET refunded = $2, disputed = $3, reversed = reversed + $4, unrecovered = unrecovered + $5
     WHERE session_id = $1 RETURNING ${PAYMENT_COLUMNS}`,
    [payment.session_id, refunded, disputed, taken, due - taken],
  )
  return { payment: paymentOf(after.rows[0]!), taken, unrecovered: due - taken }
}

/** A session found granted by another transaction once this one had written its grant. */
class AlreadyGranted extends Error {}

/** A mailbox found given an account by another transaction: the grant is made again, to that account. */
class AskAgain extends Error {}
