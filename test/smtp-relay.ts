import type { AddressInfo } from 'node:net'
import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import type { Test } from 'tap'

/** A message the relay took: its envelope and the message as mailparser reads it (RFC 5322, MIME). */
export interface Received {
  readonly envelopeTo: readonly string[]
  readonly raw: string
  readonly parsed: ParsedMail
}

/**
 * A real SMTP server on 127.0.0.1 (smtp-server, the server half of nodemailer's project)
 * that keeps what it is sent. It can be stopped and started again on the same port, and
 * made to refuse recipients: with a 4xx (try later) or a 5xx (never).
 */
export class SmtpRelay {
  readonly received: Received[] = []
  /** Recipients refused, and the reply code they are refused with. */
  readonly refuse = new Map<string, number>()
  private server: SMTPServer | undefined
  port = 0

  static async start(t: Test): Promise<SmtpRelay> {
    const relay = new SmtpRelay()
    await relay.listen()
    t.teardown(() => relay.stop())
    return relay
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`
  }

  /** Listens (again) on its port: the first time on any free one. */
  async listen(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        const code = this.refuse.get(address.address)
        if (code === undefined) return callback()
        callback(Object.assign(new Error(`refused by the test relay`), { responseCode: code }))
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8')
          simpleParser(raw).then(
            (parsed) => {
              this.received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw, parsed })
              callback()
            },
            (error: Error) => callback(error),
          )
        })
      },
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.port, '127.0.0.1', () => resolve())
    })
    this.port = (server.server.address() as AddressInfo).port
    this.server = server
  }

  /** Stops listening; the port stays its own for listen() to take again. */
  async stop(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  /** The messages to `to`, once `count` of them came (or after `ms`, as they are, for the test to tell). */
  async messagesTo(to: string, count = 1, ms = 15_000): Promise<Received[]> {
    const deadline = Date.now() + ms
    for (;;) {
      const found = this.received.filter((m) => m.envelopeTo.includes(to))
      if (found.length >= count || Date.now() >= deadline) return found
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}
