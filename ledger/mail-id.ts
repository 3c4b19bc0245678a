import { randomBytes } from 'node:crypto'

/**
 * A new message's id: the time it was queued, so that ids sort as messages were queued, and 96 random bits, so that
 * runtimes queueing at the same millisecond never meet. Only letters, digits and `_`: it makes the local part of the
 * message's Message-ID.
 */
export function mailId(now: number): string {
  return `m_${now.toString(36).padStart(9, '0')}_${randomBytes(12).toString('hex')}`
}
