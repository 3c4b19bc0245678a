import { parseEmail } from '../ledger/mailbox.js'
import { invalidParameter } from '../query/api-error.js'

/**
 * A body must have each of `fields` and nothing else: a missing field is named as
 * required, along with the unknown ones the body has instead (`{"mail": ...}`); an
 * unknown field is named.
 */
export function checkFields(body: Record<string, unknown>, fields: readonly string[]): void {
  const unknown = Object.keys(body).filter((name) => !fields.includes(name))
  const shown = unknown.slice(0, 5).map((name) => JSON.stringify(name.slice(0, 50)))
  if (unknown.length > shown.length) shown.push(`${unknown.length - shown.length} more`)
  const takes = `this takes ${fields.join(' and ')}`
  const missing = fields.find((name) => !Object.hasOwn(body, name))
  if (missing !== undefined) {
    const instead = unknown.length === 0 ? '' : `; the body has ${shown.join(', ')} instead (${takes})`
    throw invalidParameter(missing, `${missing} is required${instead}`)
  }
  if (unknown.length > 0) {
    const fieldWord = unknown.length === 1 ? 'field' : 'fields'
    throw invalidParameter(unknown[0]!.slice(0, 50), `unknown ${fieldWord} ${shown.join(', ')}; ${takes}`)
  }
}

/** The `email` field of a body, checked (ledger/mailbox.ts): its delivery form and its mailbox. */
export function emailOf(body: Record<string, unknown>): { readonly address: string; readonly mailbox: string } {
  const parsed = parseEmail(body.email)
  if (!parsed.ok) throw invalidParameter('email', parsed.message)
  return parsed
}
