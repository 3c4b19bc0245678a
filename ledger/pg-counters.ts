import type pg from 'pg'
import { PgHealth } from './pg-health.js'
import { whole, type Row } from './pg-rows.js'
import { openMigrated } from './pg-schema.js'
import {
  COUNTER_WINDOW_MS,
  alwaysWanted,
  type Counted,
  type CounterKind,
  type Counters,
  type WriteHealth,
} from './types.js'

const POOL_SIZE = 4

/**
 * The counters in the PostgreSQL database of the ledger (table carmarket_counters),
 * shared by every process of every machine. Each check-and-count is one statement, so
 * concurrent requests never count past a limit.
 *
 * Counts commit without waiting for the server's disk (synchronous_commit off on their
 * own connections): a count lost to a crash of the server costs a caller nothing but a
 * few extra requests, and a request does not wait for a flush to be counted. The
 * ledger's connections are never set so.
 */
export class PgCounters implements Counters {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly calls: PgHealth,
  ) {}

  /** Opens the counters of the ledger at a postgres:// URL (refused as the ledger would be). */
  static async open(url: string): Promise<PgCounters> {
    const { pool, calls } = await openMigrated(url, 'the counters', { max: POOL_SIZE, synchronousCommit: 'off' })
    return new PgCounters(pool, calls)
  }

  get health(): WriteHealth {
    return this.calls
  }

  async count(kind: CounterKind, window: number, who: string): Promise<number> {
    const result = await this.calls.read(() =>
      this.pool.query<Row>('SELECT count FROM carmarket_counters WHERE kind = $1 AND time_window = $2 AND who = $3', [
        kind,
        window,
        who,
      ]),
    )
    return result.rows[0] === undefined ? 0 : whole(result.rows[0], 'count')
  }

  /**
   * `wanted` is asked once a connection is had, just before the statement is sent, since
   * the statement decides on the server: a count for a client already gone is not made,
   * even when the limit would have refused it.
   */
  async countUpTo(
    kind: CounterKind,
    window: number,
    who: string,
    limit: number,
    wanted: () => boolean = alwaysWanted,
  ): Promise<Counted> {
    const client = await this.calls.read(() => this.pool.connect())
    let broken = false
    let result: pg.QueryResult<Row>
    try {
      if (!wanted()) return 'unwanted'
      result = await this.calls.write(() =>
        client.query<Row>(
          // The first count of a window is inserted only under a limit of at least one; a later one adds only below the
          // limit.
          `INSERT INTO carmarket_counters (kind, time_window, who, count) SELECT $1::text, $2::bigint, $3::text, 1 WHERE $4::integer >= 1
           ON CONFLICT (kind, time_window, who) DO UPDATE SET count = carmarket_counters.count + 1 WHERE carmarket_counters.count < $4
           RETURNING count`,
          [kind, window, who, limit],
        ),
      )
    } catch (error) {
      broken = true
      throw error
    } finally {
      // A connection whose call failed is not handed out again.
      client.release(broken)
    }
    return result.rows[0] === undefined ? 'limit' : whole(result.rows[0], 'count')
  }

  async sweep(now: number): Promise<void> {
    const kinds = Object.entries(COUNTER_WINDOW_MS)
    await this.calls.write(() =>
      this.pool.query(
        `DELETE FROM carmarket_counters c USING unnest($1::text[], $2::bigint[]) AS latest (kind, time_window)
         WHERE c.kind = latest.kind AND c.time_window < latest.time_window`,
        [kinds.map(([kind]) => kind), kinds.map(([, ms]) => Math.floor(now / ms))],
      ),
    )
  }

  /** As Ledger.probe: a count in a window long gone, which the next sweep removes. */
  async probe(): Promise<void> {
    await this.calls.write(() =>
      this.pool.query(
        `INSERT INTO carmarket_counters (kind, time_window, who, count) VALUES ('rate', 0, 'probe', 1)
         ON CONFLICT (kind, time_window, who) DO UPDATE SET count = 1`,
      ),
    )
  }

  close(): Promise<void> {
    return this.pool.end()
  }
}
