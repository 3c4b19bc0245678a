import { createHash, randomInt } from 'node:crypto'
import type { CodeCheck } from '../ledger/types.js'
import { invalidParameter } from '../query/api-error.js'

/** How long a code e-mailed to register or to sign in is good for. */
export const CODE_TTL_MS = 10 * 60_000
/** Wrong tries that use a code up. */
export const MAX_ATTEMPTS = 5

/** A new 6-digit code. */
export function newCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0')
}

/** The `code` field of a body: the 6 digits of an e-mail, else 400 naming `code`. */
export function codeOf(body: Record<string, unknown>): string {
  const code = body.code
  if (typeof code !== 'string' || !/^[0-9]{6}$/.test(code))
    throw invalidParameter('code', 'code must be the 6 digits sent by e-mail')
  return code
}

/**
 * What a code is kept as: its hash with the mailbox and what it is for (registration's
 * codes have no `purpose`), so that a code of one use never passes for another.
 */
export function codeHash(mailbox: string, code: string, purpose?: string): string {
  const prefix = purpose === undefined ? '' : `${purpose}\u0000`
  return createHash('sha256').update(`${prefix}${mailbox}\u0000${code}`).digest('hex')
}

/** The refusal of a code that is not the right one: wrong, used up by wrong tries, or none valid (400 naming `code`). */
export function refuseUnlessRight(check: CodeCheck): void {
  if (check === 'wrong') throw invalidParameter('code', 'The code is wrong.')
  if (check === 'exhausted') throw invalidParameter('code', 'Too many wrong codes: ask for a new one.')
  if (check !== 'ok') throw invalidParameter('code', 'There is no valid code for this address: ask for a new one.')
}
