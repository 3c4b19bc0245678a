/**
 * The ledger's records and its narrow interface. Handlers and the CLI speak only this
 * interface, so an engine other than LMDB (PostgreSQL, when one machine is outgrown)
 * can replace lmdb-ledger.ts without touching them.
 */

export type AccountStatus = 'active' | 'disabled'

export interface Account {
  readonly id: string
  /** Normalized: trimmed, lower case. */
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
}

export type EntryType = 'signup_bonus' | 'grant' | 'charge' | 'failed_call'

/** One line of an account's history: append only, never changed. */
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
}

/** The market call a charge or a failure is recorded for. */
export interface Call {
  readonly endpoint: string
  readonly make: string | null
  readonly model: string | null
  readonly year: number | null
}

export type ChargeResult =
  | { readonly ok: true; readonly balance: number; readonly entry: Entry }
  | { readonly ok: false; readonly reason: 'insufficient_credits' | 'disabled' | 'unknown_account'; readonly balance: number }

export type CodeCheck = 'ok' | 'wrong' | 'expired' | 'exhausted' | 'none'

/** What a ledger write transaction does, as /metrics counts them. */
export type LedgerWrite = 'account' | 'charge' | 'failed_call' | 'grant' | 'key' | 'status' | 'code'

export interface Ledger {
  /** Write transactions this process has committed, by what they did. */
  readonly commits: Readonly<Record<LedgerWrite, number>>
  /** Opens an account with `credits` (a signup bonus or a first grant) and its first key; durable before it resolves. */
  createAccount(email: string, credits: number, type: 'signup_bonus' | 'grant', reference: string | null): Promise<{ account: Account; key: string }>
  /** The account a key belongs to, if the key is current. */
  authenticate(key: string): Account | undefined
  account(id: string): Account | undefined
  accountByEmail(email: string): Account | undefined
  /**
   * Takes `credits` for a successful call in one atomic read-check-write: never below
   * zero, whatever runs concurrently, in any process. Resolves once committed.
   */
  charge(accountId: string, credits: number, call: Call): Promise<ChargeResult>
  /** Records a failed call as a zero-credit entry with its error code (the balance is untouched). */
  recordFailure(accountId: string, call: Call, code: string): Promise<void>
  /** Adds credits; durable before it resolves. */
  grant(accountId: string, credits: number, reference: string): Promise<Entry>
  /** A new key for the account; the previous one stops working at once. */
  issueKey(accountId: string): Promise<string>
  setStatus(accountId: string, status: AccountStatus): Promise<Account>
  /** Keeps a one-time code (as a hash) for an e-mail address until `expires` (ms), replacing an earlier one. */
  putCode(email: string, codeHash: string, expires: number): Promise<void>
  /**
   * Checks a one-time code: a right one is used up; a wrong one counts an attempt, and
   * after `maxAttempts` wrong ones the code is gone.
   */
  checkCode(email: string, codeHash: string, now: number, maxAttempts: number): Promise<CodeCheck>
  /**
   * Writes a consistent copy of the ledger into the folder `dir` (created; it must not
   * hold a ledger yet), while servers go on writing: the copy is the ledger as of one
   * committed moment.
   */
  backup(dir: string): Promise<void>
  /** The newest `limit` entries, newest first. */
  entries(accountId: string, limit: number): Entry[]
  close(): Promise<void>
}
