import { shellWord } from '../runtime/shell-word.js'
import type { ApiView, OperationView } from './api-view.js'

/**
 * A curl command for an operation, with its required parameters set to the document's
 * examples. `withKey` adds the key header (read from $CARMARKET_KEY) where the
 * operation takes one; without it a market call is a keyless demo call.
 */
export function curlExample(api: ApiView, operation: OperationView, withKey: boolean): string {
  const query = operation.parameters
    .flatMap((p) => (p.location === 'query' && p.required && p.example !== undefined ? [`${p.name}=${encodeURIComponent(p.example)}`] : []))
    .join('&')
  const words = ['curl']
  if (operation.method !== 'GET') words.push(`-X ${operation.method}`)
  if (withKey && operation.key !== 'none') words.push(`-H "${api.keyHeader}: $CARMARKET_KEY"`)
  if (operation.bodyExample !== undefined) {
    words.push(`-H 'Content-Type: application/json'`, `-d ${shellWord(JSON.stringify(operation.bodyExample))}`)
  }
  words.push(shellWord(`${api.server}${operation.path}${query === '' ? '' : `?${query}`}`))
  return words.join(' \\\n  ')
}
