import { LedgerError } from './ledger-error.js'
import { unavailability } from './pg-connection.js'
import { WriteFailures } from './write-failures.js'

/**
 * The calls of one engine (the ledger or the counters) to its PostgreSQL server, and how
 * they fare. A call the server cannot take now (down, unreachable, shutting down, out of
 * disk, timed out) rejects as LedgerError `unavailable`, which the runtime answers with
 * a 503 and nothing charged; any other error is a bug and is thrown on as it is.
 *
 * A write whose connection is lost after it was sent has an outcome not known yet: it
 * may have committed. It is `unavailable` all the same, never reported as done, and what
 * committed is whole, one transaction; the error's `cause` is the engine's, to tell
 * such a loss apart (outcomeUnknown in pg-connection.ts). Debits ask what their batch
 * did before they are answered (pg-debits.ts).
 *
 * The pool replaces lost connections by itself, so nothing is ever broken for good: once
 * the server is back, the next write commits and the health is good again.
 */
export class PgHealth extends WriteFailures {
  constructor(
    /** What the calls are to, for messages: `the ledger at postgres://…`. */
    readonly what: string,
  ) {
    super()
  }

  /** A write; once it commits, writes are known to commit again. */
  async write<T>(work: () => Promise<T>): Promise<T> {
    const result = await this.call(work)
    this.committed()
    return result
  }

  /** A read: its failure tells of the server as a write's would, its success says nothing of writes. */
  read<T>(work: () => Promise<T>): Promise<T> {
    return this.call(work)
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      const reason = unavailability(error)
      if (reason === undefined) throw error
      this.failed(reason)
      throw new LedgerError('unavailable', `${this.what} is unavailable: ${reason}`, { cause: error })
    }
  }
}
