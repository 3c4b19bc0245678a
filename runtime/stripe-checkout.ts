import Stripe from 'stripe'
import { STRIPE_API_BASE } from './stripe-api.js'
import { providerSession, type ProviderSession, type VerifiedEvent } from './checkout-session.js'

/** What a Checkout Session is created for: a plan, paid in one payment. */
export interface CheckoutOrder {
  readonly credits: number
  /** In the currency's smallest unit. */
  readonly amount: number
  readonly currency: string
  readonly email: string
  /** The account topped up, when bought with a key. */
  readonly accountId: string | null
  readonly successUrl: string
  readonly cancelUrl: string
}

/** A Checkout Session created: where the buyer pays, and until when. */
export interface CreatedCheckout {
  readonly id: string
  readonly url: string
  /** Unix seconds. */
  readonly expiresAt: number
}

/**
 * The payment methods a Checkout Session offers in `currency`: card always; BLIK, which
 * Stripe takes in PLN only, and Przelewy24, in PLN and EUR (Stripe's documentation of
 * each method's currencies, docs.stripe.com/payments/blik and /payments/p24).
 */
export function paymentMethodsFor(currency: string): string[] {
  const methods = ['card']
  if (currency === 'pln') methods.push('blik')
  if (currency === 'pln' || currency === 'eur') methods.push('p24')
  return methods
}

/** Stripe's API host, and the origin of its Checkout pages. */
const STRIPE_API_HOST = new URL(STRIPE_API_BASE).hostname
const STRIPE_CHECKOUT_ORIGIN = 'https://checkout.stripe.com'

/** How long a webhook's signature stays good, in seconds: Stripe's own default (a replay later is refused). */
export const WEBHOOK_TOLERANCE_SECONDS = 300

/**
 * Stripe, through its official Node library: Checkout Sessions created and listed at
 * `apiBase` (Stripe's API, or a stand-in speaking its protocol), and webhook events
 * verified against the endpoint's signing secret. The secret key and the signing secret
 * come from the environment and are never logged.
 */
export class StripeCheckout {
  private readonly stripe: Stripe
  /** Where its payment pages are: Stripe's Checkout, or the stand-in's own origin. */
  readonly payPageOrigin: string

  constructor(
    secretKey: string,
    private readonly webhookSecret: string,
    apiBase: URL,
  ) {
    this.stripe = new Stripe(secretKey, {
      host: apiBase.hostname,
      port: apiBase.port === '' ? (apiBase.protocol === 'https:' ? 443 : 80) : Number(apiBase.port),
      protocol: apiBase.protocol === 'http:' ? 'http' : 'https',
      maxNetworkRetries: 2,
      timeout: 10_000,
    })
    this.payPageOrigin = apiBase.hostname === STRIPE_API_HOST ? STRIPE_CHECKOUT_ORIGIN : apiBase.origin
  }

  async create(order: CheckoutOrder): Promise<CreatedCheckout> {
    const session = await this.stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: order.currency,
            unit_amount: order.amount,
            product_data: { name: `${order.credits.toLocaleString('en-US')} carmarket credits` },
          },
        },
      ],
      allowed_payment_method_types: paymentMethodsFor(
        order.currency,
      ) as Stripe.Checkout.SessionCreateParams.AllowedPaymentMethodType[],
      customer_email: order.email,
      ...(order.accountId === null ? {} : { client_reference_id: order.accountId }),
      metadata: { credits: String(order.credits), account_id: order.accountId ?? '', email: order.email },
      success_url: order.successUrl,
      cancel_url: order.cancelUrl,
    })
    if (session.url === null) throw new Error(`Stripe created Checkout Session ${session.id} without a URL`)
    return { id: session.id, url: session.url, expiresAt: session.expires_at }
  }

  /** The event of a webhook request, its signature verified; throws Stripe's SignatureVerificationError if not. */
  event(rawBody: Buffer, signature: string): VerifiedEvent {
    const event = this.stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret, WEBHOOK_TOLERANCE_SECONDS)
    return { id: event.id, type: event.type, object: event.data.object as unknown as Record<string, unknown> }
  }

  /** The Checkout Sessions created from `from` to `to` (Unix seconds), every page. */
  async *sessions(from: number, to: number): AsyncGenerator<ProviderSession> {
    for await (const session of this.stripe.checkout.sessions.list({ created: { gte: from, lte: to }, limit: 100 })) {
      yield providerSession(session as unknown as Record<string, unknown>)
    }
  }
}
