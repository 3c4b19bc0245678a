import { LedgerError } from '../ledger/ledger-error.js'
import { windowOf, type Account, type Counters, type Ledger } from '../ledger/types.js'
import { keyPrefix, newKey } from '../ledger/keys.js'
import { SIGNUP_CREDITS } from '../query/prices.js'
import type { Clock } from './limits.js'
import type { CountBusiness } from './metrics.js'
import { keyMail, type KeyOccasion } from './key-mail.js'
import type { Mail } from '../ledger/types.js'
import { sendOrRefuse, type Mailer } from './mailer.js'
import { CODE_TTL_MS, MAX_ATTEMPTS, codeHash, codeOf, newCode, refuseUnlessRight } from './one-time-codes.js'
import { checkFields, emailOf } from './body-fields.js'
import { countWithin, tooMany } from './count-within.js'

/** A key just issued for an account, to be e-mailed. */
interface Issued {
  readonly id: string
  /** Where the key goes: the account's own address. */
  readonly email: string
  readonly key: string
  readonly occasion: KeyOccasion
}
/** Codes sent per mailbox per hour, and per client address per hour. */
export const CODES_PER_EMAIL = 3
export const CODES_PER_IP = 20
/** Accounts opened per client address per UTC day. */
export const ACCOUNTS_PER_CLIENT_PER_DAY = 3

/**
 * Registration by e-mail one-time code (the web pages' back end): `register` e-mails a
 * 6-digit code valid for 10 minutes; `verify` with the right code opens the account
 * with SIGNUP_CREDITS, once per mailbox (every spelling that reaches one inbox counts as
 * one: ledger/mailbox.ts), and e-mails its key. Codes are kept only as hashes; five
 * wrong tries use a code up; a client address opens at most a few accounts a day.
 *
 * Nobody learns from it which addresses are registered: for an address with an account,
 * `register` does the same work as for a new one and sends a code too, whose message
 * tells the owner that verifying it replaces the account's key; so both answers, and
 * what a wrong code gets afterwards, are the same, in content and in time.
 *
 * A lost key is replaced that way: verifying a code for an address with an account
 * e-mails a new key, which revokes the old one, and gives no credits. An account whose
 * key e-mail could not be sent keeps its credits and is marked as such, and gets its key
 * the same way. `rotate` replaces a key that still works.
 */
export class Registration {
  constructor(
    private readonly ledger: Ledger,
    private readonly mailer: Mailer,
    private readonly counters: Counters,
    private readonly clock: Clock,
    /** The address callers reach the service at, without a trailing slash: the key e-mail's first call uses it. */
    private readonly publicUrl: string,
    /** Told of each account opened, for /metrics. */
    private readonly count: CountBusiness = () => {},
  ) {}

  async register(body: Record<string, unknown>, ip: string): Promise<object> {
    checkFields(body, ['email'])
    const { address, mailbox } = emailOf(body)
    const now = this.clock()
    await this.refuseOverDailyAccounts(ip, now)
    await countWithin(this.counters, 'signup-ip', now, ip, CODES_PER_IP, tooManyFor('this client address'))
    await countWithin(this.counters, 'signup-email', now, mailbox, CODES_PER_EMAIL, tooManyFor(address))
    // A code for an account goes to the account's own address, never to another spelling of its mailbox: whoever
    // verifies it gets the account's key.
    const registered = await this.ledger.accountByEmail(address)
    const code = newCode()
    await this.ledger.putCode(mailbox, codeHash(mailbox, code), now + CODE_TTL_MS)
    await this.send(
      {
        kind: 'code',
        to: registered?.email ?? address,
        subject: `Your carmarket code: ${code}`,
        text:
          registered !== undefined
            ? [
                `Your one-time code is ${code}. It is valid for 10 minutes.`,
                '',
                'Someone asked for a new key for the carmarket account of this address. If it was you, enter the code: a new key comes by e-mail, and your current key stops working. Your credits stay as they are.',
                '',
                'If it was not you, ignore this message: nothing changes.',
              ].join('\n')
            : `Your one-time code is ${code}. It is valid for 10 minutes.`,
      },
      'The e-mail with your code could not be sent; please try again in a minute.',
      now + CODE_TTL_MS,
    )
    return { email: address, code_sent: true, expires_in: CODE_TTL_MS / 1000 }
  }

  async verify(body: Record<string, unknown>, ip: string): Promise<object> {
    checkFields(body, ['email', 'code'])
    const { address, mailbox } = emailOf(body)
    const code = codeOf(body)
    const now = this.clock()
    await this.refuseOverDailyAccounts(ip, now)
    refuseUnlessRight(await this.ledger.checkCode(mailbox, codeHash(mailbox, code), now, MAX_ATTEMPTS))
    const opened = await this.openAccount(address, ip, now)
    if (opened !== undefined) await this.mailKey(opened)
    return { email: address, key_sent: true }
  }

  /**
   * Replaces the key of `account` (one that still works) by a new one, e-mailed to the
   * account's address: the old key stops working at once. At most CODES_PER_EMAIL an
   * hour per mailbox, with the codes: each sends a message.
   */
  async rotate(account: Account): Promise<object> {
    const { mailbox } = emailOf({ email: account.email })
    await countWithin(this.counters, 'signup-email', this.clock(), mailbox, CODES_PER_EMAIL, tooManyFor(account.email))
    // The message first, then the swap: a key that works is never given up for one that could not be sent. Should the
    // swap fail after the message went, the old key keeps working and the one mailed never does.
    const key = newKey()
    await this.send(
      keyMail(account.email, key, { account: 'existing', balance: account.balance }, this.publicUrl),
      'The e-mail with your new key could not be sent; your key is unchanged. Please try again in a few minutes.',
    )
    await this.ledger.issueKey(account.id, true, key)
    return { email: account.email, key_sent: true, key_prefix: keyPrefix(key) }
  }

  /** E-mails a key just issued, and records that it was sent: a 503 when it could not be, the key kept undelivered. */
  private async mailKey(issued: Issued): Promise<void> {
    await this.send(
      keyMail(issued.email, issued.key, issued.occasion, this.publicUrl),
      'The e-mail with your key could not be sent; your account is kept. Register again in a few minutes for a new code, and the key comes with it.',
    )
    try {
      await this.ledger.keyDelivered(issued.id)
    } catch (error) {
      // The key is on its way; left unmarked, a later registration of the address only gives it a fresh one.
      if (!(error instanceof LedgerError && error.code === 'unavailable')) throw error
    }
  }

  /**
   * The account a right code opens, with a key to e-mail: a new one with its free
   * credits, or the account of this mailbox with a new key that replaces its previous
   * one (lost, or never delivered). Undefined when another verification of the same
   * mailbox opened its account first.
   */
  private async openAccount(address: string, ip: string, now: number): Promise<Issued | undefined> {
    const existing = await this.ledger.accountByEmail(address)
    if (existing !== undefined) {
      const key = await this.ledger.issueKey(existing.id, false)
      return {
        id: existing.id,
        email: existing.email,
        key,
        occasion: { account: 'existing', balance: existing.balance },
      }
    }
    const today = tooManyFor('this client address today')
    await countWithin(this.counters, 'signup-account', now, ip, ACCOUNTS_PER_CLIENT_PER_DAY, today)
    try {
      const { account, key } = await this.ledger.createAccount(address, SIGNUP_CREDITS, 'signup_bonus', null, false)
      this.count('registrations', 1)
      return { id: account.id, email: account.email, key, occasion: { account: 'new', credits: SIGNUP_CREDITS } }
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
      throw tooMany('signup-account', now, tooManyFor('this client address today'))
    }
  }

  /** Hands `mail` over (of no use after `expires`, if given); a 503 with `failure` when it cannot be. */
  private send(mail: Mail, failure: string, expires?: number): Promise<void> {
    return sendOrRefuse(this.mailer, mail, failure, expires)
  }
}

function tooManyFor(who: string): string {
  return `Too many registration requests for ${who}; try later.`
}
