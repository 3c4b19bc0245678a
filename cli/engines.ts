import { LmdbCounters } from '../ledger/lmdb-counters.js'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { isPostgresUrl } from '../ledger/pg-connection.js'
import { PgCounters } from '../ledger/pg-counters.js'
import { PgLedger } from '../ledger/pg-ledger.js'
import { migrate, type Migrated } from '../ledger/pg-schema.js'
import { RedisCounters } from '../ledger/redis-counters.js'
import type { Counters, Ledger } from '../ledger/types.js'
import { UsageError } from './handle-error.js'

/**
 * Where the storage engines are chosen: every command that needs the ledger or the
 * counters gets them here, by the location it was given, and sees only their interfaces.
 * A postgres:// (or postgresql://) URL is a PostgreSQL database; anything else is a
 * folder of the embedded LMDB engine.
 */

/** The ledger a `--ledger` location names. */
export async function openLedger(location: string): Promise<Ledger> {
  return isPostgres(location) ? PgLedger.open(location) : LmdbLedger.open(location)
}

/**
 * The counters of a deployment: in Redis when `countersUrl` names one
 * (`redis://HOST:PORT[/DB][?prefix=PREFIX]`), shared by every machine; else those of the
 * ledger's engine, at its location.
 */
export async function openCounters(ledgerLocation: string, countersUrl?: string): Promise<Counters> {
  if (countersUrl === undefined || countersUrl === '') return isPostgres(ledgerLocation) ? PgCounters.open(ledgerLocation) : LmdbCounters.open(ledgerLocation)
  if (!URL.canParse(countersUrl) || !/^rediss?:$/.test(new URL(countersUrl).protocol)) {
    throw new UsageError('--counters takes a URL such as redis://HOST:PORT[/DB][?prefix=PREFIX]')
  }
  return RedisCounters.open(countersUrl)
}

/** Brings the ledger at `location` to the schema of this code: a PostgreSQL database is migrated; an LMDB folder upgrades itself when opened. */
export async function migrateLedger(location: string): Promise<Migrated | 'lmdb'> {
  return isPostgres(location) ? migrate(location) : 'lmdb'
}

/** Whether `location` is a PostgreSQL URL; one that cannot be parsed is refused without being repeated, since it may hold a password. */
function isPostgres(location: string): boolean {
  if (!isPostgresUrl(location)) return false
  if (!URL.canParse(location)) throw new UsageError('--ledger takes a folder or a URL such as postgres://USER:PASSWORD@HOST:5432/DATABASE; the URL given cannot be parsed')
  return true
}
