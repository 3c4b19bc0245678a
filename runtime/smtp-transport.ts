import { createTransport } from 'nodemailer'
import type { QueuedMail } from '../ledger/types.js'
import { messageOf } from '../format/message-of.js'
import { mailHtml } from './mail-html.js'

/** What one attempt to hand a message to the relay came to. */
export type Delivery =
  { readonly sent: true } | { readonly sent: false; readonly permanent: boolean; readonly reason: string }

/** Bounds of one attempt, so that a relay that hangs holds a message for less than its lease. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }

/**
 * Messages handed to an SMTP relay (`smtp://` or `smtps://` with user and password in
 * the URL) by nodemailer, each with a text and an HTML part, the service's From, a
 * Message-ID made from the queue's id (the same at every attempt, so a message handed
 * over twice reads as one) and the Date it was queued. Nothing of a message is logged:
 * keys travel in them.
 */
export class SmtpTransport {
  private readonly transport: ReturnType<typeof createTransport>
  /** The domain of the Message-ID: the From address's. */
  private readonly domain: string

  constructor(
    url: string,
    /** The From header, `name <address>` or an address. */
    private readonly from: string,
  ) {
    this.transport = createTransport({ url, ...TIMEOUTS })
    this.domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost'
  }

  async deliver(mail: QueuedMail): Promise<Delivery> {
    try {
      await this.transport.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mailHtml(mail.subject, mail.text),
        messageId: `<${mail.id}@${this.domain}>`,
        date: new Date(mail.queued),
      })
      return { sent: true }
    } catch (error) {
      return { sent: false, permanent: refusedForGood(error), reason: reasonOf(error) }
    }
  }

  close(): void {
    this.transport.close()
  }
}

/**
 * Whether the relay refused this message for good (a 5xx reply to its recipient or its
 * content): another attempt would get the same. A 5xx to the login or the connection
 * is the relay's configuration, mended by its operator: such messages wait.
 */
function refusedForGood(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const { code, responseCode } = error as { code?: unknown; responseCode?: unknown }
  return (code === 'EENVELOPE' || code === 'EMESSAGE') && typeof responseCode === 'number' && responseCode >= 500
}

/** What the relay or the network said, in one line of bounded length. */
function reasonOf(error: unknown): string {
  return messageOf(error).replace(/\s+/g, ' ').slice(0, 300)
}
