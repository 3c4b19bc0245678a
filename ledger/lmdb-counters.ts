import { join } from 'node:path'
import { open, type RootDatabase } from 'lmdb'
import { LmdbWrites } from './lmdb-writes.js'
import { privateDir, privateFiles } from './private-files.js'
import {
  COUNTER_WINDOW_MS,
  type Counted,
  type CounterKind,
  type Counters,
  type WriteHealth,
  alwaysWanted,
} from './types.js'

type Key = [kind: CounterKind, window: number, who: string]

export const COUNTERS_FILE = 'counters.mdb'

/**
 * The counters in an LMDB environment of their own in the ledger folder
 * (`<ledger>/counters.mdb`), shared by every process on the machine and kept across
 * restarts. Each check-and-count is one write transaction, which LMDB serialises across
 * processes.
 *
 * It commits without fsync: a count lost to a power cut costs a caller nothing but a
 * few extra requests, and not waiting for the disk keeps a count off every request's
 * critical path. Keys lead with their kind and window, so a kind's old windows are
 * removed as one range.
 */
export class LmdbCounters implements Counters {
  private readonly writes: LmdbWrites

  private constructor(
    private readonly dir: string,
    private readonly db: RootDatabase<number, Key>,
  ) {
    this.writes = new LmdbWrites('the counters', db)
  }

  /** Opens (or creates) the counters of the ledger folder `ledger`. */
  static open(ledger: string): LmdbCounters {
    privateDir(ledger)
    const counters = new LmdbCounters(ledger, open<number, Key>({ path: join(ledger, COUNTERS_FILE), noSync: true }))
    privateFiles(ledger)
    return counters
  }

  get health(): WriteHealth {
    return this.writes
  }

  async count(kind: CounterKind, window: number, who: string): Promise<number> {
    return this.db.get([kind, window, who]) ?? 0
  }

  /** The check, the count and `wanted` in one transaction. */
  countUpTo(
    kind: CounterKind,
    window: number,
    who: string,
    limit: number,
    wanted: () => boolean = alwaysWanted,
  ): Promise<Counted> {
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

  async sweep(now: number): Promise<void> {
    const old = Object.entries(COUNTER_WINDOW_MS).flatMap(([kind, ms]) => [
      ...this.db.getKeys({ start: [kind as CounterKind], end: [kind as CounterKind, Math.floor(now / ms)] }),
    ])
    if (old.length === 0) return
    await this.writes.commit(() =>
      this.db.transaction(() => {
        for (const key of old) void this.db.remove(key)
      }),
    )
  }

  /** As Ledger.probe: a write in a window long gone, which the next sweep removes. */
  async probe(): Promise<void> {
    await this.writes.probe(this.dir, () =>
      this.db.transaction(() => void this.db.put(['rate', 0, 'probe'], Date.now())),
    )
  }

  close(): Promise<void> {
    // lmdb-js would wait for the writes a broken environment never settles; the process is ending.
    return this.writes.broken ? Promise.resolve() : this.db.close()
  }
}
