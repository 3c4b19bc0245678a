import { createHash, randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type Account, type Counters, type Ledger } from '../ledger/types.js'
import { invalidParameter } from '../query/api-error.js'
import { checkFields, emailOf } from './body-fields.js'
import { countWithin } from './count-within.js'
import type { Clock } from './limits.js'
import type { Links } from './links.js'
import { sendOrRefuse, type Mailer } from './mailer.js'
import { CODE_TTL_MS, MAX_ATTEMPTS, codeHash, codeOf, newCode, refuseUnlessRight } from './one-time-codes.js'
import { CODES_PER_EMAIL, CODES_PER_IP } from './registration.js'

/** How long a session of the account page lasts. */
export const SESSION_MS = 12 * 3_600_000
/** The cookie that carries a session's token: HttpOnly, so no script reads it, and SameSite=Strict. */
export const SESSION_COOKIE = 'carmarket_session'

/**
 * Signing in to the account page with an e-mail code: `request` e-mails a 6-digit code
 * (to an address with an account; an address without one is told so, in a message
 * without a code, and the answer is the same either way), `open` exchanges it for a
 * session of SESSION_MS, whose token goes to the browser in a cookie and is kept only as
 * its hash. The account page reads the account and its usage, and replaces its key, with
 * the session; a key is never shown there.
 */
export class SignIn {
  constructor(
    private readonly ledger: Ledger,
    private readonly mailer: Mailer,
    private readonly counters: Counters,
    private readonly clock: Clock,
    private readonly links: Links,
  ) {}

  async request(body: Record<string, unknown>, ip: string): Promise<object> {
    checkFields(body, ['email'])
    const { address, mailbox } = emailOf(body)
    const now = this.clock()
    await countWithin(
      this.counters,
      'signup-ip',
      now,
      ip,
      CODES_PER_IP,
      `Too many codes for this client address; try later.`,
    )
    await countWithin(
      this.counters,
      'signup-email',
      now,
      mailbox,
      CODES_PER_EMAIL,
      `Too many codes for ${address}; try later.`,
    )
    const account = await this.ledger.accountByEmail(address)
    const code = newCode()
    await this.ledger.putCode(codeKey(mailbox), codeHash(mailbox, code, SIGN_IN), now + CODE_TTL_MS)
    await sendOrRefuse(
      this.mailer,
      account === undefined
        ? {
            kind: 'notice',
            to: address,
            subject: 'Signing in to carmarket',
            text: `Someone asked to sign in to carmarket with this address, which has no account. To open one with free credits: ${this.links.registerUrl}`,
          }
        : {
            kind: 'code',
            to: account.email,
            subject: `Your carmarket sign-in code: ${code}`,
            text: `Your one-time code is ${code}. Enter it to sign in to your carmarket account; it is valid for 10 minutes.\n\nIf you did not ask to sign in, ignore this message: nobody can sign in without it.`,
          },
      'The e-mail with your code could not be sent; please try again in a minute.',
      now + CODE_TTL_MS,
    )
    return { email: address, code_sent: true, expires_in: CODE_TTL_MS / 1000 }
  }

  /** A session for the account of a right code: its token (for the cookie) and when it ends. */
  async open(body: Record<string, unknown>): Promise<{ readonly token: string; readonly answer: object }> {
    checkFields(body, ['email', 'code'])
    const { address, mailbox } = emailOf(body)
    const code = codeOf(body)
    const now = this.clock()
    refuseUnlessRight(
      await this.ledger.checkCode(codeKey(mailbox), codeHash(mailbox, code, SIGN_IN), now, MAX_ATTEMPTS),
    )
    // A right code for an address without an account is one it was never sent (such an address is told so, codeless).
    const account = await this.ledger.accountByEmail(address)
    if (account === undefined)
      throw invalidParameter('code', 'There is no valid code for this address: ask for a new one.')
    const token = randomBytes(32).toString('base64url')
    const expires = now + SESSION_MS
    await this.ledger.sessions.open(tokenHash(token), account.id, expires)
    return { token, answer: { email: account.email, signed_in: true, expires_at: new Date(expires).toISOString() } }
  }

  /** The account of a session token from a cookie, if it is a session still open. */
  account(token: string): Promise<Account | undefined> {
    return this.ledger.sessions.account(tokenHash(token), this.clock())
  }

  close(token: string): Promise<void> {
    return this.ledger.sessions.close(tokenHash(token))
  }
}

/** The session token a request's Cookie header carries, if any. */
export function sessionToken(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name === SESSION_COOKIE) {
      const token = value.join('=')
      return /^[A-Za-z0-9_-]{43}$/.test(token) ? token : undefined
    }
  }
  return undefined
}

/** The Set-Cookie of a session (`token`), or of its end (none): for the site's path, Secure over https. */
export function sessionCookie(links: Links, token: string | undefined): string {
  const secure = links.publicUrl.startsWith('https:') ? '; Secure' : ''
  const lifetime = token === undefined ? 'Max-Age=0' : `Max-Age=${SESSION_MS / 1000}`
  return `${SESSION_COOKIE}=${token ?? ''}; Path=${links.basePath || '/'}; ${lifetime}; HttpOnly; SameSite=Strict${secure}`
}

/** What sign-in codes are for: they are kept apart from registration codes of the same mailbox, and hashed apart. */
const SIGN_IN = 'sign-in'

function codeKey(mailbox: string): string {
  return `${SIGN_IN}:${mailbox}`
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
