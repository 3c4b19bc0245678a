import type { Database, RootDatabase } from 'lmdb'
import { opened, whole } from './lmdb-databases.js'
import { newKey } from './keys.js'
import { parseEmail } from './mailbox.js'
import { laterTotals, paymentReference, reversalOf, reversalReference, type RefundTotals } from './payment-terms.js'
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
  /**
   * Its databases, opened when first used (as the mail queue's, lmdb-mail-queue.ts): the payments by session, the
   * sessions by payment intent, and the refund and dispute totals told before their payment was granted.
   */
  private readonly databases: () => {
    readonly records: Database<Payment, string>
    readonly intents: Database<string, string>
    readonly pending: Database<RefundTotals, string>
  }

  constructor(
    root: RootDatabase,
    private readonly steps: AccountSteps<Stored>,
  ) {
    this.databases = opened(() => ({
      records: root.openDB<Payment, string>(whole('payment_records')),
      intents: root.openDB<string, string>({ name: 'payment_intents' }),
      pending: root.openDB<RefundTotals, string>(whole('payment_pending')),
    })).get
  }

  private get records(): Database<Payment, string> {
    return this.databases().records
  }

  private get intents(): Database<string, string> {
    return this.databases().intents
  }

  private get pending(): Database<RefundTotals, string> {
    return this.databases().pending
  }

  async grantPaid(session: PaidSession): Promise<PaymentGrant> {
    this.databases()
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
      let account =
        to === undefined
          ? this.steps.open(parsed, key, session.credits, reference)
          : this.steps.add(to, 'grant', session.credits, reference).account
      let payment: Payment = {
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
      if (session.payment_intent !== null) {
        void this.intents.put(session.payment_intent, session.session_id)
        // A refund or dispute told before the grant is taken back with it.
        const early = this.pending.get(session.payment_intent)
        if (early !== undefined) {
          void this.pending.remove(session.payment_intent)
          const reversed = this.reverseNow(payment, account, early)
          payment = reversed.payment
          account = reversed.account ?? account
        }
      }
      void this.records.put(session.session_id, payment)
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

  async reverse(paymentIntent: string, totals: RefundTotals): Promise<PaymentReversal | 'pending'> {
    this.databases()
    return this.steps.commit((): PaymentReversal | 'pending' => {
      const session = this.intents.get(paymentIntent)
      const payment = session === undefined ? undefined : this.records.get(session)
      if (payment === undefined) {
        void this.pending.put(paymentIntent, laterTotals(this.pending.get(paymentIntent), totals))
        return 'pending'
      }
      const account = this.steps.account(payment.account_id)
      const { payment: after, taken, unrecovered } = this.reverseNow(payment, account, totals)
      void this.records.put(payment.session_id, after)
      return { payment: after, taken, unrecovered }
    })
  }

  /** A payment's refund or dispute totals recorded, and what they come to taken back from `account`, in the transaction. */
  private reverseNow(
    payment: Payment,
    account: Stored | undefined,
    totals: RefundTotals,
  ): {
    readonly payment: Payment
    readonly account: Stored | undefined
    readonly taken: number
    readonly unrecovered: number
  } {
    const { refunded, disputed, due } = reversalOf(payment, totals)
    const taken = Math.min(due, account?.balance ?? 0)
    const after =
      account !== undefined && taken > 0
        ? this.steps.add(account, 'reversal', -taken, reversalReference(payment.session_id)).account
        : account
    return {
      payment: {
        ...payment,
        refunded,
        disputed,
        reversed: payment.reversed + taken,
        unrecovered: payment.unrecovered + due - taken,
      },
      account: after,
      taken,
      unrecovered: due - taken,
    }
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
