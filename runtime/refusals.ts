import { ApiError } from '../query/api-error.js'
import type { Links } from './links.js'

/**
 * The refusals that tell a caller where to go next, in the message itself (for clients
 * that show only `error.message`) as well as in their own fields.
 */
export class Refusals {
  constructor(private readonly links: Links) {}

  /** INSUFFICIENT_CREDITS: a call of `credits` against `balance`; names the top-up URL. */
  insufficientCredits(credits: number, balance: number): ApiError {
    const { topUpUrl } = this.links
    return new ApiError(
      'INSUFFICIENT_CREDITS',
      `This call costs ${credits} credits; the balance is ${balance}. Buy credits at ${topUpUrl}`,
      { top_up_url: topUpUrl },
    )
  }

  /** ACCOUNT_DISABLED: names the support address. */
  accountDisabled(): ApiError {
    return new ApiError('ACCOUNT_DISABLED', `This account is disabled; write to ${this.links.support} about it.`)
  }
}
