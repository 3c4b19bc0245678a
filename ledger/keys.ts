import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** Keys read `cm_` + 43 base64url characters: 256 random bits behind a prefix people recognise. */
const KEY_PREFIX = 'cm_'
const KEY = /^cm_[A-Za-z0-9_-]{43}$/

export function newKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url')
}

/** What is stored of a key: its SHA-256, hex. */
export function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

/** The part of a key shown in the account's details, to tell keys apart. */
export function keyPrefix(key: string): string {
  return key.slice(0, 10)
}

/** Whether a header value can be a key at all (anything else is refused without a look-up). */
export function isKeyShaped(value: string): boolean {
  return KEY.test(value)
}

/** Compares two hashes in constant time, so the comparison reveals nothing by its duration. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && timingSafeEqual(x, y)
}
