import { randomBytes } from 'node:crypto'
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { open, type Database, type Key, type RootDatabase } from 'lmdb'
import { keyHash, keyPrefix, newKey, sameHash } from './keys.js'
import { LedgerError } from './ledger-error.js'
import { whole } from './lmdb-databases.js'
import { LmdbMailQueue } from './lmdb-mail-queue.js'
import { LmdbPayments } from './lmdb-payments.js'
import { LmdbSessions } from './lmdb-sessions.js'
import { LmdbWrites } from './lmdb-writes.js'
import { parseEmail } from './mailbox.js'
import { privateDir, privateFiles } from './private-files.js'
import { FAILED_CALL_ENTRIES_PER_DAY, IDEMPOTENCY, alwaysWanted } from './types.js'
import type {
  Account,
  AccountStatus,
  Call,
  Charges,
  ChargesResult,
  CodeCheck,
  DebitOutcome,
  Entry,
  EntryType,
  IdempotencyStart,
  IdempotentCall,
  Ledger,
  LedgerContents,
  LedgerWrite,
  StoredAnswer,
  WriteHealth,
} from './types.js'

export const LEDGER_FILE = 'ledger.mdb'
const DAY_MS = 86_400_000
/**
 * The ledger's layout, upgraded in place when a ledger is opened: 2 keys `emails` by
 * mailbox (ledger/mailbox.ts), where 1 keyed it by the address trimmed and lower-cased;
 * 3 keeps every record whole in its own value (RECORD_DATABASES), where 1 and 2 wrote
 * records against shapes stored once per database.
 */
const LAYOUT = 3

/**
 * The databases of records, each under its name since layout 3 and under the name of
 * layouts 1 and 2. Those wrote a record against a shape (msgpackr's shared structures)
 * stored once in its database, learnt by the writing process as it wrote: a commit that
 * failed on a full disk lost the shape but not the process's memory of it, and the
 * process's later records referred to a shape no other process could read (the account
 * unreadable everywhere). A record that carries its own keys is readable by any process
 * whatever commits failed; reading one costs about a microsecond more.
 */
const RECORD_DATABASES = {
  accounts: ['account_records', 'accounts'],
  keys: ['key_records', 'keys'],
  history: ['entry_records', 'entries'],
  codes: ['code_records', 'codes'],
  keyUses: ['key_use_records', 'idempotency'],
} as const

/** What is stored of an account beyond its public record. */
interface StoredAccount extends Omit<Account, 'key_delivered'> {
  readonly key_hash: string
  /** Absent on accounts older than the field: their keys were delivered. */
  readonly key_delivered?: boolean
  /**
   * The account's failure entries of its latest day with failures: the day, how many, and the newest one's sequence
   * number.
   */
  readonly failures?: { readonly day: number; readonly entries: number; readonly last: number }
  /** The account's Idempotency-Keys: the next one's sequence number, and how many are kept. */
  readonly idempotency?: { readonly next: number; readonly count: number }
}
/** An Idempotency-Key of an account: held by a call in flight (`token`, until `lease`), or answered (`answer`). */
interface StoredKeyUse {
  /** The key's place among the account's keys, oldest first (database `idempotency_order`). */
  readonly seq: number
  readonly fingerprint: string
  /** When the key was first used (ms since the epoch); it is kept IDEMPOTENCY.ttlMs from then. */
  readonly created: number
  readonly token?: string
  readonly lease?: number
  readonly answer?: StoredAnswer
}
interface StoredCode {
  readonly hash: string
  readonly expires: number
  readonly attempts: number
}
interface KnownKey {
  readonly hash: string
  readonly account: string
}
interface StoredKey {
  readonly account: string
  readonly hash: string
}

const KNOWN_KEYS_KEPT = 10_000
/** Expired keys a sweep removes in one transaction. */
const SWEEP_BATCH = 1_000

/**
 * The ledger in an LMDB environment of its own (`<ledger>/ledger.mdb`), shared safely by
 * several processes: every change is one write transaction, which LMDB serialises
 * across processes and lmdb-js batches with the others pending (many per commit, never
 * one awaited commit at a time). A transaction's promise resolves once committed and on
 * disk, so a charge acknowledged to a caller survives the process being killed and a
 * power cut.
 *
 * Commits sync inside the write lock (overlappingSync off): with lmdb-js's overlapping
 * sync, a process killed while it held the separate sync lock left every other process
 * sharing the file with a fatal MDB_PANIC. Measured with concurrent debits, the inline
 * sync costs nothing, since each commit carries a batch of transactions.
 */
export class LmdbLedger implements Ledger {
  // Every keyed call hashes its key and looks up its account; the keys in use are few,
  // so both are kept (bounded: forgotten all at once when full). A key never changes
  // account, and revocation still takes effect at once: the account's current key hash
  // is compared on every call.
  private readonly known = new Map<string, KnownKey>()
  private readonly writes: LmdbWrites
  readonly mail: LmdbMailQueue
  readonly payments: LmdbPayments<StoredAccount>
  readonly sessions: LmdbSessions
  readonly commits: Record<LedgerWrite, number> = {
    account: 0,
    charge: 0,
    failed_call: 0,
    grant: 0,
    key: 0,
    status: 0,
    code: 0,
    idempotency: 0,
    mail: 0,
    payment: 0,
    session: 0,
  }

  private constructor(
    private readonly dir: string,
    private readonly root: RootDatabase,
    private readonly meta: Database<number, string>,
    private readonly accounts: Database<StoredAccount, string>,
    private readonly emails: Database<string, string>,
    private readonly keys: Database<StoredKey, string>,
    private readonly history: Database<Entry, [string, number]>,
    private readonly codes: Database<StoredCode, string>,
    private readonly keyUses: Database<StoredKeyUse, [string, string]>,
    /** Each account's keys in the order of their first use: [account, seq] to the key. */
    private readonly keyOrder: Database<string, [string, number]>,
  ) {
    this.writes = new LmdbWrites('the ledger', root)
    this.mail = new LmdbMailQueue(root, (work) => this.commit('mail', work))
    this.sessions = new LmdbSessions(
      root,
      (id) => {
        const account = this.accounts.get(id)
        return account === undefined ? undefined : publicAccount(account)
      },
      (work) => this.commit('session', work),
    )
    this.payments = new LmdbPayments(root, {
      commit: (work) => this.commit('payment', work),
      account: (id) => this.accounts.get(id),
      accountOfMailbox: (mailbox) => {
        const id = this.emails.get(mailbox)
        return id === undefined ? undefined : this.accounts.get(id)
      },
      open: (parsed, key, credits, reference) => this.openAccountNow(parsed, key, credits, 'grant', reference, false),
      add: (account, type, credits, reference) => this.addEntryNow(account, type, credits, reference),
      publicAccount,
      entries: (id) => [...this.history.getRange({ start: [id, 0], end: [id, Infinity] }).map(({ value }) => value)],
    })
  }

  static open(dir: string): LmdbLedger {
    privateDir(dir)
    const root = open({ path: join(dir, LEDGER_FILE), maxDbs: 24, overlappingSync: false })
    privateFiles(dir)
    const ledger = new LmdbLedger(
      dir,
      root,
      root.openDB<number, string>({ name: 'meta' }),
      root.openDB<StoredAccount, string>(whole(RECORD_DATABASES.accounts[0])),
      root.openDB<string, string>({ name: 'emails' }),
      root.openDB<StoredKey, string>(whole(RECORD_DATABASES.keys[0])),
      root.openDB<Entry, [string, number]>(whole(RECORD_DATABASES.history[0])),
      root.openDB<StoredCode, string>(whole(RECORD_DATABASES.codes[0])),
      root.openDB<StoredKeyUse, [string, string]>(whole(RECORD_DATABASES.keyUses[0])),
      root.openDB<string, [string, number]>({ name: 'idempotency_order' }),
    )
    ledger.upgrade()
    return ledger
  }

  /** Brings a ledger of an earlier layout to this one, once, in one transaction. */
  private upgrade(): void {
    const layout = () => this.meta.get('layout') ?? 1
    if (layout() >= LAYOUT) return
    const earlier = Object.fromEntries(
      Object.entries(RECORD_DATABASES).map(([field, [, name]]) => [field, this.root.openDB(shaped(name))]),
    ) as Record<keyof typeof RECORD_DATABASES, Database<unknown, Key>>
    this.root.transactionSync(() => {
      if (layout() >= LAYOUT) return
      // Layout 3: every record rewritten whole, the databases of shaped records dropped.
      for (const [field, from] of Object.entries(earlier) as [keyof typeof RECORD_DATABASES, Database][]) {
        const to = this[field] as Database<unknown, Key>
        for (const { key, value } of from.getRange()) void to.put(key, value)
        from.dropSync()
      }
      if (layout() < 2) this.keyByMailbox()
      void this.meta.put('layout', LAYOUT)
    })
  }

  /** Layout 2: `emails` keyed by mailbox. */
  private keyByMailbox(): void {
    for (const key of [...this.emails.getKeys()]) void this.emails.remove(key)
    // The oldest account of a mailbox keeps it; later ones stay usable by their keys.
    const oldestFirst = [...this.accounts.getRange()]
      .map(({ value }) => value)
      .sort((a, b) => a.created.localeCompare(b.created))
    for (const account of oldestFirst) {
      const parsed = parseEmail(account.email)
      const mailbox = parsed.ok ? parsed.mailbox : account.email
      if (this.emails.get(mailbox) === undefined) void this.emails.put(mailbox, account.id)
    }
    // Codes were kept by address; they last minutes, so they are simply asked for again.
    for (const key of [...this.codes.getKeys()]) void this.codes.remove(key)
  }

  get health(): WriteHealth {
    return this.writes
  }

  async probe(): Promise<void> {
    await this.writes.probe(this.dir, () => this.root.transaction(() => void this.meta.put('probe', Date.now())))
  }

  async createAccount(
    email: string,
    credits: number,
    type: 'signup_bonus' | 'grant',
    reference: string | null,
    keyDelivered = true,
  ) {
    const parsed = parseEmail(email)
    if (!parsed.ok) throw new LedgerError('invalid_email', parsed.message)
    if (!Number.isSafeInteger(credits) || credits < 0)
      throw new LedgerError('invalid_credits', 'credits must be a whole number of at least 0')
    const key = newKey()
    const account = await this.commit('account', () =>
      this.emails.get(parsed.mailbox) === undefined
        ? this.openAccountNow(parsed, key, credits, type, reference, keyDelivered)
        : undefined,
    )
    if (account === undefined) throw new LedgerError('email_taken', `an account for ${parsed.address} exists already`)
    return { account: publicAccount(account), key }
  }

  /** Writes a new account of a mailbox that has none, its key and its first entry, in the transaction under way. */
  private openAccountNow(
    parsed: { readonly address: string; readonly mailbox: string },
    key: string,
    credits: number,
    type: 'signup_bonus' | 'grant',
    reference: string | null,
    keyDelivered: boolean,
  ): StoredAccount {
    const hash = keyHash(key)
    const id = `acc_${randomBytes(9).toString('base64url')}`
    const first: StoredAccount = {
      id,
      email: parsed.address,
      status: 'active',
      balance: credits,
      granted: credits,
      used: 0,
      created: new Date().toISOString(),
      key_prefix: keyPrefix(key),
      entries: 1,
      key_hash: hash,
      key_delivered: keyDelivered,
    }
    void this.accounts.put(id, first)
    void this.emails.put(parsed.mailbox, id)
    void this.keys.put(hash, { account: id, hash })
    void this.history.put([id, 0], entry(`${id}-0`, type, credits, credits, null, 'success', reference))
    return first
  }

  // Reads are synchronous in LMDB (a look-up in the mapped file); the interface's promises
  // are for engines across a network.
  async authenticate(key: string): Promise<Account | undefined> {
    let known = this.known.get(key)
    if (known === undefined) {
      const hash = keyHash(key)
      const stored = this.keys.get(hash)
      if (stored === undefined || !sameHash(stored.hash, hash)) return undefined
      if (this.known.size >= KNOWN_KEYS_KEPT) this.known.clear()
      known = { hash, account: stored.account }
      this.known.set(key, known)
    }
    const account = this.accounts.get(known.account)
    return account === undefined || !sameHash(account.key_hash, known.hash) ? undefined : publicAccount(account)
  }

  async account(id: string): Promise<Account | undefined> {
    const account = this.accounts.get(id)
    return account === undefined ? undefined : publicAccount(account)
  }

  async accountByEmail(email: string): Promise<Account | undefined> {
    const parsed = parseEmail(email)
    const id = parsed.ok ? this.emails.get(parsed.mailbox) : undefined
    return id === undefined ? undefined : this.account(id)
  }

  chargeAll(accountId: string, charges: Charges): Promise<ChargesResult> {
    const now = Date.now()
    return this.commit('charge', (): ChargesResult => {
      let account = this.accounts.get(accountId)
      if (account === undefined) return { ok: false, reason: 'unknown_account', balance: 0 }
      if (account.status !== 'active') return { ok: false, reason: 'disabled', balance: account.balance }
      const { remember } = charges
      const use = remember === undefined ? undefined : this.liveUse(accountId, remember.key, now)
      if (remember !== undefined && use?.answer !== undefined)
        return use.fingerprint === remember.fingerprint
          ? { ok: false, reason: 'replayed', answer: use.answer }
          : { ok: false, reason: 'reused' }
      // A request that could pay for nothing is refused for that, wanted or not, as a charge that is looked at.
      const before = account.balance
      const affordable = charges.debits.some((debit) => debit.credits <= before)
      if (affordable && !(charges.wanted ?? alwaysWanted)())
        return { ok: false, reason: 'not_wanted', balance: account.balance }
      const outcomes: DebitOutcome[] = []
      for (const { credits, call } of charges.debits) {
        if (account.balance < credits) {
          outcomes.push({ charged: false, balance: account.balance })
          continue
        }
        const balance: number = account.balance - credits
        const line = entry(`${accountId}-${account.entries}`, 'charge', -credits, balance, call, 'success', null)
        void this.history.put([accountId, account.entries], line)
        account = { ...account, balance, used: account.used + credits, entries: account.entries + 1 }
        outcomes.push({ charged: true, balance, entry: line })
      }
      const day = Math.floor(now / DAY_MS)
      for (const { call, code } of charges.failures ?? []) account = this.failed(account, call, code, day)
      if (remember !== undefined) {
        if (outcomes.some((o) => o.charged)) {
          const answer = {
            parts: remember.parts,
            outcomes: outcomes.map(({ charged, balance }) => ({ charged, balance })),
          }
          account = this.keepUse(account, remember, use, now, { answer })
        } else if (use !== undefined && use.token === remember.token) {
          // Nothing charged, nothing kept: a retry runs again.
          account = this.dropUse(account, remember.key, use)
        }
      }
      void this.accounts.put(accountId, account)
      return { ok: true, outcomes, balance: account.balance }
    })
  }

  async recordFailure(accountId: string, call: Call, code: string): Promise<void> {
    const day = Math.floor(Date.now() / DAY_MS)
    await this.commit('failed_call', () => {
      const account = this.accounts.get(accountId)
      if (account !== undefined) void this.accounts.put(accountId, this.failed(account, call, code, day))
    })
  }

  /**
   * A failed call's entry written (or counted on an earlier one, see Entry.count), inside a write transaction: the
   * account as it is afterwards, for the caller to put.
   */
  private failed(account: StoredAccount, call: Call, code: string, day: number): StoredAccount {
    const today = account.failures?.day === day ? account.failures : undefined
    if (today !== undefined) {
      const last = this.history.get([account.id, today.last])
      // The same failure again right after it, or any failure once the day's entries are spent: counted, not stored
      // again.
      const again = last !== undefined && today.last === account.entries - 1 && sameFailure(last, call, code)
      if (last !== undefined && (again || today.entries >= FAILED_CALL_ENTRIES_PER_DAY)) {
        void this.history.put([account.id, today.last], { ...last, count: (last.count ?? 1) + 1 })
        return account
      }
    }
    void this.history.put(
      [account.id, account.entries],
      entry(`${account.id}-${account.entries}`, 'failed_call', 0, account.balance, call, code, null),
    )
    const failures = { day, entries: (today?.entries ?? 0) + 1, last: account.entries }
    return { ...account, entries: account.entries + 1, failures }
  }

  async startIdempotent(accountId: string, call: IdempotentCall): Promise<IdempotencyStart> {
    const now = Date.now()
    // A key answered or held already is told from a read, without a write transaction: a retry costs no commit.
    const seen = this.usedBefore(this.liveUse(accountId, call.key, now), call, now)
    if (seen !== undefined) return seen
    const token = randomBytes(12).toString('base64url')
    return this.commit('idempotency', (): IdempotencyStart => {
      const use = this.liveUse(accountId, call.key, now)
      const before = this.usedBefore(use, call, now)
      if (before !== undefined) return before
      const account = this.accounts.get(accountId)
      if (account === undefined) throw new LedgerError('unknown_account', `no account ${accountId}`)
      const held = { token, lease: now + IDEMPOTENCY.leaseMs }
      void this.accounts.put(accountId, this.keepUse(account, { ...call, ...held }, use, now, held))
      return { state: 'started', token }
    })
  }

  /** What a live use of a key answers a call that would take it up: undefined when the call may (none, or a lease run out). */
  private usedBefore(use: StoredKeyUse | undefined, call: IdempotentCall, now: number): IdempotencyStart | undefined {
    if (use?.answer !== undefined)
      return use.fingerprint === call.fingerprint ? { state: 'done', answer: use.answer } : { state: 'reused' }
    if (use !== undefined && (use.lease ?? 0) > now)
      return { state: use.fingerprint === call.fingerprint ? 'in_flight' : 'reused' }
    return undefined
  }

  async abandonIdempotent(accountId: string, key: string, token: string): Promise<void> {
    await this.commit('idempotency', () => {
      const use = this.keyUses.get([accountId, key])
      const account = this.accounts.get(accountId)
      if (use === undefined || use.answer !== undefined || use.token !== token || account === undefined) return
      void this.accounts.put(accountId, this.dropUse(account, key, use))
    })
  }

  /** The account's use of a key, unless its 24 hours are over (an expired one is as good as none). */
  private liveUse(accountId: string, key: string, now: number): StoredKeyUse | undefined {
    const use = this.keyUses.get([accountId, key])
    return use !== undefined && use.created + IDEMPOTENCY.ttlMs > now ? use : undefined
  }

  /**
   * Writes a key's use, in flight (`state` a token and lease) or answered: over a live use, in its place; else as
   * the account's newest key (an expired use of the same key replaced), the oldest forgotten past
   * IDEMPOTENCY.keysPerAccount. The account as it is afterwards, for the caller to put.
   */
  private keepUse(
    account: StoredAccount,
    call: IdempotentCall,
    live: StoredKeyUse | undefined,
    now: number,
    state: Pick<StoredKeyUse, 'token' | 'lease' | 'answer'>,
  ): StoredAccount {
    if (live !== undefined) {
      void this.keyUses.put([account.id, call.key], {
        seq: live.seq,
        fingerprint: call.fingerprint,
        created: live.created,
        ...state,
      })
      return account
    }
    const expired = this.keyUses.get([account.id, call.key])
    if (expired !== undefined) account = this.dropUse(account, call.key, expired)
    let { next, count } = account.idempotency ?? { next: 0, count: 0 }
    if (count >= IDEMPOTENCY.keysPerAccount) {
      const oldest = [
        ...this.keyOrder.getRange({
          start: [account.id, 0],
          end: [account.id, next],
          limit: count + 1 - IDEMPOTENCY.keysPerAccount,
        }),
      ]
      for (const {
        key: [, seq],
        value: key,
      } of oldest) {
        void this.keyUses.remove([account.id, key])
        void this.keyOrder.remove([account.id, seq])
        count--
      }
    }
    void this.keyUses.put([account.id, call.key], { seq: next, fingerprint: call.fingerprint, created: now, ...state })
    void this.keyOrder.put([account.id, next], call.key)
    return { ...account, idempotency: { next: next + 1, count: count + 1 } }
  }

  /** Removes a key's use; the account as it is afterwards, for the caller to put. */
  private dropUse(account: StoredAccount, key: string, use: StoredKeyUse): StoredAccount {
    void this.keyUses.remove([account.id, key])
    void this.keyOrder.remove([account.id, use.seq])
    const kept = account.idempotency
    return kept === undefined ? account : { ...account, idempotency: { next: kept.next, count: kept.count - 1 } }
  }

  async sweep(now: number): Promise<void> {
    await this.sessions.sweep(now)
    // Found outside the write transaction (reads do not block writers), removed inside it, each checked again there.
    const old: [account: string, key: string][] = []
    for (const { key: id, value: account } of this.accounts.getRange()) {
      if ((account.idempotency?.count ?? 0) === 0) continue
      for (const { value: key } of this.keyOrder.getRange({ start: [id, 0], end: [id, Number.MAX_SAFE_INTEGER] })) {
        const use = this.keyUses.get([id, key])
        if (use !== undefined && use.created + IDEMPOTENCY.ttlMs > now) break
        old.push([id, key])
      }
    }
    // In bounded transactions: a long one would hold every caller's debit behind it.
    for (let from = 0; from < old.length; from += SWEEP_BATCH)
      await this.commit('idempotency', () => {
        for (const [id, key] of old.slice(from, from + SWEEP_BATCH)) {
          const use = this.keyUses.get([id, key])
          const account = this.accounts.get(id)
          if (use === undefined || account === undefined || use.created + IDEMPOTENCY.ttlMs > now) continue
          void this.accounts.put(id, this.dropUse(account, key, use))
        }
      })
  }

  async grant(accountId: string, credits: number, reference: string): Promise<Entry> {
    if (!Number.isSafeInteger(credits) || credits <= 0)
      throw new LedgerError('invalid_credits', 'credits must be a whole number of at least 1')
    const line = await this.commit('grant', (): Entry | undefined => {
      const account = this.accounts.get(accountId)
      return account === undefined ? undefined : this.addEntryNow(account, 'grant', credits, reference).line
    })
    if (line === undefined) throw new LedgerError('unknown_account', `no account ${accountId}`)
    return line
  }

  /**
   * Appends a grant (credits > 0) or a reversal (credits < 0, never past the balance) to an account, in the
   * transaction under way; the account as it is after.
   */
  private addEntryNow(
    account: StoredAccount,
    type: 'grant' | 'reversal',
    credits: number,
    reference: string,
  ): { readonly account: StoredAccount; readonly line: Entry } {
    const balance = account.balance + credits
    const line = entry(`${account.id}-${account.entries}`, type, credits, balance, null, 'success', reference)
    const after: StoredAccount = {
      ...account,
      balance,
      // Net of what was taken back, so that balance = granted - used holds.
      granted: account.granted + credits,
      entries: account.entries + 1,
    }
    void this.accounts.put(account.id, after)
    void this.history.put([account.id, account.entries], line)
    return { account: after, line }
  }

  async issueKey(accountId: string, delivered = true, key = newKey()): Promise<string> {
    const hash = keyHash(key)
    await this.update('key', accountId, (account) => {
      void this.keys.remove(account.key_hash)
      void this.keys.put(hash, { account: accountId, hash })
      return { ...account, key_hash: hash, key_prefix: keyPrefix(key), key_delivered: delivered }
    })
    return key
  }

  async keyDelivered(accountId: string): Promise<void> {
    await this.update('key', accountId, (account) => ({ ...account, key_delivered: true }))
  }

  async setStatus(accountId: string, status: AccountStatus): Promise<Account> {
    return publicAccount(await this.update('status', accountId, (account) => ({ ...account, status })))
  }

  /** Changes an account in one transaction; `unknown_account` when there is none. */
  private async update(
    kind: LedgerWrite,
    accountId: string,
    change: (account: StoredAccount) => StoredAccount,
  ): Promise<StoredAccount> {
    const changed = await this.commit(kind, () => {
      const found = this.accounts.get(accountId)
      if (found === undefined) return undefined
      const next = change(found)
      void this.accounts.put(accountId, next)
      return next
    })
    if (changed === undefined) throw new LedgerError('unknown_account', `no account ${accountId}`)
    return changed
  }

  async putCode(mailbox: string, codeHash: string, expires: number): Promise<void> {
    await this.commit('code', () => void this.codes.put(mailbox, { hash: codeHash, expires, attempts: 0 }))
  }

  checkCode(mailbox: string, codeHash: string, now: number, maxAttempts: number): Promise<CodeCheck> {
    return this.commit('code', (): CodeCheck => {
      const code = this.codes.get(mailbox)
      if (code === undefined) return 'none'
      if (code.expires <= now) {
        void this.codes.remove(mailbox)
        return 'expired'
      }
      if (sameHash(code.hash, codeHash)) {
        void this.codes.remove(mailbox)
        return 'ok'
      }
      if (code.attempts + 1 >= maxAttempts) {
        void this.codes.remove(mailbox)
        return 'exhausted'
      }
      void this.codes.put(mailbox, { ...code, attempts: code.attempts + 1 })
      return 'wrong'
    })
  }

  /** One write transaction, counted once committed; a commit that fails is `unavailable`. */
  private async commit<T>(kind: LedgerWrite, work: () => T): Promise<T> {
    const result = await this.writes.commit(() => this.root.transaction(work))
    this.commits[kind]++
    return result
  }

  async backup(dir: string): Promise<void> {
    privateDir(dir)
    const file = join(dir, LEDGER_FILE)
    if (existsSync(file)) throw new LedgerError('backup_exists', `${file} exists already; back up into a new folder`)
    // LMDB copies from one read transaction, so writers are never blocked and the copy
    // is one committed state; it is written under a temporary name so a copy cut short
    // (a full disk, a kill) never looks like a backup.
    const partial = join(dir, `.${LEDGER_FILE}.partial`)
    rmSync(partial, { force: true })
    try {
      await this.root.backup(partial, false)
      privateFiles(dir)
      renameSync(partial, file)
    } catch (error) {
      rmSync(partial, { force: true })
      throw error
    }
  }

  async entries(accountId: string, limit: number): Promise<Entry[]> {
    const account = this.accounts.get(accountId)
    if (account === undefined) return []
    return [
      ...this.history
        .getRange({ start: [accountId, account.entries], end: [accountId, -1], reverse: true, limit })
        .map(({ value }) => withCount(value)),
    ]
  }

  /** Every account, its key and entries, and the payments granted: read from one moment of the ledger. */
  async contents(): Promise<LedgerContents> {
    const stored = [...this.accounts.getRange()].map(({ value }) => value)
    return {
      accounts: new Map(stored.map((a) => [a.id, publicAccount(a)])),
      keys: new Map(stored.map((a) => [a.id, a.key_hash])),
      entriesFrom: (id, from) => [
        ...this.history.getRange({ start: [id, from], end: [id, Infinity] }).map(({ value }) => withCount(value)),
      ],
      payments: new Set((await this.payments.list('', '\uffff')).map((p) => p.session_id)),
    }
  }

  /** Other processes that have the ledger open (a server among them): those LMDB holds a reader slot for. */
  otherProcesses(): number[] {
    // Slots of processes that have ended are freed first: a killed server does not count.
    this.root.readerCheck()
    const pids = this.root
      .readerList()
      .split('\n')
      .map((line) => Number(/^\s*(\d+)\s/.exec(line)?.[1]))
      .filter((pid) => Number.isInteger(pid) && pid !== process.pid)
    return [...new Set(pids)]
  }

  close(): Promise<void> {
    // lmdb-js would wait for the writes a broken environment never settles; the process is ending.
    return this.writes.broken ? Promise.resolve() : this.root.close()
  }
}

/** A database of records of layouts 1 and 2: their shapes stored once in the database, read to upgrade it. */
function shaped(name: string) {
  return { name, sharedStructuresKey: Symbol.for('structures') }
}

/**
 * The public record, field by field: every keyed call makes one, and a literal of one shape is the cheapest to make.
 */
function publicAccount(a: StoredAccount): Account {
  return {
    id: a.id,
    email: a.email,
    status: a.status,
    balance: a.balance,
    granted: a.granted,
    used: a.used,
    created: a.created,
    key_prefix: a.key_prefix,
    entries: a.entries,
    key_delivered: a.key_delivered ?? true,
  }
}

/** Entries written before entries had a count stand for one call. */
function withCount(stored: Entry): Entry {
  return stored.count === undefined ? { ...stored, count: 1 } : stored
}

function sameFailure(last: Entry, call: Call, code: string): boolean {
  return (
    last.type === 'failed_call' &&
    last.status === code &&
    last.endpoint === call.endpoint &&
    last.make === call.make &&
    last.model === call.model &&
    last.year === call.year
  )
}

function entry(
  id: string,
  type: EntryType,
  credits: number,
  balanceAfter: number,
  call: Call | null,
  status: string,
  reference: string | null,
): Entry {
  return {
    id,
    time: new Date().toISOString(),
    type,
    credits,
    balance_after: balanceAfter,
    endpoint: call?.endpoint ?? null,
    make: call?.make ?? null,
    model: call?.model ?? null,
    year: call?.year ?? null,
    status,
    reference,
    count: 1,
  }
}
