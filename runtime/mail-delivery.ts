import { randomUUID } from 'node:crypto'
import { LedgerError } from '../ledger/ledger-error.js'
import type { MailQueue, QueuedMail } from '../ledger/types.js'
import { logEvent } from './events.js'
import type { Delivery } from './smtp-transport.js'

/** How a MailDelivery paces its attempts. */
export interface DeliveryPace {
  /** The wait before a message's second attempt; each later one waits twice the one before, up to maxRetryMs. */
  readonly retryAfterMs: number
  readonly maxRetryMs: number
  /** How long a message is held by the sender that took it; past it (the sender died), another takes it. */
  readonly leaseMs: number
  /** How often the queue is looked at when nothing told of a new message (another runtime's, a retry come due). */
  readonly pollMs: number
}

/** Messages taken from the queue at a time. */
const BATCH = 10

/** What a MailDelivery has done since it started, for /metrics. */
export interface MailCounts {
  sent: number
  retried: number
  given_up: number
}

/**
 * Sends the mail queue's messages (MailQueue, kept with the ledger) through a relay: it
 * takes the messages that are due, a few at a time, under a lease that keeps every other
 * runtime's sender off them, and hands each to the relay. A message the relay took
 * leaves the queue; one it did not take (down, a 4xx, a time-out) is tried again later,
 * each wait twice the last, and is given up when the relay refused it for good (a 5xx to
 * its recipient) or its time to be given up has come: kept as failed, for `carmarket mail
 * list --failed`, told in the log and counted in /metrics.
 *
 * A message the relay took just before this process died, with its leaving the queue
 * not yet committed, is handed over again once its lease ends: at least once, never
 * lost, and the same Message-ID both times.
 */
export class MailDelivery {
  readonly counts: MailCounts = { sent: 0, retried: 0, given_up: 0 }
  /** The queue's depth as last seen; undefined before the first look. */
  depth: { readonly queued: number; readonly failed: number } | undefined
  /** Who holds the messages this sender took. */
  private readonly owner = `sender_${randomUUID()}`
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private closed = false
  /** Whether the latest look at the queue failed (told once, not at every poll). */
  private failing = false

  constructor(
    private readonly queue: MailQueue,
    private readonly relay: { deliver(mail: QueuedMail): Promise<Delivery>; close(): void },
    private readonly pace: DeliveryPace,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.poke(), this.pace.pollMs)
    this.timer.unref()
    this.poke()
  }

  /** Looks at the queue now (a message was queued), or as soon as the look under way ends. */
  poke(): void {
    if (this.closed) return
    if (this.running !== undefined) {
      this.again = true
      return
    }
    this.running = this.rounds().finally(() => (this.running = undefined))
  }

  /** Stops taking messages; the attempts under way end first. */
  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.timer)
    await this.running
    this.relay.close()
  }

  private async rounds(): Promise<void> {
    try {
      let taken: number
      do {
        this.again = false
        const claimed = await this.queue.claim(this.owner, this.pace.leaseMs, BATCH)
        await Promise.all(claimed.map((mail) => this.attempt(mail)))
        taken = claimed.length
        this.depth = await this.queue.depth()
      } while (!this.closed && (this.again || taken === BATCH))
      this.failing = false
    } catch (error) {
      // The messages wait in the ledger, and the next poll tries again: a ledger that cannot be read now is told once,
      // anything else (a bug) every time, and neither stops the runtime, which goes on serving.
      if (error instanceof LedgerError && error.code === 'unavailable') {
        if (!this.failing) logEvent('warn', 'the mail queue cannot be read now; mail waits', { reason: error.message })
        this.failing = true
      } else {
        logEvent('error', 'sending mail failed unexpectedly; mail waits', {
          error: String((error as Error)?.stack ?? error),
        })
      }
    }
  }

  private async attempt(mail: QueuedMail): Promise<void> {
    const result = await this.relay.deliver(mail)
    const fields = { mail_id: mail.id, kind: mail.kind, attempts: mail.attempts + 1 }
    if (result.sent) {
      await this.queue.sent(mail.id, this.owner)
      this.counts.sent++
      logEvent('info', 'mail sent', fields)
      return
    }
    const wait = Math.min(this.pace.retryAfterMs * 2 ** mail.attempts, this.pace.maxRetryMs)
    const giveUp = result.permanent || Date.now() + wait > mail.give_up_at
    await this.queue.failed(mail.id, this.owner, result.reason, giveUp ? undefined : wait)
    if (giveUp) {
      this.counts.given_up++
      const why = result.permanent ? 'the relay refused it for good' : 'its time ran out'
      logEvent('error', `mail given up: ${why}; carmarket mail list --failed shows it`, {
        ...fields,
        reason: result.reason,
      })
    } else {
      this.counts.retried++
      logEvent('warn', 'mail not sent; it is tried again later', {
        ...fields,
        retry_in_s: wait / 1000,
        reason: result.reason,
      })
    }
  }
}
