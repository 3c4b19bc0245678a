import { join } from 'node:path'
import { open, type RootDatabase } from 'lmdb'

/** Demo calls per IP per UTC day, requests per IP per minute, registration codes per address or IP per hour. */
export type CounterKind = 'demo' | 'rate' | 'signup-email' | 'signup-ip'
type Key = [kind: CounterKind, window: number, who: string]

export const COUNTERS_FILE = 'counters.mdb'

/**
 * Per-IP counters that every worker process shares and that a restart keeps: an LMDB
 * environment in the ledger folder. Each check-and-count is one atomic transaction,
 * so concurrent requests from one address, in any worker, never count past a limit.
 * It commits without fsync: a counter lost to a power cut costs a caller nothing but a
 * few extra requests, and not waiting for the disk keeps a count off every request's
 * critical path. Keys lead with their window, so old windows are removed as a range.
 */
export class Counters {
  private constructor(private readonly db: RootDatabase<number, Key>) {}

  static open(ledger: string): Counters {
    return new Counters(open<number, Key>({ path: join(ledger, COUNTERS_FILE), noSync: true }))
  }

  /** The count of a window. */
  count(kind: CounterKind, window: number, ip: string): number {
    return this.db.get([kind, window, ip]) ?? 0
  }

  /**
   * Counts one more for `ip` in `window` if that keeps it at most `limit`; resolves to
   * the new count, or undefined when the limit was already reached (nothing counted).
   */
  countUpTo(kind: CounterKind, window: number, ip: string, limit: number): Promise<number | undefined> {
    const key: Key = [kind, window, ip]
    return this.db.transaction(() => {
      const count = (this.db.get(key) ?? 0) + 1
      if (count > limit) return undefined
      void this.db.put(key, count)
      return count
    })
  }

  /** Removes the windows of `kind` before `window` (each kind's own unit: minutes, days or hours). */
  async forgetBefore(kind: CounterKind, window: number): Promise<void> {
    const old = [...this.db.getKeys({ start: [kind], end: [kind, window] })]
    await this.db.transaction(() => {
      for (const key of old) void this.db.remove(key)
    })
  }

  close(): Promise<void> {
    return this.db.close()
  }
}
