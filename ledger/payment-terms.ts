import type { Payment } from './types.js'

/** The reference of the grant entry a paid Checkout Session makes: the one place its form is written. */
export function paymentReference(sessionId: string): string {
  return `checkout ${sessionId}`
}

/** The reference of a reversal entry of a payment. */
export function reversalReference(sessionId: string): string {
  return `refund or dispute of checkout ${sessionId}`
}

/**
 * The credits a payment's refunds and disputes come to, in all: the share of its amount
 * they reach (at most the whole), of its credits, rounded to the nearest credit.
 */
export function creditsToReverse(
  payment: Pick<Payment, 'credits' | 'amount'>,
  refunded: number,
  disputed: number,
): number {
  if (payment.amount <= 0) return 0
  return Math.round(payment.credits * Math.min(1, (refunded + disputed) / payment.amount))
}

/** What the provider told of a payment's refunds and disputes, in the smallest unit of its currency. */
export interface RefundTotals {
  readonly refunded?: number
  readonly disputed?: number
}

/** The totals told so far and new ones, together: each the higher (events come out of order). */
export function laterTotals(before: RefundTotals | undefined, now: RefundTotals): RefundTotals {
  return {
    refunded: Math.max(before?.refunded ?? 0, now.refunded ?? 0),
    disputed: Math.max(before?.disputed ?? 0, now.disputed ?? 0),
  }
}

/**
 * A payment after the provider told new totals of its refunds and disputes (a total
 * lower than the one kept changes nothing: events come out of order), and the credits to
 * take back now: those the new totals come to, less those taken or found unrecoverable
 * before.
 */
export function reversalOf(
  payment: Payment,
  totals: RefundTotals,
): { readonly refunded: number; readonly disputed: number; readonly due: number } {
  const refunded = Math.max(payment.refunded, totals.refunded ?? 0)
  const disputed = Math.max(payment.disputed, totals.disputed ?? 0)
  const due = creditsToReverse(payment, refunded, disputed) - payment.reversed - payment.unrecovered
  return { refunded, disputed, due: Math.max(0, due) }
}
