import { createHash } from 'node:crypto'

/** A strong ETag for a body that is built once and served many times. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}
