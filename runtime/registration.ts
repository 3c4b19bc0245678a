import { createHash, randomInt } from 'node:crypto'
import { ApiError, invalidParameter } from '../query/api-error.js'
import { LedgerError, isEmail, normalizeEmail } from '../ledger/lmdb-ledger.js'
import type { Ledger } from '../ledger/types.js'
import type { Counters } from './counters.js'
import type { Clock } from './limits.js'
import type { Mailer } from './mailer.js'

export const SIGNUP_CREDITS = 50
const CODE_TTL_MS = 10 * 60_000
const MAX_ATTEMPTS = 5
const HOUR_MS = 3_600_000
/** Codes sent per address per hour, and per client address per hour. */
export const CODES_PER_EMAIL = 3
export const CODES_PER_IP = 20

/**
 * Registration by e-mail one-time code (the web pages' back end): `register` e-mails a
 * 6-digit code valid for 10 minutes; `verify` with the right code opens the account
 * with 50 credits, once per address, and e-mails its key. Codes are kept only as hashes;
 * five wrong tries use a code up. Both answers are the same whether or not the address
 * has an account already, so they tell nobody which addresses are registered.
 */
export class Registration {
  constructor(
    private readonly ledger: Ledger,
    private readonly mailer: Mailer,
    private readonly counters: Counters,
    private readonly clock: Clock,
  ) {}

  async register(body: Record<string, unknown>, ip: string): Promise<object> {
    const email = emailOf(body)
    const hour = Math.floor(this.clock() / HOUR_MS)
    if ((await this.counters.countUpTo('signup-ip', hour, ip, CODES_PER_IP)) === undefined) throw this.tooMany('this address')
    if ((await this.counters.countUpTo('signup-email', hour, email, CODES_PER_EMAIL)) === undefined) throw this.tooMany(email)
    if (this.ledger.accountByEmail(email) !== undefined) {
      await this.mailer.send({
        to: email,
        subject: 'Your carmarket account',
        text: 'Someone asked to register this address, which has an account already. If you lost its key, ask support for a new one.',
      })
    } else {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
      await this.ledger.putCode(email, codeHash(email, code), this.clock() + CODE_TTL_MS)
      await this.mailer.send({
        to: email,
        subject: `Your carmarket code: ${code}`,
        text: `Your one-time code is ${code}. It is valid for 10 minutes.`,
      })
    }
    return { email, code_sent: true, expires_in: CODE_TTL_MS / 1000 }
  }

  async verify(body: Record<string, unknown>): Promise<object> {
    const email = emailOf(body)
    const code = body.code
    if (typeof code !== 'string' || !/^[0-9]{6}$/.test(code)) throw invalidParameter('code', 'code must be the 6 digits sent by e-mail')
    const check = await this.ledger.checkCode(email, codeHash(email, code), this.clock(), MAX_ATTEMPTS)
    if (check === 'wrong') throw invalidParameter('code', 'The code is wrong.')
    if (check === 'exhausted') throw invalidParameter('code', 'Too many wrong codes: ask for a new one.')
    if (check !== 'ok') throw invalidParameter('code', 'There is no valid code for this address: ask for a new one.')
    try {
      const { key } = await this.ledger.createAccount(email, SIGNUP_CREDITS, 'signup_bonus', null)
      await this.mailer.send({
        to: email,
        subject: 'Your carmarket API key',
        text: `Your API key is ${key}\nSend it in the X-API-Key header. Your account starts with ${SIGNUP_CREDITS} free credits. The key is shown only in this message: keep it safe.`,
      })
    } catch (error) {
      if (!(error instanceof LedgerError) || error.code !== 'email_taken') throw error
    }
    return { email, key_sent: true }
  }

  private tooMany(who: string): ApiError {
    return new ApiError('RATE_LIMIT_EXCEEDED', `Too many codes asked for ${who} in the last hour; try later.`, {}, { 'Retry-After': '3600' })
  }
}

function emailOf(body: Record<string, unknown>): string {
  const email = body.email
  if (typeof email !== 'string' || !isEmail(normalizeEmail(email))) throw invalidParameter('email', 'email must be an e-mail address')
  return normalizeEmail(email)
}

function codeHash(email: string, code: string): string {
  return createHash('sha256').update(`${email}\u0000${code}`).digest('hex')
}
