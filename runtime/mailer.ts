import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { LedgerError } from '../ledger/ledger-error.js'
import { serviceUnavailable } from '../query/api-error.js'
import { privateDir } from '../ledger/private-files.js'
import type { Mail, MailQueue } from '../ledger/types.js'
import { messageOf } from '../format/message-of.js'

/** How the service sends e-mail; chosen by configuration. */
export interface Mailer {
  /**
   * Hands a message over for delivery, durably: once this resolves, the message is on its way whatever happens to the
   * process. `expires` (ms since the epoch) is when it is of no more use (a code's end), if it has one. Rejects with
   * MailUnavailable when it could not be handed over, leaving nothing behind.
   */
  send(mail: Mail, expires?: number): Promise<void>
}

/** A message that could not be handed over (a full disk, a ledger that is down): nothing of it was sent. */
export class MailUnavailable extends Error {
  override name = 'MailUnavailable'
}

/** Seconds after which a request whose e-mail could not be handed over is worth trying again. */
const MAIL_RETRY_SECONDS = 60

/**
 * Hands `mail` over (of no use after `expires`, if given) for a request that waits on it:
 * a 503 with `failure` and Retry-After when it cannot be.
 */
export async function sendOrRefuse(mailer: Mailer, mail: Mail, failure: string, expires?: number): Promise<void> {
  try {
    await mailer.send(mail, expires)
  } catch (error) {
    if (error instanceof MailUnavailable) throw serviceUnavailable(failure, MAIL_RETRY_SECONDS)
    throw error
  }
}

/**
 * The embedded default transport: each message becomes one JSON file in an outbox
 * folder ({kind, to, subject, text, date}), written whole and synced under a temporary
 * name, then renamed, for an operator's relay, or a test, to pick up. Messages hold codes
 * and keys, so the folder is 0700 and each file 0600. A message that cannot be written
 * leaves no file behind.
 */
export class OutboxMailer implements Mailer {
  constructor(private readonly dir: string) {
    privateDir(dir)
  }

  async send(mail: Mail): Promise<void> {
    const date = new Date().toISOString()
    const name = `${date.replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`
    const temporary = join(this.dir, `.${name}`)
    try {
      const fd = openSync(temporary, 'wx', 0o600)
      try {
        writeSync(fd, `${JSON.stringify({ ...mail, date }, null, 2)}\n`)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(temporary, join(this.dir, name))
    } catch (error) {
      rmSync(temporary, { force: true })
      throw new MailUnavailable(`the outbox ${this.dir} cannot be written: ${messageOf(error)}`)
    }
  }
}

/**
 * Mail for a relay: each message is queued in the ledger (every runtime of a deployment
 * shares the queue) before the request that wrote it is answered, and sent by a
 * MailDelivery, with retries, whether the relay is up or not at that moment. A message is
 * given up `giveUpAfterMs` after it was queued, or once it expires, if sooner.
 */
export class QueuedMailer implements Mailer {
  constructor(
    private readonly queue: MailQueue,
    private readonly giveUpAfterMs: number,
    /** Told that a message was queued: the sender of this process looks at once rather than at its next round. */
    private readonly queued: () => void,
  ) {}

  async send(mail: Mail, expires = Infinity): Promise<void> {
    try {
      await this.queue.enqueue(mail, Math.min(Date.now() + this.giveUpAfterMs, expires))
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'unavailable')
        throw new MailUnavailable(`the mail queue cannot be written: ${error.message}`)
      throw error
    }
    this.queued()
  }
}
