import { secondsLeft, windowOf, type CounterKind, type Counters } from '../ledger/types.js'
import { ApiError } from '../query/api-error.js'

/**
 * Counts one for `who` in the window of `kind` that holds `now`; past `limit`, refused
 * with RATE_LIMIT_EXCEEDED, `message`, and the seconds to the window's end in Retry-After.
 */
export async function countWithin(
  counters: Counters,
  kind: CounterKind,
  now: number,
  who: string,
  limit: number,
  message: string,
): Promise<void> {
  if ((await counters.countUpTo(kind, windowOf(kind, now), who, limit)) === 'limit') throw tooMany(kind, now, message)
}

/** RATE_LIMIT_EXCEEDED for a limit of `kind`'s windows, with the seconds to the end of the one holding `now`. */
export function tooMany(kind: CounterKind, now: number, message: string): ApiError {
  return new ApiError('RATE_LIMIT_EXCEEDED', message, {}, { 'Retry-After': String(secondsLeft(kind, now)) })
}
