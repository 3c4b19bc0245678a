/** The spec's error codes (interface spec, "Errors") and the HTTP status of each. */
export const ERROR_STATUS = {
  INVALID_PARAMETER: 400,
  UNAUTHORIZED: 401,
  ACCOUNT_DISABLED: 401,
  INSUFFICIENT_CREDITS: 402,
  INSUFFICIENT_DATA: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_KEY_IN_FLIGHT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  DEMO_LIMIT_REACHED: 429,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  NOT_READY: 503,
  SERVICE_UNAVAILABLE: 503,
} as const
export type ErrorCode = keyof typeof ERROR_STATUS

/**
 * A failure a caller is told about: created where the problem is found, rendered in
 * one place. `message` is safe to show (it never holds a stack); `extra` adds fields
 * beside code and message, such as `parameter` or `suggestions`.
 */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Readonly<Record<string, unknown>> = {},
    /** HTTP headers the answer carries, such as Retry-After or Allow. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message)
    this.status = ERROR_STATUS[code]
  }

  /** The `error` object of the envelope. */
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.extra }
  }
}

/** A missing or unacceptable request parameter, named in the error. */
export function invalidParameter(parameter: string, message: string): ApiError {
  return new ApiError('INVALID_PARAMETER', message, { parameter })
}

/** A parameter the operation does not take, named with those it does. */
export function unknownParameter(name: string, known: Iterable<string>): ApiError {
  const shown = name.slice(0, 50)
  const list = [...known]
  const takes = list.length === 0 ? 'this takes no parameters' : `this takes ${list.join(', ')}`
  return invalidParameter(shown, `unknown parameter ${JSON.stringify(shown)}; ${takes}`)
}

/** No snapshot is served yet. */
export function notReady(): ApiError {
  return new ApiError('NOT_READY', 'No snapshot is open yet; build one with carmarket build.')
}

/** Storage or mail cannot be written now: nothing was charged or counted; retry after `seconds`. */
export function serviceUnavailable(message: string, seconds: number): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', message, {}, { 'Retry-After': String(seconds) })
}
