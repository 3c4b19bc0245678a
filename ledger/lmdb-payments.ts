import type { Database } from 'lmdb'
import { newKey } from './keys.js'
import { parseEmail } from './mailbox.js'
import { paymentReference, reversalOf, reversalReference } from './payment-terms.js'
import { LedgerError } from './ledger-error.js'
import type { Account, Entry, PaidSession, Payment, PaymentGrant, PaymentReversal, Payments } from './types.js'

/** What LmdbPayments does to accounts, in the ledger's transaction under way (LmdbLedger's own steps). */
export interface AccountSteps<Stored extends { readonly id: string; readonly balance: number }> {
  /** Runs `work` in a write transaction of the ledger; resolves once committed. */
  commit<T>(work: () => T): Promise<T>
  account(id: string): Stored | undefined
  accountOfMailbox(mailbox: string): Stored | undefined
  open(
    parsed: { readonly address: string; readonly mailbox: string },
    key: string,
    credits: number,
    reference: string,
  ): Stored
  add(account: Stored, type: 'grant' | 'reversal', credits: number, reference: string): { readonly account: Stored }
  publicAccount(account: Stored): Account
  entries(accountId: string): Entry[]
}

/**
 * The payments of the LMDB ledger: database `payment_records` (session id to the
 * payment) and `payment_intents` (payment intent to session id), written in the same
 * transaction as the grant or reversal entry they make.
 */
export class LmdbPayments<Stored extends { readonly id: string; readonly balance: number }> implements Payments {
  constructor(
    private readonly records: Database<Payment, string>,
    private readonly intents: Database<string, string>,
    private readonly steps: AccountSteps<Stored>,
  ) {}

  async grantPaid(session: PaidSession): Promise<PaymentGrant> {
    const parsed = parseEmail(session.email)
    if (!parsed.ok) throw new LedgerError('invalid_email', parsed.message)
    const key = newKey()
    const reference = paymentReference(session.session_id)
    const result = await this.steps.commit((): PaymentGrant | undefined => {
      const before = this.records.get(session.session_id)
      if (before !== undefined) return { outcome: 'already', payment: before }
      const to =
        session.account_id === null
          ? this.steps.accountOfMailbox(parsed.mailbox)
          : this.steps.account(session.account_id)
      if (to === undefined && session.account_id !== null) return undefined
      const account =
        to === undefined
          ? this.steps.open(parsed, key, session.credits, reference)
          : this.steps.add(to, 'grant', session.credits, reference).account
      const payment: Payment = {
        session_id: session.session_id,
        payment_intent: session.payment_intent,
        account_id: account.id,
        credits: session.credits,
        amount: session.amount,
        currency: session.currency,
        granted_at: new Date().toISOString(),
        refunded: 0,
        disputed: 0,
        reversed: 0,
        unrecovered: 0,
      }
      void this.records.put(session.session_id, payment)
      if (session.payment_intent !== null) void this.intents.put(session.payment_intent, session.session_id)
      return {
        outcome: 'granted',
        payment,
        account: this.steps.publicAccount(account),
        key: to === undefined ? key : null,
      }
    })
    if (result === undefined) throw new LedgerError('unknown_account', `no account ${session.account_id}`)
    return result
  }

  async reverse(
    paymentIntent: string,
    totals: { readonly refunded?: number; readonly disputed?: number },
  ): Promise<PaymentReversal | undefined> {
    return this.steps.commit((): PaymentReversal | undefined => {
      const session = this.intents.get(paymentIntent)
      const payment = session === undefined ? undefined : this.records.get(session)
      if (payment === undefined) return undefined
      const { refunded, disputed, due } = reversalOf(payment, totals)
      const account = this.steps.account(payment.account_id)
      const taken = Math.min(due, account?.balance ?? 0)
      if (account !== undefined && taken > 0)
        this.steps.add(account, 'reversal', -taken, reversalReference(payment.session_id))
      const after: Payment = {
        ...payment,
        refunded,
        disputed,
        reversed: payment.reversed + taken,
        unrecovered: payment.unrecovered + due - taken,
      }
      void this.records.put(payment.session_id, after)
      return { payment: after, taken, unrecovered: due - taken }
    })
  }

  async list(from: string, to: string): Promise<Payment[]> {
    return [...this.records.getRange()]
      .map(({ value }) => value)
      .filter((p) => p.granted_at >= from && p.granted_at <= to)
      .sort((a, b) => a.granted_at.localeCompare(b.granted_at))
  }

  async grantsOf(payment: Payment): Promise<Entry[]> {
    const reference = paymentReference(payment.session_id)
    return this.steps.entries(payment.account_id).filter((e) => e.reference === reference)
  }
}
