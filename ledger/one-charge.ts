import type { ChargeResult, ChargesResult } from './types.js'

/** Ledger.charge in terms of Ledger.chargeAll: the result of a request that charges one debit and nothing else. */
export function oneCharge(result: ChargesResult): ChargeResult {
  if (!result.ok) {
    // A charge without an Idempotency-Key is never replayed.
    if (result.reason === 'replayed' || result.reason === 'reused')
      throw new Error(`a plain charge was ${result.reason}`)
    return result
  }
  const [outcome] = result.outcomes
  if (outcome === undefined) throw new Error('a charge of one debit came back without its outcome')
  return outcome.charged
    ? { ok: true, balance: outcome.balance, entry: outcome.entry }
    : { ok: false, reason: 'insufficient_credits', balance: outcome.balance }
}
