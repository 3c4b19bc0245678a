import { isKeyShaped } from '../ledger/keys.js'
import type { Account, Ledger } from '../ledger/types.js'
import { ApiError } from '../query/api-error.js'
import type { Refusals } from './refusals.js'

/**
 * The account an X-API-Key header names: 401 UNAUTHORIZED when it is empty, malformed
 * or unknown, 401 ACCOUNT_DISABLED for a disabled account; undefined without the header.
 */
export async function authenticate(
  ledger: Ledger,
  header: string | string[] | undefined,
  refusals: Refusals,
): Promise<Account | undefined> {
  if (header === undefined) return undefined
  const key = (Array.isArray(header) ? header.join(',') : header).trim()
  const account = isKeyShaped(key) ? await ledger.authenticate(key) : undefined
  if (account === undefined)
    throw new ApiError('UNAUTHORIZED', 'The X-API-Key is empty or unknown. Omit the header for the keyless demo tier.')
  if (account.status !== 'active') throw refusals.accountDisabled()
  return account
}
