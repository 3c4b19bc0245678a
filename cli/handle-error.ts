import { BuildError } from '../build/build-error.js'
import { LedgerError } from '../ledger/ledger-error.js'
import { ApiError } from '../query/api-error.js'
import { terminalJson, visible } from './terminal-text.js'

/** A mistake in how a command was called; its message is all the operator needs. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/**
 * A failure as a line of machine-readable output gives it: the code of an expected one
 * (a UsageError's is `invalid_option`), `unexpected` for a bug.
 */
export function failureOf(error: unknown): { readonly code: string; readonly message: string } {
  const message = error instanceof Error ? error.message : String(error)
  if (error instanceof BuildError || error instanceof LedgerError || error instanceof ApiError) {
    return { code: error.code, message }
  }
  return { code: error instanceof UsageError ? 'invalid_option' : 'unexpected', message }
}

/**
 * Every command's failures end here, and only here is the process exited: an expected
 * failure prints its message, an unexpected one its stack (it is a bug to report).
 * Messages may quote what the operator or a file gave, so they are made visible.
 */
export function handleError(error: unknown): never {
  if (error instanceof ApiError) {
    process.stdout.write(`${terminalJson({ status: 'error', error: error.toJSON() })}\n`)
  } else if (error instanceof BuildError || error instanceof UsageError || error instanceof LedgerError) {
    process.stderr.write(`carmarket: ${visible(error.message)}\n`)
  } else {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error)
    process.stderr.write(`carmarket: unexpected error\n${detail.split('\n').map(visible).join('\n')}\n`)
  }
  process.exit(1)
}
