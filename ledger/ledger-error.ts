/** A ledger operation that cannot be done; `code` says which. */
export class LedgerError extends Error {
  override name = 'LedgerError'
  constructor(
    readonly code:
      | 'email_taken'
      | 'unknown_account'
      | 'invalid_email'
      | 'invalid_credits'
      | 'backup_exists'
      | 'not_supported'
      | 'unavailable'
      | 'in_doubt'
      | 'schema',
    message: string,
    /** `cause`: the error it was made of (an engine's, for the engine to look into). */
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

/** A write that did not commit (a full disk, a failing device): nothing of it happened, and it may be tried again. */
export function unavailable(what: string): LedgerError {
  return new LedgerError('unavailable', `${what} could not be written`)
}
