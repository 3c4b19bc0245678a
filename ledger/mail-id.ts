import { randomBytes } from 'node:crypto'

/** The time of the latest id this process made: ids of one process never share one. */
let latest = 0

/**
 * A new message's id: the time it was queued (in ms, a millisecond on from the last when
 * messages come faster), so that ids sort as messages were queued, and 96 random bits, so
 * that runtimes queueing at the same millisecond never meet. Only letters, digits and
 * `_`: it makes the local part of the message's Message-ID.
 */
export function mailId(now: number): string {
  latest = Math.max(now, latest + 1)
  return `m_${latest.toString(36).padStart(9, '0')}_${randomBytes(12).toString('hex')}`
}
