import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { privateDir } from '../ledger/private-files.js'
import { messageOf } from '../format/message-of.js'

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/** How the service sends e-mail; chosen by configuration. */
export interface Mailer {
  /** Hands a message over for delivery; rejects with MailUnavailable when it could not be, leaving nothing behind. */
  send(mail: Mail): Promise<void>
}

/** A message that could not be handed over (a full disk, a relay that is down): nothing of it was sent. */
export class MailUnavailable extends Error {
  override name = 'MailUnavailable'
}

/**
 * The embedded default transport: each message becomes one JSON file in an outbox
 * folder ({to, subject, text, date}), written whole and synced under a temporary name,
 * then renamed, for an operator's relay, or a test, to pick up. Messages hold codes and
 * keys, so the folder is 0700 and each file 0600. A message that cannot be written
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
