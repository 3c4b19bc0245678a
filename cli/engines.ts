import { LmdbCounters } from '../ledger/lmdb-counters.js'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import type { Counters, Ledger } from '../ledger/types.js'

/**
 * Where the storage engines are chosen: every command that needs the ledger or the
 * counters gets them here, by the location it was given, and sees only their interfaces.
 * A folder is the embedded LMDB engine.
 */

/** The ledger a `--ledger` location names. */
export function openLedger(location: string): Ledger {
  return LmdbLedger.open(location)
}

/** The counters of a deployment: those of the ledger's engine, at its location. */
export function openCounters(ledgerLocation: string): Counters {
  return LmdbCounters.open(ledgerLocation)
}
