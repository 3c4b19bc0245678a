import type { Ledger, Payment } from '../ledger/types.js'
import type { ProviderSession } from './checkout-session.js'
import type { StripeCheckout } from './stripe-checkout.js'

/** What the provider's sessions and the ledger's grants of a period say of each other. */
export interface Reconciliation {
  /** Sessions the provider has paid that the ledger never granted (a webhook lost, or not set up). */
  readonly paidNotGranted: ProviderSession[]
  /** Payments whose session has more than one grant entry (never, while the ledger keeps its promise). */
  readonly grantedTwice: Payment[]
  /** The provider's paid sessions, and the ledger's payments, of the period. */
  readonly paid: number
  readonly granted: number
}

/**
 * Lists the Checkout Sessions the provider created from `from` to `to` (Unix seconds)
 * beside the ledger's payments of the same period (a grant comes seconds after its
 * session; an hour of slack on either side catches a late one), and names what differs.
 */
export async function reconcile(
  provider: StripeCheckout,
  ledger: Ledger,
  from: number,
  to: number,
): Promise<Reconciliation> {
  const paid: ProviderSession[] = []
  for await (const session of provider.sessions(from, to))
    if (session.paid && session.credits !== null) paid.push(session)
  const slack = 3_600
  const payments = await ledger.payments.list(
    new Date((from - slack) * 1000).toISOString(),
    new Date((to + slack) * 1000).toISOString(),
  )
  const bySession = new Map(payments.map((p) => [p.session_id, p]))
  const grantedTwice: Payment[] = []
  for (const payment of payments) if ((await ledger.payments.grantsOf(payment)).length > 1) grantedTwice.push(payment)
  return {
    paidNotGranted: paid.filter((s) => !bySession.has(s.id)),
    grantedTwice,
    paid: paid.length,
    granted: payments.length,
  }
}
