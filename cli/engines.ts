import { LmdbCounters } from '../ledger/lmdb-counters.js'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { RedisCounters } from '../ledger/redis-counters.js'
import type { Counters, Ledger } from '../ledger/types.js'
import { UsageError } from './handle-error.js'

/**
 * Where the storage engines are chosen: every command that needs the ledger or the
 * counters gets them here, by the location it was given, and sees only their interfaces.
 * A folder is the embedded LMDB engine.
 */

/** The ledger a `--ledger` location names. */
export function openLedger(location: string): Ledger {
  return LmdbLedger.open(location)
}

/**
 * The counters of a deployment: in Redis when `countersUrl` names one
 * (`redis://HOST:PORT[/DB][?prefix=PREFIX]`), shared by every machine; else those of the
 * ledger's engine, at its location.
 */
export function openCounters(ledgerLocation: string, countersUrl?: string): Counters {
  if (countersUrl === undefined || countersUrl === '') return LmdbCounters.open(ledgerLocation)
  if (!URL.canParse(countersUrl) || !/^rediss?:$/.test(new URL(countersUrl).protocol)) {
    throw new UsageError(`--counters takes a redis://HOST:PORT[/DB][?prefix=PREFIX] URL, not ${countersUrl}`)
  }
  return RedisCounters.open(countersUrl)
}
