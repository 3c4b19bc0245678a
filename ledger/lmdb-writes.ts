import { statfsSync } from 'node:fs'
import { unavailable } from './ledger-error.js'
import { WriteFailures } from './write-failures.js'
import { messageOf } from '../format/message-of.js'

/**
 * Free space a probe wants on the environment's file system. LMDB reuses the pages its
 * own commits freed, so a small write can still commit on a full disk while the next
 * one that needs a new page fails: a probe that only wrote would call a full disk ready.
 * 1 MiB is room for thousands of ledger entries.
 */
export const PROBE_HEADROOM_BYTES = 1 << 20

/** A failed lmdb-js commit: the transaction's promise rejects with this; the cause follows on `commitError`. */
interface CommitFailure extends Error {
  readonly commitError: Promise<never>
}

function isCommitFailure(error: unknown): error is CommitFailure {
  return error instanceof Error && 'commitError' in error && error.commitError instanceof Promise
}

/**
 * The write transactions of one LMDB environment. A commit that fails (no space left, an
 * I/O error) rejects as an `unavailable` LedgerError, which callers answer as a refusal
 * to retry, never as a crash; nothing of the transaction was written. The environment's
 * health says writes are failing until one commits again.
 *
 * A failed write of LMDB's meta page leaves the environment with a fatal error
 * (MDB_PANIC): no transaction of this process begins on it again, and lmdb-js neither
 * settles the transactions queued behind nor closes it, so it cannot be reopened in
 * this process either. Such an environment is `broken`: writes are refused at once and
 * the process is to be replaced (a new process maps the file afresh; what was committed
 * is intact, since LMDB only ever switches to a fully written meta page).
 */
export class LmdbWrites extends WriteFailures {
  broken = false

  constructor(
    private readonly what: string,
    /** The environment's root database, asked whether the environment is broken. */
    private readonly root: { getStats(): unknown },
  ) {
    super()
  }

  /** Starts a write transaction (unless the environment is broken) and awaits its commit. */
  async commit<T>(start: () => Promise<T>): Promise<T> {
    if (this.broken) throw unavailable(this.what)
    let result: T
    try {
      result = await start()
    } catch (error) {
      if (!isCommitFailure(error)) throw error
      this.failed('a commit failed')
      // The cause arrives on a promise of its own, which nobody else awaits.
      error.commitError.catch((cause: unknown) => {
        if (!this.broken) this.reason = messageOf(cause)
      })
      this.isBroken()
      throw unavailable(this.what)
    }
    this.committed()
    return result
  }

  /**
   * A write of nothing but itself (`start`), to learn whether writes commit, and then
   * whether the file system of `dir` has PROBE_HEADROOM_BYTES free; either failing
   * counts as a failed write.
   */
  async probe(dir: string, start: () => Promise<unknown>): Promise<void> {
    await this.commit(start)
    const { bavail, bsize } = statfsSync(dir)
    if (bavail * bsize >= PROBE_HEADROOM_BYTES) return
    this.failed(`less than ${PROBE_HEADROOM_BYTES >> 20} MiB free on the file system of ${dir}`)
    throw unavailable(this.what)
  }

  /**
   * Whether the environment had a fatal error, asked of LMDB now: a read transaction
   * cannot begin on such an environment. lmdb-js tells it only in the error's message.
   */
  override isBroken(): boolean {
    if (this.broken) return true
    try {
      this.root.getStats()
    } catch (error) {
      if (!messageOf(error).includes('MDB_PANIC')) throw error
      this.broken = true
      this.failed('the environment had a fatal error (MDB_PANIC); this process must be replaced')
    }
    return this.broken
  }
}

/**
 * Whether an unhandled rejection is lmdb-js telling of a failed commit again on an
 * internal promise that nobody awaits. The transaction's own promise has told its caller
 * already (as `unavailable`), so these are no errors of their own: a process must not
 * stop for them. The cause's promise is marked handled too.
 */
export function isCommitEcho(reason: unknown): boolean {
  if (!isCommitFailure(reason)) return false
  reason.commitError.catch(() => {})
  return true
}
