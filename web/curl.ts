import { shellWord } from '../runtime/shell-word.js'
import type { ApiView, OperationView } from './api-view.js'

/** The shell variable the curl examples read the key from. */
export const KEY_VARIABLE = 'KEY'

/** $KEY, or a stop with a message when KEY is unset or empty. */
const KEY_OR_STOP = `\${${KEY_VARIABLE}:?set ${KEY_VARIABLE} to your key}`

/**
 * A curl command for an operation with `query` (by default its required parameters at
 * the document's examples). `withKey` adds the key header where the operation takes one,
 * read from $KEY in a form that stops the shell when KEY is unset or empty: a call
 * without the key would otherwise be sent keyless, and answered by the demo tier or
 * refused, rather than fail where the mistake is.
 */
export function curlExample(
  api: ApiView,
  operation: OperationView,
  withKey: boolean,
  query = requiredExamples(operation),
): string {
  const words = ['curl']
  if (operation.method !== 'GET') words.push(`-X ${operation.method}`)
  if (withKey && operation.key !== 'none') words.push(`-H "${api.keyHeader}: ${KEY_OR_STOP}"`)
  // An image is saved under its own name (valuation.svg), not written to the terminal.
  if (operation.image !== undefined) words.push(`-o ${operation.path.slice(operation.path.lastIndexOf('/') + 1)}`)
  if (operation.bodyExample !== undefined) {
    words.push(`-H 'Content-Type: application/json'`, `-d ${shellWord(JSON.stringify(operation.bodyExample))}`)
  }
  words.push(shellWord(`${api.server}${operation.path}${query === '' ? '' : `?${query}`}`))
  return words.join(' \\\n  ')
}

function requiredExamples(operation: OperationView): string {
  const shown = operation.parameters.filter((p) => p.location === 'query' && p.required && p.example !== undefined)
  return shown.map((p) => `${p.name}=${encodeURIComponent(p.example!)}`).join('&')
}
