import type { Database, RootDatabase } from 'lmdb'
import { opened, whole } from './lmdb-databases.js'
import type { Account, Sessions } from './types.js'

interface StoredSession {
  readonly account: string
  readonly expires: number
}

/** Sessions in database `session_records` of the LMDB ledger: a token's hash to its account and end. */
export class LmdbSessions implements Sessions {
  /** Its database, opened when first used (as the mail queue's, lmdb-mail-queue.ts). */
  private readonly database: { readonly get: () => Database<StoredSession, string>; readonly opened: () => boolean }

  constructor(
    root: RootDatabase,
    private readonly accountOf: (id: string) => Account | undefined,
    /** Runs `work` in a write transaction of the ledger; resolves once committed. */
    private readonly commit: <T>(work: () => T) => Promise<T>,
  ) {
    this.database = opened(() => root.openDB<StoredSession, string>(whole('session_records')))
  }

  private get records(): Database<StoredSession, string> {
    return this.database.get()
  }

  async open(tokenHash: string, accountId: string, expires: number): Promise<void> {
    this.database.get()
    await this.commit(() => void this.records.put(tokenHash, { account: accountId, expires }))
  }

  async account(tokenHash: string, now: number): Promise<Account | undefined> {
    const session = this.records.get(tokenHash)
    return session === undefined || session.expires <= now ? undefined : this.accountOf(session.account)
  }

  async close(tokenHash: string): Promise<void> {
    this.database.get()
    await this.commit(() => void this.records.remove(tokenHash))
  }

  /** Swept by the processes that keep sessions: one that never signed anybody in leaves the database unopened. */
  async sweep(now: number): Promise<void> {
    if (!this.database.opened()) return
    const ended = [...this.records.getRange()].filter(({ value }) => value.expires <= now).map(({ key }) => key)
    if (ended.length === 0) return
    await this.commit(() => {
      for (const key of ended) if ((this.records.get(key)?.expires ?? Infinity) <= now) void this.records.remove(key)
    })
  }
}
