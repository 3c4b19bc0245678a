import { hash } from 'node:crypto'

/**
 * A request's parameters in one spelling whatever their order and percent-encoding:
 * names sorted (code-point order), each value after its length, so that no value can
 * pass for another's end. Two query strings that parseQuery reads as the same
 * parameters have the same canonical form; the values are compared as given (VW and
 * Volkswagen are two requests).
 */
export function canonicalQuery(params: ReadonlyMap<string, string>): string {
  const names = [...params.keys()].sort()
  let text = ''
  for (const name of names) {
    const value = params.get(name)!
    text += `${name}=${value.length}:${value}&`
  }
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

/** A digest of text, for request fingerprints: 22 base64url characters (132 bits of SHA-256). */
export function digest(text: string): string {
  return hash('sha256', text, 'base64url').slice(0, 22)
}

/**
 * A 64-bit hash of text, as 14 base36 characters: two 32-bit lanes of FNV-1a (each
 * with its own basis and prime), each finished by MurmurHash3's mixer. Not cryptographic,
 * and a tenth of a SHA-256's time: it names an answer for whoever keeps it (an ETag), so
 * the only one who could make two requests collide is the caller, against itself.
 */
export function quickHash(text: string): string {
  let a = 0x811c9dc5
  let b = 0x050c5d1f
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
  }
  return `${mix(a).toString(36).padStart(7, '0')}${mix(b).toString(36).padStart(7, '0')}`
}

/** MurmurHash3's 32-bit finalizer: every input bit moves about half the output bits. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}
