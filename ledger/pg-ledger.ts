import { randomBytes } from 'node:crypto'
import type pg from 'pg'
import { keyHash, keyPrefix, newKey } from './keys.js'
import { LedgerError } from './ledger-error.js'
import { parseEmail } from './mailbox.js'
import { Batches } from './pg-batch.js'
import { SHARED_WORK_WITHIN_MS, within } from './pg-connection.js'
import { PgDebits } from './pg-debits.js'
import { PgHealth } from './pg-health.js'
import { PgMailQueue } from './pg-mail-queue.js'
import { PgPayments } from './pg-payments.js'
import { PgSessions } from './pg-sessions.js'
import {
  ACCOUNT_COLUMNS,
  ENTRY_COLUMNS,
  accountOf,
  entryOf,
  flags,
  oneOf,
  text,
  whole,
  wholes,
  type Row,
} from './pg-rows.js'
import { openMigrated } from './pg-schema.js'
import { FAILED_CALL_ENTRIES_PER_DAY, IDEMPOTENCY, alwaysWanted } from './types.js'
import type {
  Account,
  AccountStatus,
  Call,
  Charges,
  ChargesResult,
  CodeCheck,
  IdempotencyStart,
  IdempotentCall,
  DebitsInDoubt,
  Entry,
  Ledger,
  LedgerWrite,
  WriteHealth,
} from './types.js'

/**
 * Connections per process: the batches of debits and of key look-ups in flight, and the reads and other writes beside
 * them.
 */
const POOL_SIZE = 10
const CODE_CHECKS: readonly CodeCheck[] = ['ok', 'wrong', 'expired', 'exhausted', 'none']
const START_STATES = ['started', 'done', 'in_flight', 'reused'] as const
/** Expired keys a sweep deletes in one transaction. */
const SWEEP_BATCH = 1_000

/**
 * The ledger in a PostgreSQL database (schema in pg-schema.ts), shared by every process
 * of every machine that opens it. Every change is one statement, or one call of a
 * function that does its work in one transaction, so each commits whole or not at all;
 * no change is read here and written back. Commits are synchronous (synchronous_commit
 * on, whatever the database's default): a change resolves once it is on the server's
 * disk, so an acknowledged debit survives a crash of either side.
 *
 * Debits, and the look-ups of keys every keyed request makes, are batched (pg-batch.ts,
 * pg-debits.ts); a batch of debits that loses its connection once sent learns what it
 * did before its debits are answered. Times (entries, the failure day) are the server's,
 * one clock for every process. PostgreSQL text cannot hold U+0000, which a query
 * parameter may: in what a call stores, it becomes U+FFFD.
 */
export class PgLedger implements Ledger {
  readonly commits: Record<LedgerWrite, number> = {
    account: 0,
    charge: 0,
    failed_call: 0,
    grant: 0,
    key: 0,
    status: 0,
    code: 0,
    idempotency: 0,
    mail: 0,
    payment: 0,
    session: 0,
  }
  private readonly debits: PgDebits
  readonly mail: PgMailQueue
  readonly payments: PgPayments
  readonly sessions: PgSessions
  /** Keys looked up together: every keyed request asks for one. */
  private readonly keys: Batches<string, Account | undefined>

  private constructor(
    private readonly pool: pg.Pool,
    private readonly calls: PgHealth,
    url: string,
    onDoubt: (doubt: DebitsInDoubt) => void,
  ) {
    this.debits = new PgDebits(
      pool,
      calls,
      url,
      () => this.commits.charge++,
      onDoubt,
      (accountId, credits, reference) => this.grant(accountId, credits, reference),
    )
    this.keys = new Batches((hashes) => calls.read(() => this.accountsByKeyHash(hashes)))
    this.mail = new PgMailQueue(
      (text, values) => this.write('mail', text, values),
      (text, values) => this.read(text, values),
      storable,
    )
    this.payments = new PgPayments(pool, calls, () => this.commits.payment++)
    this.sessions = new PgSessions(
      (text, values) => this.write('session', text, values),
      (text, values) => this.read(text, values),
    )
  }

  /**
   * Opens the ledger at a postgres:// URL; a database not migrated to this code's schema is
   * refused (LedgerError `schema`). `onDoubt` is told of debits whose outcome could not be
   * learned (see PgDebits), for the operator.
   */
  static async open(url: string, onDoubt: (doubt: DebitsInDoubt) => void): Promise<PgLedger> {
    const { pool, calls } = await openMigrated(url, 'the ledger', { max: POOL_SIZE, synchronousCommit: 'on' })
    return new PgLedger(pool, calls, url, onDoubt)
  }

  get health(): WriteHealth {
    return this.calls
  }

  async probe(): Promise<void> {
    await this.calls.write(() => this.pool.query('UPDATE carmarket_meta SET probed = clock_timestamp()'))
  }

  async createAccount(
    email: string,
    credits: number,
    type: 'signup_bonus' | 'grant',
    reference: string | null,
    keyDelivered = true,
  ) {
    const parsed = parseEmail(email)
    if (!parsed.ok) throw new LedgerError('invalid_email', parsed.message)
    if (!Number.isSafeInteger(credits) || credits < 0)
      throw new LedgerError('invalid_credits', 'credits must be a whole number of at least 0')
    const key = newKey()
    const id = `acc_${randomBytes(9).toString('base64url')}`
    // The account and its first entry in one statement; a mailbox that has an account already inserts nothing.
    const rows = await this.write(
      'account',
      `
      WITH account AS (
        INSERT INTO carmarket_accounts (id, email, mailbox, status, balance, granted, used, created, key_hash, key_prefix, key_delivered, entries)
        VALUES ($1, $2, $3, 'active', $4, $4, 0, clock_timestamp(), $5, $6, $7, 1)
        ON CONFLICT (mailbox) DO NOTHING
        RETURNING *
      ), first AS (
        INSERT INTO carmarket_entries (account_id, seq, id, time, type, credits, balance_after, status, reference)
        SELECT id, 0, id || '-0', created, $8, $4, $4, 'success', $9 FROM account
      )
      SELECT ${ACCOUNT_COLUMNS} FROM account`,
      [
        id,
        parsed.address,
        parsed.mailbox,
        credits,
        keyHash(key),
        keyPrefix(key),
        keyDelivered,
        type,
        storable(reference),
      ],
    )
    const row = rows[0]
    if (row === undefined) throw new LedgerError('email_taken', `an account for ${parsed.address} exists already`)
    return { account: accountOf(row), key }
  }

  authenticate(key: string): Promise<Account | undefined> {
    return within(
      this.keys.add(keyHash(key)),
      SHARED_WORK_WITHIN_MS,
      () => new LedgerError('unavailable', `${this.calls.what} did not answer a key look-up in time`),
    )
  }

  /** The accounts whose current keys have these hashes, in their order (undefined for a hash no account has). */
  private async accountsByKeyHash(hashes: readonly string[]): Promise<(Account | undefined)[]> {
    const found = await this.pool.query<Row>(
      `SELECT key_hash, ${ACCOUNT_COLUMNS} FROM carmarket_accounts WHERE key_hash = ANY($1)`,
      [[...new Set(hashes)]],
    )
    const byHash = new Map(found.rows.map((row) => [text(row, 'key_hash'), accountOf(row)]))
    return hashes.map((hash) => byHash.get(hash))
  }

  account(id: string): Promise<Account | undefined> {
    return this.oneAccount('id', id)
  }

  async accountByEmail(email: string): Promise<Account | undefined> {
    const parsed = parseEmail(email)
    return parsed.ok ? this.oneAccount('mailbox', parsed.mailbox) : undefined
  }

  private async oneAccount(column: 'id' | 'mailbox', value: string): Promise<Account | undefined> {
    const rows = await this.read(`SELECT ${ACCOUNT_COLUMNS} FROM carmarket_accounts WHERE ${column} = $1`, [value])
    return rows[0] === undefined ? undefined : accountOf(rows[0])
  }

  chargeAll(accountId: string, charges: Charges): Promise<ChargesResult> {
    return this.debits.charge({
      accountId,
      debits: charges.debits.map(({ credits, call }) => ({ credits, call: storableCall(call) })),
      failures: (charges.failures ?? []).map(({ call, code }) => ({ call: storableCall(call), code: storable(code) })),
      remember: charges.remember,
      wanted: charges.wanted ?? alwaysWanted,
    })
  }

  async startIdempotent(accountId: string, call: IdempotentCall): Promise<IdempotencyStart> {
    const token = randomBytes(12).toString('base64url')
    const rows = await this.write(
      'idempotency',
      'SELECT o_state, o_parts, o_charged, o_balances FROM carmarket_idempotency_start($1, $2, $3, $4, $5, $6, $7)',
      [
        accountId,
        call.key,
        call.fingerprint,
        token,
        IDEMPOTENCY.ttlMs,
        IDEMPOTENCY.leaseMs,
        IDEMPOTENCY.keysPerAccount,
      ],
    )
    const row = rows[0] ?? {}
    const state = oneOf(row, 'o_state', START_STATES)
    if (state === 'started') return { state, token }
    if (state !== 'done') return { state }
    const charged = flags(row, 'o_charged')
    const balances = wholes(row, 'o_balances')
    return {
      state,
      answer: { parts: text(row, 'o_parts'), outcomes: charged.map((c, i) => ({ charged: c, balance: balances[i]! })) },
    }
  }

  async abandonIdempotent(accountId: string, key: string, token: string): Promise<void> {
    await this.write('idempotency', 'SELECT carmarket_idempotency_abandon($1, $2, $3)', [accountId, key, token])
  }

  /**
   * Expired keys are judged by the server's clock, as their liveness is: `now` is the
   * runtime's, and a runtime whose clock runs ahead must not forget keys early. Deleted
   * SWEEP_BATCH at a time, each a short transaction of its own.
   */
  async sweep(now: number): Promise<void> {
    await this.sessions.sweep(now)
    for (;;) {
      const rows = await this.write('idempotency', 'SELECT carmarket_idempotency_sweep($1, $2) AS gone', [
        IDEMPOTENCY.ttlMs,
        SWEEP_BATCH,
      ])
      if (whole(rows[0] ?? {}, 'gone') < SWEEP_BATCH) return
    }
  }

  async recordFailure(accountId: string, call: Call, code: string): Promise<void> {
    const { endpoint, make, model, year } = storableCall(call)
    await this.write('failed_call', 'SELECT carmarket_record_failure($1, $2, $3, $4, $5, $6, $7)', [
      accountId,
      endpoint,
      make,
      model,
      year,
      storable(code),
      FAILED_CALL_ENTRIES_PER_DAY,
    ])
  }

  async grant(accountId: string, credits: number, reference: string): Promise<Entry> {
    if (!Number.isSafeInteger(credits) || credits <= 0)
      throw new LedgerError('invalid_credits', 'credits must be a whole number of at least 1')
    const rows = await this.write(
      'grant',
      `
      WITH account AS (
        UPDATE carmarket_accounts SET balance = balance + $2, granted = granted + $2, entries = entries + 1
        WHERE id = $1
        RETURNING id, balance, entries - 1 AS seq
      )
      INSERT INTO carmarket_entries (account_id, seq, id, time, type, credits, balance_after, status, reference)
      SELECT id, seq, id || '-' || seq, clock_timestamp(), 'grant', $2, balance, 'success', $3 FROM account
      RETURNING ${ENTRY_COLUMNS}`,
      [accountId, credits, storable(reference)],
    )
    if (rows[0] === undefined) throw new LedgerError('unknown_account', `no account ${accountId}`)
    return entryOf(rows[0])
  }

  async issueKey(accountId: string, delivered = true, key = newKey()): Promise<string> {
    await this.update('key', accountId, 'key_hash = $2, key_prefix = $3, key_delivered = $4', [
      keyHash(key),
      keyPrefix(key),
      delivered,
    ])
    return key
  }

  async keyDelivered(accountId: string): Promise<void> {
    await this.update('key', accountId, 'key_delivered = true', [])
  }

  setStatus(accountId: string, status: AccountStatus): Promise<Account> {
    return this.update('status', accountId, 'status = $2', [status])
  }

  /** Changes an account in one statement; `unknown_account` when there is none. */
  private async update(
    kind: LedgerWrite,
    accountId: string,
    assignments: string,
    values: readonly unknown[],
  ): Promise<Account> {
    const rows = await this.write(
      kind,
      `UPDATE carmarket_accounts SET ${assignments} WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
      [accountId, ...values],
    )
    if (rows[0] === undefined) throw new LedgerError('unknown_account', `no account ${accountId}`)
    return accountOf(rows[0])
  }

  async putCode(mailbox: string, codeHash: string, expires: number): Promise<void> {
    await this.write(
      'code',
      `INSERT INTO carmarket_codes (mailbox, hash, expires, attempts) VALUES ($1, $2, $3, 0)
       ON CONFLICT (mailbox) DO UPDATE SET hash = excluded.hash, expires = excluded.expires, attempts = 0`,
      [mailbox, codeHash, expires],
    )
  }

  async checkCode(mailbox: string, codeHash: string, now: number, maxAttempts: number): Promise<CodeCheck> {
    const rows = await this.write('code', 'SELECT carmarket_check_code($1, $2, $3, $4) AS checked', [
      mailbox,
      codeHash,
      now,
      maxAttempts,
    ])
    return oneOf(rows[0] ?? {}, 'checked', CODE_CHECKS)
  }

  async backup(): Promise<void> {
    throw new LedgerError(
      'not_supported',
      'a PostgreSQL ledger is backed up with PostgreSQL tools: pg_dump --format=custom --file=ledger.dump URL (a consistent copy, taken while servers write), or continuous archiving for point-in-time recovery',
    )
  }

  async entries(accountId: string, limit: number): Promise<Entry[]> {
    const rows = await this.read(
      `SELECT ${ENTRY_COLUMNS} FROM carmarket_entries WHERE account_id = $1 ORDER BY seq DESC LIMIT $2`,
      [accountId, limit],
    )
    return rows.map(entryOf)
  }

  close(): Promise<void> {
    return this.pool.end()
  }

  /** One statement that writes, counted once committed. */
  private async write(kind: LedgerWrite, text: string, values: readonly unknown[]): Promise<Row[]> {
    const result = await this.calls.write(() => this.pool.query<Row>(text, [...values]))
    this.commits[kind]++
    return result.rows
  }

  private async read(text: string, values: readonly unknown[]): Promise<Row[]> {
    return (await this.calls.read(() => this.pool.query<Row>(text, [...values]))).rows
  }
}

/** Text as PostgreSQL can keep it: U+0000 is the one character its text cannot hold. */
function storable(text: string): string
function storable(text: string | null): string | null
function storable(text: string | null): string | null {
  return text === null ? null : text.replaceAll('\u0000', '\uFFFD')
}

function storableCall(call: Call): Call {
  return { endpoint: storable(call.endpoint), make: storable(call.make), model: storable(call.model), year: call.year }
}
