import { ACCOUNT_COLUMNS, accountOf, type Row } from './pg-rows.js'
import type { Account, Sessions } from './types.js'

/** Sessions in table carmarket_sessions of the PostgreSQL ledger; ends judged by the server's clock. */
export class PgSessions implements Sessions {
  constructor(
    /** A statement that writes, counted as a ledger commit; its rows. */
    private readonly write: (text: string, values: readonly unknown[]) => Promise<Row[]>,
    /** A statement that only reads; its rows. */
    private readonly read: (text: string, values: readonly unknown[]) => Promise<Row[]>,
  ) {}

  async open(tokenHash: string, accountId: string, expires: number): Promise<void> {
    await this.write(
      'INSERT INTO carmarket_sessions (token_hash, account_id, expires) VALUES ($1, $2, to_timestamp($3 / 1000.0))',
      [tokenHash, accountId, expires],
    )
  }

  async account(tokenHash: string, _now: number): Promise<Account | undefined> {
    const rows = await this.read(
      `SELECT ${ACCOUNT_COLUMNS} FROM carmarket_accounts
       WHERE id = (SELECT account_id FROM carmarket_sessions WHERE token_hash = $1 AND expires > clock_timestamp())`,
      [tokenHash],
    )
    return rows[0] === undefined ? undefined : accountOf(rows[0])
  }

  async close(tokenHash: string): Promise<void> {
    await this.write('DELETE FROM carmarket_sessions WHERE token_hash = $1', [tokenHash])
  }

  async sweep(_now: number): Promise<void> {
    await this.write('DELETE FROM carmarket_sessions WHERE expires <= clock_timestamp()', [])
  }
}
