import { join } from 'node:path'
import { open, type RootDatabase } from 'lmdb'
import { LmdbWrites } from '../ledger/lmdb-writes.js'
import { privateDir, privateFiles } from '../ledger/private-files.js'
import type { WriteHealth } from '../ledger/types.js'

/**
 * Demo calls per IP per UTC day, requests per IP per minute, registration codes per
 * mailbox or IP per hour, accounts opened per IP per day.
 */
export type CounterKind = 'demo' | 'rate' | 'signup-email' | 'signup-ip' | 'signup-account'
type Key = [kind: CounterKind, window: number, who: string]

/** What counting one more came to: the new count, or nothing counted because the limit was reached or the count was no longer wanted. */
export type Counted = number | 'limit' | 'unwanted'

export const COUNTERS_FILE = 'counters.mdb'

/**
 * Per-IP counters that every worker process shares and that a restart keeps: an LMDB
 * environment in the ledger folder. Each check-and-count is one atomic transaction,
 * so concurrent requests from one address, in any worker, never count past a limit.
 * It commits without fsync: a counter lost to a power cut costs a caller nothing but a
 * few extra requests, and not waiting for the disk keeps a count off every request's
 * critical path. Keys lead with their window, so old windows are removed as a range.
 * A count that cannot be written rejects as LedgerError `unavailable`.
 */
export class Counters {
  private readonly writes: LmdbWrites

  private constructor(
    private readonly dir: string,
    private readonly db: RootDatabase<number, Key>,
  ) {
    this.writes = new LmdbWrites('the counters', db)
  }

  static open(ledger: string): Counters {
    privateDir(ledger)
    const counters = new Counters(ledger, open<number, Key>({ path: join(ledger, COUNTERS_FILE), noSync: true }))
    privateFiles(ledger)
    return counters
  }

  get health(): WriteHealth {
    return this.writes
  }

  /** The count of a window. */
  count(kind: CounterKind, window: number, who: string): number {
    return this.db.get([kind, window, who]) ?? 0
  }

  /**
   * Counts one more for `who` in `window` if that keeps it at most `limit`. `wanted` is
   * asked last, inside the transaction: a count for an answer that can no longer be
   * delivered is not made.
   */
  countUpTo(kind: CounterKind, window: number, who: string, limit: number, wanted: () => boolean = always): Promise<Counted> {
    const key: Key = [kind, window, who]
    return this.writes.commit(() =>
      this.db.transaction((): Counted => {
        const count = (this.db.get(key) ?? 0) + 1
        if (count > limit) return 'limit'
        if (!wanted()) return 'unwanted'
        void this.db.put(key, count)
        return count
      }),
    )
  }

  /** Removes the windows of `kind` before `window` (each kind's own unit: minutes, days or hours). */
  async forgetBefore(kind: CounterKind, window: number): Promise<void> {
    const old = [...this.db.getKeys({ start: [kind], end: [kind, window] })]
    await this.writes.commit(() =>
      this.db.transaction(() => {
        for (const key of old) void this.db.remove(key)
      }),
    )
  }

  /** As Ledger.probe: a write in a window long gone, which the next sweep removes. */
  async probe(): Promise<void> {
    await this.writes.probe(this.dir, () => this.db.transaction(() => void this.db.put(['rate', 0, 'probe'], Date.now())))
  }

  close(): Promise<void> {
    // lmdb-js would wait for the writes a broken environment never settles; the process is ending.
    return this.writes.broken ? Promise.resolve() : this.db.close()
  }
}

const always = () => true
