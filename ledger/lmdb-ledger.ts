import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { open, type Database, type RootDatabase } from 'lmdb'
import { keyHash, keyPrefix, newKey, sameHash } from './keys.js'
import type { Account, AccountStatus, Call, ChargeResult, CodeCheck, Entry, EntryType, Ledger, LedgerWrite } from './types.js'

export const LEDGER_FILE = 'ledger.mdb'

/** A ledger operation that cannot be done; `code` says which. */
export class LedgerError extends Error {
  override name = 'LedgerError'
  constructor(
    readonly code: 'email_taken' | 'unknown_account' | 'invalid_email' | 'invalid_credits' | 'backup_exists',
    message: string,
  ) {
    super(message)
  }
}

/** What is stored of an account: the public record and the hash of its current key. */
interface StoredAccount extends Account {
  readonly key_hash: string
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
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,}$/

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** Whether a normalized text has the shape of an e-mail address (the one check before a code is sent). */
export function isEmail(address: string): boolean {
  return EMAIL.test(address)
}

/**
 * The ledger in an LMDB environment of its own (`<ledger>/ledger.mdb`), shared safely by
 * several processes: every change is one write transaction, which LMDB serialises
 * across processes and lmdb-js batches with the others pending (many per commit, never
 * one awaited commit at a time). A transaction's promise resolves once committed, so
 * a charge acknowledged to a caller survives the process being killed; grants and new
 * accounts also wait for the flush to disk, so they survive a power cut.
 */
export class LmdbLedger implements Ledger {
  // Every keyed call hashes its key and looks up its account; the keys in use are few,
  // so both are kept (bounded: forgotten all at once when full). A key never changes
  // account, and revocation still takes effect at once: the account's current key hash
  // is compared on every call.
  private readonly known = new Map<string, KnownKey>()
  readonly commits: Record<LedgerWrite, number> = { account: 0, charge: 0, failed_call: 0, grant: 0, key: 0, status: 0, code: 0 }

  private constructor(
    private readonly root: RootDatabase,
    private readonly accounts: Database<StoredAccount, string>,
    private readonly emails: Database<string, string>,
    private readonly keys: Database<StoredKey, string>,
    private readonly history: Database<Entry, [string, number]>,
    private readonly codes: Database<StoredCode, string>,
  ) {}

  static open(dir: string): LmdbLedger {
    const root = open({ path: join(dir, LEDGER_FILE), maxDbs: 8 })
    return new LmdbLedger(
      root,
      root.openDB<StoredAccount, string>(records('accounts')),
      root.openDB<string, string>({ name: 'emails' }),
      root.openDB<StoredKey, string>(records('keys')),
      root.openDB<Entry, [string, number]>(records('entries')),
      root.openDB<StoredCode, string>(records('codes')),
    )
  }

  async createAccount(email: string, credits: number, type: 'signup_bonus' | 'grant', reference: string | null) {
    const address = normalizeEmail(email)
    if (!isEmail(address)) throw new LedgerError('invalid_email', `not an e-mail address: ${JSON.stringify(email.slice(0, 100))}`)
    if (!Number.isSafeInteger(credits) || credits < 0) throw new LedgerError('invalid_credits', 'credits must be a whole number of at least 0')
    const key = newKey()
    const hash = keyHash(key)
    const id = `acc_${randomBytes(9).toString('base64url')}`
    const created = new Date().toISOString()
    const account = await this.commit('account', (): StoredAccount | undefined => {
      if (this.emails.get(address) !== undefined) return undefined
      const first: StoredAccount = { id, email: address, status: 'active', balance: credits, granted: credits, used: 0, created, key_prefix: keyPrefix(key), entries: 1, key_hash: hash }
      void this.accounts.put(id, first)
      void this.emails.put(address, id)
      void this.keys.put(hash, { account: id, hash })
      void this.history.put([id, 0], entry(`${id}-0`, type, credits, credits, null, 'success', reference))
      return first
    })
    if (account === undefined) throw new LedgerError('email_taken', `an account for ${address} exists already`)
    await this.root.flushed
    return { account: publicAccount(account), key }
  }

  authenticate(key: string): Account | undefined {
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

  account(id: string): Account | undefined {
    const account = this.accounts.get(id)
    return account === undefined ? undefined : publicAccount(account)
  }

  accountByEmail(email: string): Account | undefined {
    const id = this.emails.get(normalizeEmail(email))
    return id === undefined ? undefined : this.account(id)
  }

  charge(accountId: string, credits: number, call: Call): Promise<ChargeResult> {
    return this.commit('charge', (): ChargeResult => {
      const account = this.accounts.get(accountId)
      if (account === undefined) return { ok: false, reason: 'unknown_account', balance: 0 }
      if (account.status !== 'active') return { ok: false, reason: 'disabled', balance: account.balance }
      if (account.balance < credits) return { ok: false, reason: 'insufficient_credits', balance: account.balance }
      const balance = account.balance - credits
      const line = entry(`${accountId}-${account.entries}`, 'charge', -credits, balance, call, 'success', null)
      void this.accounts.put(accountId, { ...account, balance, used: account.used + credits, entries: account.entries + 1 })
      void this.history.put([accountId, account.entries], line)
      return { ok: true, balance, entry: line }
    })
  }

  async recordFailure(accountId: string, call: Call, code: string): Promise<void> {
    await this.commit('failed_call', () => {
      const account = this.accounts.get(accountId)
      if (account === undefined) return
      void this.accounts.put(accountId, { ...account, entries: account.entries + 1 })
      void this.history.put([accountId, account.entries], entry(`${accountId}-${account.entries}`, 'failed_call', 0, account.balance, call, code, null))
    })
  }

  async grant(accountId: string, credits: number, reference: string): Promise<Entry> {
    if (!Number.isSafeInteger(credits) || credits <= 0) throw new LedgerError('invalid_credits', 'credits must be a whole number of at least 1')
    const line = await this.commit('grant', (): Entry | undefined => {
      const account = this.accounts.get(accountId)
      if (account === undefined) return undefined
      const balance = account.balance + credits
      const granted = entry(`${accountId}-${account.entries}`, 'grant', credits, balance, null, 'success', reference)
      void this.accounts.put(accountId, { ...account, balance, granted: account.granted + credits, entries: account.entries + 1 })
      void this.history.put([accountId, account.entries], granted)
      return granted
    })
    if (line === undefined) throw new LedgerError('unknown_account', `no account ${accountId}`)
    await this.root.flushed
    return line
  }

  async issueKey(accountId: string): Promise<string> {
    const key = newKey()
    const hash = keyHash(key)
    const done = await this.commit('key', () => {
      const account = this.accounts.get(accountId)
      if (account === undefined) return false
      void this.keys.remove(account.key_hash)
      void this.keys.put(hash, { account: accountId, hash })
      void this.accounts.put(accountId, { ...account, key_hash: hash, key_prefix: keyPrefix(key) })
      return true
    })
    if (!done) throw new LedgerError('unknown_account', `no account ${accountId}`)
    await this.root.flushed
    return key
  }

  async setStatus(accountId: string, status: AccountStatus): Promise<Account> {
    const account = await this.commit('status', () => {
      const found = this.accounts.get(accountId)
      if (found === undefined) return undefined
      const changed = { ...found, status }
      void this.accounts.put(accountId, changed)
      return changed
    })
    if (account === undefined) throw new LedgerError('unknown_account', `no account ${accountId}`)
    await this.root.flushed
    return publicAccount(account)
  }

  async putCode(email: string, codeHash: string, expires: number): Promise<void> {
    await this.commit('code', () => void this.codes.put(normalizeEmail(email), { hash: codeHash, expires, attempts: 0 }))
  }

  checkCode(email: string, codeHash: string, now: number, maxAttempts: number): Promise<CodeCheck> {
    const address = normalizeEmail(email)
    return this.commit('code', (): CodeCheck => {
      const code = this.codes.get(address)
      if (code === undefined) return 'none'
      if (code.expires <= now) {
        void this.codes.remove(address)
        return 'expired'
      }
      if (sameHash(code.hash, codeHash)) {
        void this.codes.remove(address)
        return 'ok'
      }
      if (code.attempts + 1 >= maxAttempts) {
        void this.codes.remove(address)
        return 'exhausted'
      }
      void this.codes.put(address, { ...code, attempts: code.attempts + 1 })
      return 'wrong'
    })
  }

  /** One write transaction, counted once committed. */
  private async commit<T>(kind: LedgerWrite, work: () => T): Promise<T> {
    const result = await this.root.transaction(work)
    this.commits[kind]++
    return result
  }

  async backup(dir: string): Promise<void> {
    mkdirSync(dir, { recursive: true })
    const file = join(dir, LEDGER_FILE)
    if (existsSync(file)) throw new LedgerError('backup_exists', `${file} exists already; back up into a new folder`)
    // LMDB copies from one read transaction, so writers are never blocked and the copy
    // is one committed state; it is written under a temporary name so a copy cut short
    // (a full disk, a kill) never looks like a backup.
    const partial = join(dir, `.${LEDGER_FILE}.partial`)
    rmSync(partial, { force: true })
    await this.root.backup(partial, false)
    renameSync(partial, file)
  }

  entries(accountId: string, limit: number): Entry[] {
    const account = this.accounts.get(accountId)
    if (account === undefined) return []
    return [...this.history.getRange({ start: [accountId, account.entries], end: [accountId, -1], reverse: true, limit }).map(({ value }) => value)]
  }

  close(): Promise<void> {
    return this.root.close()
  }
}

/**
 * A database of records of one shape: the shape is stored once in the database (lmdb-js
 * keeps it consistent across processes) instead of in every value, which halves the
 * time to read an account on every keyed call.
 */
function records(name: string) {
  return { name, sharedStructuresKey: Symbol.for('structures') }
}

function publicAccount({ key_hash: _hash, ...account }: StoredAccount): Account {
  return account
}

function entry(id: string, type: EntryType, credits: number, balanceAfter: number, call: Call | null, status: string, reference: string | null): Entry {
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
  }
}
