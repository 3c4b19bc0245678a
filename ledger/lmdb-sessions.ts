import type { Database } from 'lmdb'
import type { Account, Sessions } from './types.js'

interface StoredSession {
  readonly account: string
  readonly expires: number
}

/** Sessions in database `session_records` of the LMDB ledger: a token's hash to its account and end. */
export class LmdbSessions implements Sessions {
  constructor(
    private readonly records: Database<StoredSession, string>,
    private readonly accountOf: (id: string) => Account | undefined,
    /** Runs `work` in a write transaction of the ledger; resolves once committed. */
    private readonly commit: <T>(work: () => T) => Promise<T>,
  ) {}

  async open(tokenHash: string, accountId: string, expires: number): Promise<void> {
    await this.commit(() => void this.records.put(tokenHash, { account: accountId, expires }))
  }

  async account(tokenHash: string, now: number): Promise<Account | undefined> {
    const session = this.records.get(tokenHash)
    return session === undefined || session.expires <= now ? undefined : this.accountOf(session.account)
  }

  async close(tokenHash: string): Promise<void> {
    await this.commit(() => void this.records.remove(tokenHash))
  }

  async sweep(now: number): Promise<void> {
    const ended = [...this.records.getRange()].filter(({ value }) => value.expires <= now).map(({ key }) => key)
    if (ended.length === 0) return
    await this.commit(() => {
      for (const key of ended) if ((this.records.get(key)?.expires ?? Infinity) <= now) void this.records.remove(key)
    })
  }
}
