import { LedgerError } from '../ledger/ledger-error.js'
import type { Account, Counters, Ledger, Mail, PaidSession, Payment } from '../ledger/types.js'
import { invalidParameter, serviceUnavailable } from '../query/api-error.js'
import { PLANS, PLAN_CURRENCY, planAmount } from '../query/prices.js'
import { count, dollars } from '../format/amounts.js'
import { messageOf } from '../format/message-of.js'
import { checkFields, emailOf } from './body-fields.js'
import { countWithin } from './count-within.js'
import { logEvent } from './events.js'
import { keyMail } from './key-mail.js'
import type { Clock } from './limits.js'
import type { Links } from './links.js'
import type { CountBusiness } from './metrics.js'
import { MailUnavailable, sendOrRefuse, type Mailer } from './mailer.js'
import { providerSession, type ProviderSession, type VerifiedEvent } from './checkout-session.js'
import type { StripeCheckout } from './stripe-checkout.js'

/** The largest webhook request taken: Stripe's events are a few kilobytes, a session with its line items some tens. */
export const WEBHOOK_BODY_BYTES = 512 * 1024
/** Checkouts a client address may start per hour: a person buys a plan or two, never dozens. */
export const CHECKOUTS_PER_CLIENT_PER_HOUR = 20
/**
 * How long the delivery that granted a new buyer's account has to e-mail its key (a few
 * milliseconds, unless it died): an event told again meanwhile is answered 503, to be told
 * later, rather than mail a second key.
 */
export const KEY_MAIL_WINDOW_MS = 10_000
/** Seconds a caller is told to wait when the payment provider did not answer. */
const PROVIDER_RETRY_SECONDS = 30

/** What a webhook event came to, as answered to the provider (200). */
export interface Handled {
  readonly received: true
  readonly handled: boolean
  readonly outcome: string
}

/**
 * Plans bought online: a Checkout Session of the payment provider for a plan (`checkout`),
 * and the provider's signed events (`webhook`) that grant its credits once it is paid,
 * exactly once per session (Payments in the ledger), or take them back when it is
 * refunded or disputed. A new buyer's account is opened with the purchase and its key
 * e-mailed; an existing one gets a receipt. Every grant and reversal is an entry of the
 * account's usage.
 *
 * The webhook answers 2xx only when the event was handled or deliberately ignored; a
 * failure to record it or to queue its e-mail is a 503, and the provider delivers it
 * again (its grant is then found made, and its mail is sent).
 */
export class Billing {
  constructor(
    private readonly provider: StripeCheckout,
    private readonly ledger: Ledger,
    private readonly mailer: Mailer,
    private readonly counters: Counters,
    private readonly clock: Clock,
    private readonly links: Links,
    /** Told of the credits each paid session grants, for /metrics. */
    private readonly count: CountBusiness = () => {},
  ) {}

  /**
   * A Checkout Session for `body.plan` (a plan's credits), for the account of the key, or
   * for `body.email` (a new or existing customer): where to pay, and until when.
   */
  async checkout(
    body: Record<string, unknown>,
    account: Account | undefined,
    ip: string,
  ): Promise<{ readonly checkout_url: string; readonly session_id: string; readonly expires_at: string }> {
    checkFields(body, account === undefined ? ['plan', 'email'] : ['plan'])
    const plan = PLANS.find((p) => p.credits === Number(body.plan) && String(body.plan).trim() !== '')
    if (plan === undefined)
      throw invalidParameter('plan', `plan must be the credits of a plan: ${PLANS.map((p) => p.credits).join(', ')}`)
    const email = account?.email ?? emailOf(body).address
    const limited = 'Too many checkouts from this client address in the last hour; try later.'
    await countWithin(this.counters, 'checkout', this.clock(), ip, CHECKOUTS_PER_CLIENT_PER_HOUR, limited)
    try {
      const session = await this.provider.create({
        credits: plan.credits,
        amount: planAmount(plan),
        currency: PLAN_CURRENCY,
        email,
        accountId: account?.id ?? null,
        successUrl: `${this.links.publicUrl}/buy?paid={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${this.links.publicUrl}/buy?cancelled=1`,
      })
      return {
        checkout_url: session.url,
        session_id: session.id,
        expires_at: new Date(session.expiresAt * 1000).toISOString(),
      }
    } catch (error) {
      logEvent('error', 'the payment provider did not create a Checkout Session', { reason: messageOf(error) })
      throw serviceUnavailable(
        'The payment provider did not answer; nothing was charged. Please retry shortly.',
        PROVIDER_RETRY_SECONDS,
      )
    }
  }

  /** A webhook request of the provider: its event verified by its signature, then handled once. */
  async webhook(raw: Buffer, signature: string | string[] | undefined): Promise<Handled> {
    let event: VerifiedEvent
    try {
      if (typeof signature !== 'string') throw new Error('no Stripe-Signature header')
      event = this.provider.event(raw, signature)
    } catch (error) {
      throw invalidParameter('Stripe-Signature', `The event's signature does not verify: ${messageOf(error)}`)
    }
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        return this.paid(providerSession(event.object))
      case 'charge.refunded':
        return this.reversed(event, { refunded: Number(event.object.amount_refunded ?? 0) })
      case 'charge.dispute.created':
        return this.reversed(event, { disputed: Number(event.object.amount ?? 0) })
      default:
        return { received: true, handled: false, outcome: `${event.type} is not an event this service acts on` }
    }
  }

  /** A session completed: its plan's credits granted once it is paid (a delayed method pays later, in its own event). */
  async paid(session: ProviderSession): Promise<Handled> {
    if (!session.paid) return { received: true, handled: false, outcome: 'not paid yet' }
    const paid = paidSession(session)
    if (paid === undefined) {
      logEvent('error', 'a paid Checkout Session matches no plan; nothing was granted', { session: session.id })
      return { received: true, handled: false, outcome: 'matches no plan' }
    }
    const grant = await this.ledger.payments.grantPaid(paid)
    if (grant.outcome === 'granted') {
      this.count('credits_sold', paid.credits)
      if (grant.key !== null) await this.mailKey(grant.account, grant.key, paid.credits)
      else await this.sendReceipt(grant.account, grant.payment)
      return { received: true, handled: true, outcome: 'granted' }
    }
    // Told again: the grant stands. A key that never left (its mail failed, the process died) goes now, renewed;
    // but not while the delivery that granted it may still be mailing it: told again later, the key is sent once.
    const account = await this.ledger.account(grant.payment.account_id)
    if (account !== undefined && !account.key_delivered) {
      if (this.clock() - Date.parse(grant.payment.granted_at) < KEY_MAIL_WINDOW_MS)
        throw serviceUnavailable(
          'This payment is being handled; deliver the event again later.',
          KEY_MAIL_WINDOW_MS / 1000,
        )
      await this.mailKey(account, await this.ledger.issueKey(account.id, false), paid.credits)
    }
    return { received: true, handled: true, outcome: 'granted before' }
  }

  private async reversed(
    event: VerifiedEvent,
    totals: { readonly refunded?: number; readonly disputed?: number },
  ): Promise<Handled> {
    const intent = event.object.payment_intent
    if (typeof intent !== 'string') return { received: true, handled: false, outcome: 'no payment intent' }
    const reversal = await this.ledger.payments.reverse(intent, totals)
    // Told before its grant (events come in any order), or a charge of something else sold on the same Stripe account.
    if (reversal === 'pending')
      return { received: true, handled: true, outcome: 'recorded: taken back when its payment is granted' }
    if (reversal.unrecovered > 0)
      logEvent('error', 'credits of a refunded or disputed payment could not be taken back: the balance was spent', {
        session: reversal.payment.session_id,
        account_id: reversal.payment.account_id,
        unrecovered: reversal.unrecovered,
      })
    return { received: true, handled: true, outcome: `${reversal.taken} credits taken back` }
  }

  private async mailKey(account: Account, key: string, credits: number): Promise<void> {
    await sendOrRefuse(
      this.mailer,
      keyMail(account.email, key, { account: 'bought', credits }, this.links.publicUrl),
      'The e-mail of this payment could not be queued; deliver the event again.',
    )
    try {
      await this.ledger.keyDelivered(account.id)
    } catch (error) {
      // Left unmarked, the key is only sent again, renewed, if the event comes again.
      if (!(error instanceof LedgerError && error.code === 'unavailable')) throw error
    }
  }

  /**
   * A receipt is a courtesy: the credits are on the account whether it goes or not, so one that cannot be queued is
   * told to the operator, and the event is answered as handled (told again, it would find the grant made, and no
   * receipt to send).
   */
  private async sendReceipt(account: Account, payment: Payment): Promise<void> {
    try {
      await this.mailer.send(receipt(account, payment))
    } catch (error) {
      if (!(error instanceof MailUnavailable)) throw error
      logEvent('error', 'the receipt of a payment could not be queued; its credits are granted', {
        session: payment.session_id,
        account_id: account.id,
      })
    }
  }
}

/**
 * What a paid session grants: its plan, when its credits, amount and currency are those
 * of a plan (the service created it so), for the account or address it was bought for.
 * Undefined for a session that is none of this service's plans.
 */
export function paidSession(session: ProviderSession): PaidSession | undefined {
  const plan = PLANS.find(
    (p) => p.credits === session.credits && planAmount(p) === session.amount && session.currency === PLAN_CURRENCY,
  )
  if (plan === undefined || session.email === null) return undefined
  return {
    session_id: session.id,
    payment_intent: session.paymentIntent,
    credits: plan.credits,
    amount: session.amount,
    currency: session.currency,
    account_id: session.accountId,
    email: session.email,
  }
}

/** The receipt of a plan bought by a customer who has an account. */
function receipt(account: Account, payment: Payment): Mail {
  return {
    kind: 'receipt',
    to: account.email,
    subject: `Your carmarket receipt: ${count(payment.credits)} credits`,
    text: [
      `Thank you: we received ${dollars(payment.amount / 100)} for ${count(payment.credits)} credits, added to your account.`,
      '',
      `Your balance is now ${count(account.balance)} credits. Your key stays the same.`,
      `Payment reference: ${payment.session_id}`,
    ].join('\n'),
  }
}
