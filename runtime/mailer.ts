import { randomBytes } from 'node:crypto'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/** How the service sends e-mail; chosen by configuration. */
export interface Mailer {
  send(mail: Mail): Promise<void>
}

/**
 * The embedded default transport: each message becomes one JSON file in an outbox
 * folder ({to, subject, text, date}), written whole (a temporary name, then a rename),
 * for an operator's relay, or a test, to pick up.
 */
export class OutboxMailer implements Mailer {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true })
  }

  async send(mail: Mail): Promise<void> {
    const date = new Date().toISOString()
    const name = `${date.replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`
    const temporary = join(this.dir, `.${name}`)
    writeFileSync(temporary, `${JSON.stringify({ ...mail, date }, null, 2)}\n`)
    renameSync(temporary, join(this.dir, name))
  }
}
