import { hash } from 'node:crypto'

/**
 * A request's parameters in one spelling whatever their order and percent-encoding:
 * names sorted (code-point order), each value percent-encoded the one way
 * encodeURIComponent does. Two query strings that parseQuery reads as the same
 * parameters have the same canonical form; the values are compared as given (VW and
 * Volkswagen are two requests).
 */
export function canonicalQuery(params: ReadonlyMap<string, string>): string {
  const names = [...params.keys()].sort()
  let text = ''
  for (const name of names) text += `${text === '' ? '' : '&'}${name}=${encodeURIComponent(params.get(name)!)}`
  return text
}

/**
 * A JSON value in one spelling whatever the order of its objects' members and its
 * whitespace: members sorted by name (code-point order), arrays in their order, strings
 * and numbers as JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`)
    return `{${members.join(',')}}`
  }
  return JSON.stringify(value)
}

/** A short digest of text, for ETags and request fingerprints: 22 base64url characters (132 bits of SHA-256). */
export function digest(text: string): string {
  return hash('sha256', text, 'base64url').slice(0, 22)
}
