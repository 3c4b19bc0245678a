import { createHash, randomInt } from 'node:crypto'
import { LedgerError } from '../ledger/ledger-error.js'
import { parseEmail } from '../ledger/mailbox.js'
import { secondsLeft, windowOf, type CounterKind, type Counters, type Ledger } from '../ledger/types.js'
import { ApiError, invalidParameter, serviceUnavailable } from '../query/api-error.js'
import { SIGNUP_CREDITS } from '../query/prices.js'
import type { Clock } from './limits.js'
import { keyMail } from './key-mail.js'
import type { Mail } from '../ledger/types.js'
import { MailUnavailable, type Mailer } from './mailer.js'

const CODE_TTL_MS = 10 * 60_000
const MAX_ATTEMPTS = 5
/** Codes sent per mailbox per hour, and per client address per hour. */
export const CODES_PER_EMAIL = 3
export const CODES_PER_IP = 20
/** Accounts opened per client address per UTC day. */
export const ACCOUNTS_PER_CLIENT_PER_DAY = 3
/** Seconds after which a registration that could not send its e-mail is worth trying again. */
const MAIL_RETRY_SECONDS = 60

/**
 * Registration by e-mail one-time code (the web pages' back end): `register` e-mails a
 * 6-digit code valid for 10 minutes; `verify` with the right code opens the account
 * with SIGNUP_CREDITS, once per mailbox (every spelling that reaches one inbox counts as
 * one: ledger/mailbox.ts), and e-mails its key. Codes are kept only as hashes; five
 * wrong tries use a code up; a client address opens at most a few accounts a day.
 *
 * Nobody learns from it which addresses are registered: for an address with an account,
 * `register` does the same work as for a new one (it keeps a code, which is never sent,
 * and e-mails the owner a notice instead), so both answers, and what a wrong code gets
 * afterwards, are the same, in content and in time.
 *
 * An account whose key e-mail could not be sent keeps its credits and is marked as such:
 * registering its address again sends a code, and verifying gives it a fresh key.
 */
export class Registration {
  constructor(
    private readonly ledger: Ledger,
    private readonly mailer: Mailer,
    private readonly counters: Counters,
    private readonly clock: Clock,
    /** The address callers reach the service at, without a trailing slash: the key e-mail's first call uses it. */
    private readonly publicUrl: string,
  ) {}

  async register(body: Record<string, unknown>, ip: string): Promise<object> {
    checkFields(body, ['email'])
    const { address, mailbox } = emailOf(body)
    const now = this.clock()
    await this.refuseOverDailyAccounts(ip, now)
    await this.countUpTo('signup-ip', now, ip, CODES_PER_IP, 'this client address')
    await this.countUpTo('signup-email', now, mailbox, CODES_PER_EMAIL, address)
    const registered = (await this.ledger.accountByEmail(address))?.key_delivered === true
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
    await this.ledger.putCode(mailbox, codeHash(mailbox, code), now + CODE_TTL_MS)
    await this.send(
      registered
        ? {
            kind: 'notice',
            to: address,
            subject: 'Your carmarket account',
            text: 'Someone asked to register this address, which has an account already. If you lost its key, ask support for a new one.',
          }
        : {
            kind: 'code',
            to: address,
            subject: `Your carmarket code: ${code}`,
            text: `Your one-time code is ${code}. It is valid for 10 minutes.`,
          },
      'The e-mail with your code could not be sent; please try again in a minute.',
      now + CODE_TTL_MS,
    )
    return { email: address, code_sent: true, expires_in: CODE_TTL_MS / 1000 }
  }

  async verify(body: Record<string, unknown>, ip: string): Promise<object> {
    checkFields(body, ['email', 'code'])
    const { address, mailbox } = emailOf(body)
    const code = body.code
    if (typeof code !== 'string' || !/^[0-9]{6}$/.test(code))
      throw invalidParameter('code', 'code must be the 6 digits sent by e-mail')
    const now = this.clock()
    await this.refuseOverDailyAccounts(ip, now)
    const check = await this.ledger.checkCode(mailbox, codeHash(mailbox, code), now, MAX_ATTEMPTS)
    if (check === 'wrong') throw invalidParameter('code', 'The code is wrong.')
    if (check === 'exhausted') throw invalidParameter('code', 'Too many wrong codes: ask for a new one.')
    if (check !== 'ok') throw invalidParameter('code', 'There is no valid code for this address: ask for a new one.')
    const opened = await this.openAccount(address, ip, now)
    if (opened !== undefined) {
      await this.send(
        keyMail(address, opened.key, SIGNUP_CREDITS, this.publicUrl),
        'The e-mail with your key could not be sent; your account is kept. Register again in a few minutes for a new code, and the key comes with it.',
      )
      try {
        await this.ledger.keyDelivered(opened.id)
      } catch (error) {
        // The key is on its way; left unmarked, a later registration of the address only gives it a fresh one.
        if (!(error instanceof LedgerError && error.code === 'unavailable')) throw error
      }
    }
    return { email: address, key_sent: true }
  }

  /**
   * The account a right code opens, with a key to e-mail: a new one, or the account of
   * this mailbox whose key never reached it, with a fresh key. Undefined for a mailbox
   * whose account has its key (a code it was never sent, guessed).
   */
  private async openAccount(
    address: string,
    ip: string,
    now: number,
  ): Promise<{ id: string; key: string } | undefined> {
    const existing = await this.ledger.accountByEmail(address)
    if (existing !== undefined)
      return existing.key_delivered
        ? undefined
        : { id: existing.id, key: await this.ledger.issueKey(existing.id, false) }
    await this.countUpTo('signup-account', now, ip, ACCOUNTS_PER_CLIENT_PER_DAY, 'this client address today')
    try {
      const { account, key } = await this.ledger.createAccount(address, SIGNUP_CREDITS, 'signup_bonus', null, false)
      return { id: account.id, key }
    } catch (error) {
      // Another verification of the same mailbox won the race.
      if (error instanceof LedgerError && error.code === 'email_taken') return undefined
      throw error
    }
  }

  /**
   * Refused at once when the client address has opened its accounts for today: neither a code nor a check would help
   * it.
   */
  private async refuseOverDailyAccounts(ip: string, now: number): Promise<void> {
    if (
      (await this.counters.count('signup-account', windowOf('signup-account', now), ip)) >= ACCOUNTS_PER_CLIENT_PER_DAY
    ) {
      throw this.tooMany('this client address today', secondsLeft('signup-account', now))
    }
  }

  /**
   * Counts one for `who` in the window of `kind` that holds `now`; RATE_LIMIT_EXCEEDED, with the seconds to the
   * window's end, past `limit`.
   */
  private async countUpTo(
    kind: CounterKind,
    now: number,
    who: string,
    limit: number,
    description: string,
  ): Promise<void> {
    if ((await this.counters.countUpTo(kind, windowOf(kind, now), who, limit)) === 'limit')
      throw this.tooMany(description, secondsLeft(kind, now))
  }

  /** Hands `mail` over (of no use after `expires`, if given); a 503 with `failure` when it cannot be. */
  private async send(mail: Mail, failure: string, expires?: number): Promise<void> {
    try {
      await this.mailer.send(mail, expires)
    } catch (error) {
      if (error instanceof MailUnavailable) throw serviceUnavailable(failure, MAIL_RETRY_SECONDS)
      throw error
    }
  }

  private tooMany(who: string, retryAfter: number): ApiError {
    return new ApiError(
      'RATE_LIMIT_EXCEEDED',
      `Too many registration requests for ${who}; try later.`,
      {},
      { 'Retry-After': String(retryAfter) },
    )
  }
}

/**
 * A body must have each of `fields` and nothing else: a missing field is named as
 * required, along with the unknown ones the body has instead (`{"mail": ...}`); an
 * unknown field is named.
 */
function checkFields(body: Record<string, unknown>, fields: readonly string[]): void {
  const unknown = Object.keys(body).filter((name) => !fields.includes(name))
  const shown = unknown.slice(0, 5).map((name) => JSON.stringify(name.slice(0, 50)))
  if (unknown.length > shown.length) shown.push(`${unknown.length - shown.length} more`)
  const takes = `this takes ${fields.join(' and ')}`
  const missing = fields.find((name) => !Object.hasOwn(body, name))
  if (missing !== undefined) {
    const instead = unknown.length === 0 ? '' : `; the body has ${shown.join(', ')} instead (${takes})`
    throw invalidParameter(missing, `${missing} is required${instead}`)
  }
  if (unknown.length > 0) {
    const fieldWord = unknown.length === 1 ? 'field' : 'fields'
    throw invalidParameter(unknown[0]!.slice(0, 50), `unknown ${fieldWord} ${shown.join(', ')}; ${takes}`)
  }
}

function emailOf(body: Record<string, unknown>): { readonly address: string; readonly mailbox: string } {
  const parsed = parseEmail(body.email)
  if (!parsed.ok) throw invalidParameter('email', parsed.message)
  return parsed
}

function codeHash(mailbox: string, code: string): string {
  return createHash('sha256').update(`${mailbox}\u0000${code}`).digest('hex')
}
