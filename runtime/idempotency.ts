import { ApiError, invalidParameter } from '../query/api-error.js'
import { digest } from './canonical.js'

/** The header a caller names a call by, to retry it without being charged twice. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key'
/** What a key may be: 1 to 255 visible ASCII characters (no spaces, no control characters). */
const KEY = /^[\x21-\x7e]{1,255}$/
/** Seconds a caller whose key is held by a call in flight is told to wait: that call ends in milliseconds. */
const IN_FLIGHT_RETRY_SECONDS = 1

/**
 * The Idempotency-Key of a request, if it has one; one that is not 1 to 255 visible
 * ASCII characters (a header given twice arrives as two joined by ", ") is INVALID_PARAMETER.
 */
export function idempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (typeof header !== 'string' || !KEY.test(header))
    throw invalidParameter(
      IDEMPOTENCY_HEADER,
      `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters (a UUID is a good choice), given once.`,
    )
  return header
}

/** What a request is, to tell a retry from another request under the same key: its method, route and canonical query or body. */
export function fingerprint(method: string, path: string, canonical: string): string {
  return digest(`${method}\n${path}\n${canonical}`)
}

/** The refusal of a key that is held by a call in flight, or that came with another request. */
export function idempotencyRefusal(state: 'in_flight' | 'reused'): ApiError {
  return state === 'in_flight'
    ? new ApiError(
        'IDEMPOTENCY_KEY_IN_FLIGHT',
        `A call with this ${IDEMPOTENCY_HEADER} is still being answered; retry once it is, and its answer is given again without charge.`,
        {},
        { 'Retry-After': String(IN_FLIGHT_RETRY_SECONDS) },
      )
    : new ApiError(
        'IDEMPOTENCY_KEY_REUSED',
        `This ${IDEMPOTENCY_HEADER} was used with another request (method, path and parameters or body) in the last 24 hours; use a new key for a new request.`,
      )
}
