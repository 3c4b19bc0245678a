import { count } from '../format/amounts.js'
import { OPERATION_SPECS } from '../query/operations.js'
import type { Mail } from '../ledger/types.js'
import { EXAMPLE_VEHICLE } from './example-calls.js'
import { shellWord } from './shell-word.js'

/** Why a key is mailed: a new account with its free credits, or a key that replaces the account's previous one. */
export type KeyOccasion =
  | { readonly account: 'new'; readonly credits: number }
  | { readonly account: 'bought'; readonly credits: number }
  | { readonly account: 'existing'; readonly balance: number }

/** What a key's message says of its account. */
function accountLine(occasion: KeyOccasion): string {
  switch (occasion.account) {
    case 'new':
      return `Your account starts with ${count(occasion.credits)} free credits.`
    case 'bought':
      return `Thank you for your purchase: your account starts with the ${count(occasion.credits)} credits you bought.`
    case 'existing':
      return `It replaces your previous key, which no longer works; your balance of ${count(occasion.balance)} credits is unchanged.`
  }
}

/**
 * The message that delivers a key: the key, how to send it, a first call to paste
 * into a terminal (against the address callers reach the service at, `publicUrl`,
 * without a trailing slash) and where the reference is.
 */
export function keyMail(to: string, key: string, occasion: KeyOccasion, publicUrl: string): Mail {
  const { make, model, year } = EXAMPLE_VEHICLE
  const query = new URLSearchParams({ make, model, year: String(year) })
  // Keys are [A-Za-z0-9_-]: nothing in one needs quoting, even within double quotes.
  const call = `curl -H "X-API-Key: ${key}" ${shellWord(`${publicUrl}/v1/market/valuation?${query}`)}`
  return {
    kind: 'key',
    to,
    subject: occasion.account === 'existing' ? 'Your new carmarket API key' : 'Your carmarket API key',
    text: [
      `Your API key is ${key}`,
      '',
      `Send it in the X-API-Key header. ${accountLine(occasion)}`,
      'The key is shown only in this message: keep it safe.',
      '',
      `Your first call, the prices of a ${year} ${make} ${model} (${OPERATION_SPECS.valuation.credits} credits):`,
      '',
      `  ${call}`,
      '',
      `Every operation, its parameters and its errors: ${publicUrl}/docs`,
      `The OpenAPI document: ${publicUrl}/v1/openapi.json`,
      '',
    ].join('\n'),
  }
}
