import { mailId } from './mail-id.js'
import { instant, oneOf, optional, text, whole, type Row } from './pg-rows.js'
import type { MailKind, MailQueue, MailRecord, QueuedMail } from './types.js'
import type { Mail } from './types.js'

const KINDS: readonly MailKind[] = ['code', 'key', 'notice', 'receipt']
const RECORD_COLUMNS = 'id, kind, to_address, state, queued, attempts, next, last_error'

/**
 * The mail queue of the PostgreSQL ledger: table carmarket_mail, shared by every runtime
 * on the database. A claim leases due rows with FOR UPDATE SKIP LOCKED in one statement,
 * so two runtimes never take one message and neither waits for the other. Times are the
 * server's, one clock for every runtime.
 */
export class PgMailQueue implements MailQueue {
  constructor(
    /** A statement that writes, counted as a ledger commit; its rows. */
    private readonly write: (text: string, values: readonly unknown[]) => Promise<Row[]>,
    /** A statement that only reads; its rows. */
    private readonly read: (text: string, values: readonly unknown[]) => Promise<Row[]>,
    /** Text as the database can keep it (no U+0000). */
    private readonly storable: (text: string) => string,
  ) {}

  async enqueue(mail: Mail, giveUpAt: number): Promise<string> {
    const id = mailId(Date.now())
    await this.write(
      `INSERT INTO carmarket_mail (id, kind, to_address, subject, body, state, queued, give_up_at, next)
       VALUES ($1, $2, $3, $4, $5, 'queued', clock_timestamp(), to_timestamp($6 / 1000.0), clock_timestamp())`,
      [id, mail.kind, this.storable(mail.to), this.storable(mail.subject), this.storable(mail.text), giveUpAt],
    )
    return id
  }

  async claim(owner: string, leaseMs: number, limit: number): Promise<QueuedMail[]> {
    const due = `state = 'queued' AND next <= clock_timestamp() AND (lease_until IS NULL OR lease_until <= clock_timestamp())`
    // Looked at first with a read: a queue with nothing due costs no write.
    if ((await this.read(`SELECT 1 FROM carmarket_mail WHERE ${due} LIMIT 1`, [])).length === 0) return []
    const rows = await this.write(
      `WITH claimed AS (
         UPDATE carmarket_mail SET owner = $1, lease_until = clock_timestamp() + $2 * interval '1 millisecond'
         WHERE id IN (SELECT id FROM carmarket_mail WHERE ${due} ORDER BY next, id LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING id, kind, to_address, subject, body, queued, attempts, give_up_at, next
       )
       SELECT * FROM claimed ORDER BY next, id`,
      [owner, leaseMs, limit],
    )
    return rows.map((row) => ({
      id: text(row, 'id'),
      kind: oneOf(row, 'kind', KINDS),
      to: text(row, 'to_address'),
      subject: text(row, 'subject'),
      text: text(row, 'body'),
      queued: Date.parse(instant(row, 'queued')),
      attempts: whole(row, 'attempts'),
      give_up_at: Date.parse(instant(row, 'give_up_at')),
    }))
  }

  async sent(id: string, owner: string): Promise<void> {
    await this.write(`DELETE FROM carmarket_mail WHERE id = $1 AND owner = $2 AND state = 'queued'`, [id, owner])
  }

  async failed(id: string, owner: string, error: string, retryInMs: number | undefined): Promise<void> {
    const reason = this.storable(error)
    if (retryInMs !== undefined) {
      await this.write(
        `UPDATE carmarket_mail SET attempts = attempts + 1, next = clock_timestamp() + $3 * interval '1 millisecond',
           owner = NULL, lease_until = NULL, last_error = $4
         WHERE id = $1 AND owner = $2 AND state = 'queued'`,
        [id, owner, retryInMs, reason],
      )
      return
    }
    await this.write(
      `UPDATE carmarket_mail SET state = 'failed', attempts = attempts + 1, next = clock_timestamp(),
         subject = NULL, body = NULL, owner = NULL, lease_until = NULL, last_error = $3
       WHERE id = $1 AND owner = $2 AND state = 'queued'`,
      [id, owner, reason],
    )
  }

  async list(failedOnly: boolean, limit: number): Promise<MailRecord[]> {
    const rows = await this.read(
      `SELECT ${RECORD_COLUMNS} FROM carmarket_mail WHERE ($1 = false OR state = 'failed') ORDER BY id DESC LIMIT $2`,
      [failedOnly, limit],
    )
    return rows.map((row) => ({
      id: text(row, 'id'),
      kind: oneOf(row, 'kind', KINDS),
      to: text(row, 'to_address'),
      state: oneOf(row, 'state', ['queued', 'failed'] as const),
      queued: instant(row, 'queued'),
      attempts: whole(row, 'attempts'),
      next: instant(row, 'next'),
      last_error: optional(row, 'last_error', text),
    }))
  }

  async depth(): Promise<{ readonly queued: number; readonly failed: number }> {
    const rows = await this.read(
      `SELECT count(*) FILTER (WHERE state = 'queued') AS queued, count(*) FILTER (WHERE state = 'failed') AS failed
       FROM carmarket_mail`,
      [],
    )
    return { queued: whole(rows[0]!, 'queued'), failed: whole(rows[0]!, 'failed') }
  }
}
