import { messageOf } from '../format/message-of.js'
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
  const message = messageOf(error)
  if (error instanceof BuildError || error instanceof LedgerError || error instanceof ApiError) {
    return { code: error.code, message }
  }
  return { code: error instanceof UsageError ? 'invalid_option' : 'unexpected', message }
}

/**
 * What the machine does not give a command (a free port, a folder it may write): the
 * operator's to fix, and its message says how.
 */
export class EnvironmentError extends Error {
  override name = 'EnvironmentError'
}

/** The exit code of a command called wrongly (as shells and most tools use it); any other failure exits 1. */
export const USAGE_EXIT = 2

/** An error the operating system (or LMDB, by its errno) raised: about the machine, not a bug. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as { code?: unknown } | null)?.code
  return error instanceof Error && ((typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) || typeof code === 'number')
}

/** A failure as it is told: its text, whether on stdout (an answer) or stderr, and the exit code. */
export interface Told {
  readonly text: string
  readonly stdout: boolean
  readonly code: number
}

/**
 * An expected failure is its message on one line, an unexpected one its stack (it is a
 * bug to report). Messages may quote what the operator or a file gave, so they are made
 * visible.
 */
export function told(error: unknown): Told {
  if (error instanceof ApiError)
    return { text: `${terminalJson({ status: 'error', error: error.toJSON() })}\n`, stdout: true, code: 1 }
  const code = error instanceof UsageError ? USAGE_EXIT : 1
  if (
    error instanceof BuildError ||
    error instanceof UsageError ||
    error instanceof LedgerError ||
    error instanceof EnvironmentError
  ) {
    return { text: `carmarket: ${visible(error.message)}\n`, stdout: false, code }
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error)
  return { text: `carmarket: unexpected error\n${detail.split('\n').map(visible).join('\n')}\n`, stdout: false, code }
}

/** Every command's failures end here, and only here is the process exited. */
export function handleError(error: unknown): never {
  const { text, stdout, code } = told(error)
  const stream = stdout ? process.stdout : process.stderr
  stream.write(text)
  process.exit(code)
}
