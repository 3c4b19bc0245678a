/**
 * The ledger's records and its narrow interface. Handlers and the CLI speak only this
 * interface, so the engines replace each other without touching them: LMDB on one
 * machine (lmdb-ledger.ts), PostgreSQL past it (pg-ledger.ts).
 */

export type AccountStatus = 'active' | 'disabled'

export interface Account {
  readonly id: string
  /** Where mail goes: the address as given, in its delivery form (ledger/mailbox.ts). */
  readonly email: string
  readonly status: AccountStatus
  readonly balance: number
  readonly granted: number
  readonly used: number
  /** ISO 8601. */
  readonly created: string
  /** The readable start of the current key (the key itself is never stored). */
  readonly key_prefix: string
  /** Entries written so far; the next entry's sequence number. */
  readonly entries: number
  /** Whether the current key reached its owner: false while a registration's key e-mail could not be sent. */
  readonly key_delivered: boolean
}

/** `reversal`: credits taken back from a payment refunded or disputed (negative, never below a zero balance). */
export type EntryType = 'signup_bonus' | 'grant' | 'charge' | 'failed_call' | 'reversal'

/**
 * One line of an account's history, appended and never changed, but for the count of a
 * failure entry (zero credits) that later identical failures are added to.
 */
export interface Entry {
  readonly id: string
  readonly time: string
  readonly type: EntryType
  /** Signed: a valuation's charge is -8, a grant positive, a failed call 0. */
  readonly credits: number
  readonly balance_after: number
  readonly endpoint: string | null
  readonly make: string | null
  readonly model: string | null
  readonly year: number | null
  /** `success`, or the error code of a failed call. */
  readonly status: string
  /** Why credits were granted (an order, a support case). */
  readonly reference: string | null
  /**
   * The calls the entry stands for: 1, but for a failed_call entry, which also counts the
   * same failure repeated right after it that day, and every failure of the day past the
   * day's FAILED_CALL_ENTRIES_PER_DAY entries.
   */
  readonly count: number
}

/** Failure entries an account gets per UTC day (a bound on what a stream of bad calls can store). */
export const FAILED_CALL_ENTRIES_PER_DAY = 100

/** The market call a charge or a failure is recorded for. */
export interface Call {
  readonly endpoint: string
  readonly make: string | null
  readonly model: string | null
  readonly year: number | null
}

/** One market call's debit: its price and the call it pays for. */
export interface Debit {
  readonly credits: number
  readonly call: Call
}

/** A failed market call of a request, recorded as a zero-credit entry with its code (see recordFailure). */
export interface Failure {
  readonly call: Call
  readonly code: string
}

/**
 * What a debit came to: charged, with the balance after it and its entry, or refused for want of credits, with the
 * balance that refused it.
 */
export type DebitOutcome =
  | { readonly charged: true; readonly balance: number; readonly entry: Entry }
  | { readonly charged: false; readonly balance: number }

/** How long an Idempotency-Key is kept, how long a call may hold one in flight, and how many an account keeps. */
export const IDEMPOTENCY = {
  /** A key answers its stored answer again for 24 hours from its first use. */
  ttlMs: 86_400_000,
  /**
   * A call holds its key this long at most: a process killed with a call in flight leaves the key held, and a retry
   * then takes it over. Longer than a call lasts but when its storage fails (a debit whose answer was lost waits 10 s
   * to learn it, after its own timeouts); a call still running past it is charged at most once all the same, since
   * its debit checks the key again.
   */
  leaseMs: 30_000,
  /** Keys an account keeps at most; its oldest is forgotten before its 24 hours when a newer one would pass this. */
  keysPerAccount: 10_000,
} as const

/** A request's Idempotency-Key, and a digest of the request it came with (method, path, canonical query or body). */
export interface IdempotentCall {
  readonly key: string
  readonly fingerprint: string
}

/**
 * An answer kept under an Idempotency-Key: what the runtime gave to render it (`parts`, opaque here) and how its
 * debits went, enough to render it again byte for byte.
 */
export interface StoredAnswer {
  readonly parts: string
  readonly outcomes: readonly { readonly charged: boolean; readonly balance: number }[]
}

/**
 * What taking up an Idempotency-Key found: the key is now held by this call (`token`), or it was answered before
 * (`done`, with the same request), is held by a call still in flight, or came with another request (`reused`).
 */
export type IdempotencyStart =
  | { readonly state: 'started'; readonly token: string }
  | { readonly state: 'done'; readonly answer: StoredAnswer }
  | { readonly state: 'in_flight' | 'reused' }

/** Everything one request charges, in one transaction. */
export interface Charges {
  /** In order: each is charged if the balance left covers it, else refused; a cheaper one after may still be charged. */
  readonly debits: readonly Debit[]
  /** Failed calls of the same request (a batch's items), recorded in the same transaction. */
  readonly failures?: readonly Failure[]
  /**
   * The request's Idempotency-Key, held by this call (startIdempotent's token): stored in the same transaction with
   * `parts` and the debits' outcomes when anything is charged, and let go when nothing is.
   */
  readonly remember?: IdempotentCall & { readonly token: string; readonly parts: string }
  /** Whether the answer can still be delivered (see chargeAll). */
  readonly wanted?: () => boolean
}

export type ChargesResult =
  | { readonly ok: true; readonly outcomes: readonly DebitOutcome[]; readonly balance: number }
  | { readonly ok: false; readonly reason: 'disabled' | 'unknown_account' | 'not_wanted'; readonly balance: number }
  /** Another call with the same key was answered and charged first: nothing was charged now. */
  | { readonly ok: false; readonly reason: 'replayed'; readonly answer: StoredAnswer }
  | { readonly ok: false; readonly reason: 'reused' }

export type CodeCheck = 'ok' | 'wrong' | 'expired' | 'exhausted' | 'none'

/** How the writes of a storage engine are faring, for /readyz. */
export interface WriteHealth {
  /** Since when (ms since the epoch) writes have been failing; undefined while they commit. */
  readonly failingSince: number | undefined
  /** When the latest write failed. */
  readonly failedAt: number | undefined
  /** What the engine last said of a failed write. */
  readonly reason: string | undefined
  /**
   * Whether the engine had a fatal error after which no write of this process commits
   * again (asked of the engine now): the process is to be replaced.
   */
  isBroken(): boolean
}

/** What a ledger write transaction does, as /metrics counts them. */
export type LedgerWrite =
  | 'account'
  | 'charge'
  | 'failed_call'
  | 'grant'
  | 'key'
  | 'status'
  | 'code'
  | 'idempotency'
  | 'mail'
  | 'payment'
  | 'session'

/** A Checkout Session paid for, as the payment provider tells it: what it buys, and for whom. */
export interface PaidSession {
  /** The provider's id of the Checkout Session: credits are granted once per session, whatever is told twice. */
  readonly session_id: string
  /** The provider's id of the payment, which refunds and disputes name; null when it has none. */
  readonly payment_intent: string | null
  readonly credits: number
  /** What was paid, in the currency's smallest unit (cents). */
  readonly amount: number
  readonly currency: string
  /** The account topped up, when the buyer bought with a key; else the account of `email`, opened if need be. */
  readonly account_id: string | null
  /** The buyer's e-mail address. */
  readonly email: string
}

/** A payment as the ledger keeps it: one per Checkout Session, with what was taken back since. */
export interface Payment {
  readonly session_id: string
  readonly payment_intent: string | null
  readonly account_id: string
  readonly credits: number
  readonly amount: number
  readonly currency: string
  /** When its credits were granted, ISO 8601. */
  readonly granted_at: string
  /** What the provider says was refunded and disputed so far, in the currency's smallest unit. */
  readonly refunded: number
  readonly disputed: number
  /** Credits taken back for them, and credits that could not be (the balance was spent already). */
  readonly reversed: number
  readonly unrecovered: number
}

/** The grant of a paid session: made now (with the key of an account opened for it), or made before. */
export type PaymentGrant =
  | { readonly outcome: 'granted'; readonly payment: Payment; readonly account: Account; readonly key: string | null }
  | { readonly outcome: 'already'; readonly payment: Payment }

/** What a payment's refund or dispute took back now. */
export interface PaymentReversal {
  readonly payment: Payment
  readonly taken: number
  /** Credits of this reversal that could not be taken (the balance was lower). */
  readonly unrecovered: number
}

/**
 * Payments received, kept with the ledger: each Checkout Session paid grants its credits
 * once, in the transaction that records it, so a session told twice, concurrently, or
 * after a crash, is granted once.
 */
export interface Payments {
  /**
   * Grants a paid session's credits, unless it was granted before: to `account_id`, or to
   * the account of `email`, opened for it (with a key, not yet delivered) when there is
   * none. One transaction: the payment, the account and the grant entry.
   */
  grantPaid(session: PaidSession): Promise<PaymentGrant>
  /**
   * Records what the provider says of a payment's refunds or disputes (totals so far, in
   * the smallest unit; a total lower than one recorded changes nothing) and takes back the
   * credits they come to, in proportion, never below a zero balance: what cannot be taken
   * is counted as unrecovered. For a payment intent no session of the ledger has yet (the
   * refund told before its grant), the totals are kept (`pending`) and taken back in the
   * transaction that grants it.
   */
  reverse(
    paymentIntent: string,
    totals: { readonly refunded?: number; readonly disputed?: number },
  ): Promise<PaymentReversal | 'pending'>
  /** The payments granted from `from` to `to` (ISO 8601), oldest first. */
  list(from: string, to: string): Promise<Payment[]>
  /** The grant entries whose reference names the session: more than one would be a session granted twice. */
  grantsOf(session: Payment): Promise<Entry[]>
}

/**
 * Sign-in sessions of the account page, kept with the ledger so that every runtime knows
 * them: a session is the hash of a random token (the token itself lives only in the
 * browser's cookie), its account and when it ends.
 */
export interface Sessions {
  /** Opens a session of `accountId` until `expires` (ms since the epoch). */
  open(tokenHash: string, accountId: string, expires: number): Promise<void>
  /** The account of a session still open at `now`, if the token's hash is one. */
  account(tokenHash: string, now: number): Promise<Account | undefined>
  /** Ends a session (signing out). */
  close(tokenHash: string): Promise<void>
  /** Forgets the sessions ended by `now`. */
  sweep(now: number): Promise<void>
}

/** What a message is for; the operator's list shows this, never a subject or a text, which may hold a code or a key. */
export type MailKind = 'code' | 'key' | 'notice' | 'receipt'

/** A message for one address, as the service writes it: plain text (the HTML part is made from it when sent). */
export interface Mail {
  readonly kind: MailKind
  readonly to: string
  readonly subject: string
  readonly text: string
}

/** A message waiting in the mail queue, as handed to whoever sends it. */
export interface QueuedMail extends Mail {
  /** Unique and kept across attempts: the Message-ID is made from it, so a message sent twice reads as one. */
  readonly id: string
  /** When it was queued (ms since the epoch): its Date header. */
  readonly queued: number
  /** Attempts made before this one. */
  readonly attempts: number
  /** When it is given up if still not sent (ms since the epoch). */
  readonly give_up_at: number
}

/** A message of the queue as the operator sees it (carmarket mail list): never its subject or text. */
export interface MailRecord {
  readonly id: string
  readonly kind: MailKind
  readonly to: string
  readonly state: 'queued' | 'failed'
  /** ISO 8601. */
  readonly queued: string
  readonly attempts: number
  /** When it is tried next (queued) or was given up (failed), ISO 8601. */
  readonly next: string
  /** What the relay or the network said at the last failed attempt. */
  readonly last_error: string | null
}

/**
 * Mail waiting to be sent, kept with the ledger, so every runtime of a deployment sees one
 * queue and a message queued before a request is answered survives any restart. A message
 * is taken (claim) by one sender at a time, for a lease; it leaves the queue once sent
 * (nothing of it is kept: it may hold a key) or is kept as failed, without its text, once
 * given up.
 */
export interface MailQueue {
  /** Queues `mail`, to be given up at `giveUpAt` (ms); durable before it resolves. Resolves to its id. */
  enqueue(mail: Mail, giveUpAt: number): Promise<string>
  /**
   * Up to `limit` messages due now, taken by `owner` for `leaseMs`: no other owner takes them before the lease ends
   * (a sender that died lets its messages go that way).
   */
  claim(owner: string, leaseMs: number, limit: number): Promise<QueuedMail[]>
  /** A message `owner` holds was sent: it leaves the queue. */
  sent(id: string, owner: string): Promise<void>
  /**
   * An attempt failed (`error`, what the relay said): tried again in `retryInMs`, or, with undefined, given up and kept
   * as failed without its text.
   */
  failed(id: string, owner: string, error: string, retryInMs: number | undefined): Promise<void>
  /** The newest `limit` messages waiting or given up (or given up only), newest first. */
  list(failedOnly: boolean, limit: number): Promise<MailRecord[]>
  /** How many messages wait, and how many were given up. */
  depth(): Promise<{ readonly queued: number; readonly failed: number }>
}

/**
 * The ledger. Every write either commits or rejects with LedgerError `unavailable` (the
 * storage cannot be written now; nothing of it happened), never half-done. An engine
 * across a network may lose its connection after a write was sent: that write is
 * `unavailable` too, though it may have committed (whole); it is never reported as done.
 * A debit so lost waits until the engine learns whether it committed, which the
 * PostgreSQL engine does for a while (pg-debits.ts): its `unavailable` then means not
 * charged.
 */
export interface Ledger {
  /** Write transactions this process has committed, by what they did. */
  readonly commits: Readonly<Record<LedgerWrite, number>>
  /** Whether writes are committing (after a failure, until one commits again). */
  readonly health: WriteHealth
  /**
   * A write of nothing but itself, to learn whether writes commit and the storage has room for more; rejects as
   * `unavailable` when not.
   */
  probe(): Promise<void>
  /**
   * Opens an account with `credits` (a signup bonus or a first grant) and its first key;
   * durable before it resolves. One account per mailbox (ledger/mailbox.ts): another
   * spelling of a mailbox that has one is `email_taken`. `keyDelivered` false records that
   * the key is still to be e-mailed (see keyDelivered).
   */
  createAccount(
    email: string,
    credits: number,
    type: 'signup_bonus' | 'grant',
    reference: string | null,
    keyDelivered?: boolean,
  ): Promise<{ account: Account; key: string }>
  /** The account a key belongs to, if the key is current. */
  authenticate(key: string): Promise<Account | undefined>
  account(id: string): Promise<Account | undefined>
  /** The account of the mailbox an address (any spelling of it) reaches. */
  accountByEmail(email: string): Promise<Account | undefined>
  /**
   * Everything one request charges, in one atomic read-check-write (see Charges): each debit taken for a successful
   * call only while the balance covers it, never below zero, whatever runs concurrently, in any process; the failures
   * recorded; the Idempotency-Key's answer stored. Resolves once committed. A key answered first by another call
   * (`replayed`, `reused`) charges nothing. `wanted` is asked last, inside the transaction or just before the debits
   * are sent to a server: when the answer can no longer be delivered (its client is gone) nothing is taken
   * (`not_wanted`), unless the balance would pay for none of the debits anyway.
   */
  chargeAll(accountId: string, charges: Charges): Promise<ChargesResult>
  /**
   * Takes up an Idempotency-Key for the account's call (see IdempotencyStart). A key is kept IDEMPOTENCY.ttlMs from
   * its first use; a key held longer than IDEMPOTENCY.leaseMs (its call's process died) is taken over.
   */
  startIdempotent(accountId: string, call: IdempotentCall): Promise<IdempotencyStart>
  /** Lets go of a key this call holds (`token`) and whose call failed: its retry runs again. */
  abandonIdempotent(accountId: string, key: string, token: string): Promise<void>
  /**
   * Forgets the Idempotency-Keys older than IDEMPOTENCY.ttlMs at `now` (ms since the epoch, this process's clock), in
   * bounded transactions. An engine with a clock of its own (a database server's, which judges whether a key is live)
   * goes by that one instead.
   */
  sweep(now: number): Promise<void>
  /**
   * Records a failed call as a zero-credit entry with its error code (the balance is
   * untouched), or counts it on an earlier entry (see Entry.count).
   */
  recordFailure(accountId: string, call: Call, code: string): Promise<void>
  /** Adds credits; durable before it resolves. */
  grant(accountId: string, credits: number, reference: string): Promise<Entry>
  /**
   * A new key for the account (`key`, made beforehand, or a fresh one); the previous one stops working at once.
   * `delivered` as in createAccount.
   */
  issueKey(accountId: string, delivered?: boolean, key?: string): Promise<string>
  /** Records that the account's current key has been e-mailed to its owner. */
  keyDelivered(accountId: string): Promise<void>
  setStatus(accountId: string, status: AccountStatus): Promise<Account>
  /** Keeps a one-time code (as a hash) for a mailbox key until `expires` (ms), replacing an earlier one. */
  putCode(mailbox: string, codeHash: string, expires: number): Promise<void>
  /**
   * Checks a one-time code: a right one is used up; a wrong one counts an attempt, and
   * after `maxAttempts` wrong ones the code is gone.
   */
  checkCode(mailbox: string, codeHash: string, now: number, maxAttempts: number): Promise<CodeCheck>
  /**
   * Writes a consistent copy of the ledger into the folder `dir` (created; it must not
   * hold a ledger yet), while servers go on writing: the copy is the ledger as of one
   * committed moment.
   */
  backup(dir: string): Promise<void>
  /** The newest `limit` entries, newest first. */
  entries(accountId: string, limit: number): Promise<Entry[]>
  /** The mail queue kept with the ledger. */
  readonly mail: MailQueue
  /** Payments received, kept with the ledger. */
  readonly payments: Payments
  /** Sign-in sessions of the account page, kept with the ledger. */
  readonly sessions: Sessions
  close(): Promise<void>
}

/** The `wanted` of a charge or a count made with nobody on a connection to lose (an operator's command, a test). */
export const alwaysWanted = (): boolean => true

/**
 * Debits whose batch lost its answer once sent and whose outcome could not be learned in
 * time: they may or may not have been charged. Each is answered LedgerError `in_doubt`;
 * the operator is told the batch, under which its charges, if any, are found.
 */
export interface DebitsInDoubt {
  readonly batch: string
  /** How many debits of the batch were wanted (sent to be charged). */
  readonly debits: number
  /** What kept the outcome from being learned. */
  readonly reason: string
}

/**
 * Demo calls per client address per UTC day, requests per client address per minute,
 * registration codes per mailbox or client address per hour, accounts opened per client
 * address per UTC day, checkouts started per client address per hour.
 */
export type CounterKind = 'demo' | 'rate' | 'signup-email' | 'signup-ip' | 'signup-account' | 'checkout'

/**
 * The length of each kind's windows. A count belongs to one window, numbered
 * `Math.floor(time / COUNTER_WINDOW_MS[kind])` (UTC minutes, hours or days), and is
 * dropped once its window has passed.
 */
export const COUNTER_WINDOW_MS: Readonly<Record<CounterKind, number>> = {
  rate: 60_000,
  demo: 86_400_000,
  'signup-email': 3_600_000,
  'signup-ip': 3_600_000,
  'signup-account': 86_400_000,
  checkout: 3_600_000,
}

/** The number of the window of `kind` that holds `time` (ms since the epoch). */
export function windowOf(kind: CounterKind, time: number): number {
  return Math.floor(time / COUNTER_WINDOW_MS[kind])
}

/** Whole seconds from `time` to the end of its window of `kind`: what Retry-After says of a limit of that window. */
export function secondsLeft(kind: CounterKind, time: number): number {
  return Math.ceil(((windowOf(kind, time) + 1) * COUNTER_WINDOW_MS[kind] - time) / 1000)
}

/**
 * What counting one more came to: the new count, or nothing counted because the limit was reached or the count was no
 * longer wanted.
 */
export type Counted = number | 'limit' | 'unwanted'

/**
 * Counters per client address or mailbox, shared by every process of a deployment and
 * kept across restarts: the rate limit, the demo quota and the signup throttles. Each
 * check-and-count is atomic, so concurrent requests, in any process, never count past a
 * limit. A count that cannot be written rejects as LedgerError `unavailable`.
 */
export interface Counters {
  /** Whether writes are committing (after a failure, until one commits again). */
  readonly health: WriteHealth
  /** As Ledger.probe. */
  probe(): Promise<void>
  /** The count of `who` in a window of `kind`. */
  count(kind: CounterKind, window: number, who: string): Promise<number>
  /**
   * Counts one more for `who` in `window` if that keeps it at most `limit`. `wanted` is
   * asked last before the count is made: a count for an answer that can no longer be
   * delivered is not made.
   */
  countUpTo(kind: CounterKind, window: number, who: string, limit: number, wanted?: () => boolean): Promise<Counted>
  /**
   * Drops the counts of windows that had passed by `now` (an engine whose counts expire by themselves has nothing to
   * do).
   */
  sweep(now: number): Promise<void>
  close(): Promise<void>
}

/** What a ledger holds, as `ledger restore` compares a backup with the ledger it would replace. */
export interface LedgerContents {
  readonly accounts: ReadonlyMap<string, Account>
  /** The hash of each account's current key, by account id. */
  readonly keys: ReadonlyMap<string, string>
  /** An account's entries from sequence number `from` on, oldest first. */
  readonly entriesFrom: (accountId: string, from: number) => readonly Entry[]
  /** The Checkout Sessions whose credits were granted. */
  readonly payments: ReadonlySet<string>
}
