/**
 * What the service reads of a payment provider's Checkout Sessions and events, apart
 * from the provider's library, so that what reads them loads none of it.
 */

/** A Checkout Session as the provider keeps it, read back for reconciliation. */
export interface ProviderSession {
  readonly id: string
  readonly paid: boolean
  readonly amount: number
  readonly currency: string
  /** Unix seconds. */
  readonly created: number
  readonly paymentIntent: string | null
  /** What the session was created for (metadata), if it was one of ours. */
  readonly credits: number | null
  readonly accountId: string | null
  readonly email: string | null
}

/** A webhook event whose signature was verified: its type and its object. */
export interface VerifiedEvent {
  readonly id: string
  readonly type: string
  readonly object: Readonly<Record<string, unknown>>
}

/** A Checkout Session object (from the API or an event) as this service reads it. */
export function providerSession(session: Readonly<Record<string, unknown>>): ProviderSession {
  const metadata = (session.metadata ?? {}) as Record<string, unknown>
  const credits = Number(metadata.credits)
  const intent = session.payment_intent
  return {
    id: String(session.id),
    paid: session.payment_status === 'paid',
    amount: Number(session.amount_total ?? 0),
    currency: String(session.currency ?? ''),
    created: Number(session.created ?? 0),
    paymentIntent:
      typeof intent === 'string'
        ? intent
        : typeof intent === 'object' && intent !== null
          ? String((intent as { id: unknown }).id)
          : null,
    credits: Number.isSafeInteger(credits) && credits > 0 ? credits : null,
    accountId: typeof metadata.account_id === 'string' && metadata.account_id !== '' ? metadata.account_id : null,
    email:
      typeof metadata.email === 'string' && metadata.email !== ''
        ? metadata.email
        : typeof session.customer_email === 'string'
          ? session.customer_email
          : null,
  }
}
