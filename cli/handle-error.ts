import { BuildError } from '../build/build-error.js'
import { LedgerError } from '../ledger/ledger-error.js'
import { ApiError } from '../query/api-error.js'

/** A mistake in how a command was called; its message is all the operator needs. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/**
 * Every command's failures end here, and only here is the process exited: an expected
 * failure prints its message, an unexpected one its stack (it is a bug to report).
 */
export function handleError(error: unknown): never {
  if (error instanceof ApiError) {
    process.stdout.write(`${JSON.stringify({ status: 'error', error: error.toJSON() }, null, 2)}\n`)
  } else if (error instanceof BuildError || error instanceof UsageError || error instanceof LedgerError) {
    process.stderr.write(`carmarket: ${error.message}\n`)
  } else {
    process.stderr.write(`carmarket: unexpected error\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  }
  process.exit(1)
}
