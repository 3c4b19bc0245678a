import { LmdbCounters } from '../ledger/lmdb-counters.js'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import type { Migrated } from '../ledger/pg-schema.js'
import type { Counters, Ledger } from '../ledger/types.js'
import { logEvent } from '../runtime/events.js'
import { EnvironmentError, UsageError, isSystemError } from './handle-error.js'

/**
 * Where the storage engines are chosen: every command that needs the ledger or the
 * counters gets them here, by the location it was given, and sees only their interfaces.
 * A postgres:// (or postgresql://) URL is a PostgreSQL database; anything else is a
 * folder of the embedded LMDB engine. The network engines and their clients are loaded
 * only when a URL asks for them: a one-machine service never loads them.
 */

const POSTGRES_URL = /^postgres(ql)?:\/\//i

/** The ledger a `--ledger` location names. */
export async function openLedger(location: string): Promise<Ledger> {
  if (!isPostgres(location)) return inFolder(location, () => LmdbLedger.open(location))
  const { PgLedger } = await import('../ledger/pg-ledger.js')
  return PgLedger.open(location, (doubt) =>
    logEvent('error', 'debits in doubt: answered in_doubt (503), their batch may have committed', {
      ...doubt,
      find: `SELECT * FROM carmarket_batch_outcome('${doubt.batch}')`,
    }),
  )
}

/**
 * The counters of a deployment: in Redis when `countersUrl` names one
 * (`redis://HOST:PORT[/DB][?prefix=PREFIX]`), shared by every machine; else those of the
 * ledger's engine, at its location.
 */
export async function openCounters(ledgerLocation: string, countersUrl?: string): Promise<Counters> {
  if (countersUrl === undefined || countersUrl === '') {
    if (!isPostgres(ledgerLocation)) return inFolder(ledgerLocation, () => LmdbCounters.open(ledgerLocation))
    const { PgCounters } = await import('../ledger/pg-counters.js')
    return PgCounters.open(ledgerLocation)
  }
  if (!URL.canParse(countersUrl) || !/^rediss?:$/.test(new URL(countersUrl).protocol)) {
    throw new UsageError('--counters takes a URL such as redis://HOST:PORT[/DB][?prefix=PREFIX]')
  }
  const { RedisCounters } = await import('../ledger/redis-counters.js')
  return RedisCounters.open(countersUrl)
}

/**
 * Brings the ledger at `location` to the schema of this code: a PostgreSQL database is migrated; an LMDB folder
 * upgrades itself when opened.
 */
export async function migrateLedger(location: string): Promise<Migrated | 'lmdb'> {
  if (!isPostgres(location)) return 'lmdb'
  const { migrate } = await import('../ledger/pg-schema.js')
  return migrate(location)
}

/**
 * An LMDB engine opened in the ledger folder `dir`: a folder that cannot be created or
 * opened (its permissions, a file in its way, a full disk) is told as such, not as a bug.
 */
function inFolder<T>(dir: string, open: () => T): T {
  try {
    return open()
  } catch (error) {
    if (!isSystemError(error)) throw error
    throw new EnvironmentError(
      `the ledger folder ${dir} cannot be opened (${error.message}); give --ledger (env CARMARKET_LEDGER) a folder this user can create and write`,
    )
  }
}

/**
 * Whether `location` is a PostgreSQL URL; one that cannot be parsed is refused without being repeated, since it may
 * hold a password.
 */
export function isPostgres(location: string): boolean {
  if (!POSTGRES_URL.test(location)) return false
  if (!URL.canParse(location))
    throw new UsageError(
      '--ledger takes a folder or a URL such as postgres://USER:PASSWORD@HOST:5432/DATABASE; the URL given cannot be parsed',
    )
  return true
}
