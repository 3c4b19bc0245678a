import type { Entry, LedgerContents } from './types.js'

/** Entries of one kind a ledger holds and another lacks: how many, and their credits summed. */
export interface LackedEntries {
  readonly count: number
  readonly credits: number
}

/** What a restored ledger would lack of the current one: everything that happened after its backup was taken. */
export interface Lacks {
  /** Accounts opened since, by e-mail: they would be gone, and their keys refused. */
  readonly accounts: readonly string[]
  /** Accounts whose key was issued again since, by e-mail: the new key would be refused, the one before it taken. */
  readonly keys: readonly string[]
  /** Accounts whose status (active, disabled) changed since, by e-mail. */
  readonly statuses: readonly string[]
  /** Credits given since (grants, sign-up bonuses), which would be gone. */
  readonly grants: LackedEntries
  /** Credits spent since, which would be spendable again. */
  readonly charges: LackedEntries
  /** Credits taken back since for refunded or disputed payments, which would be back on the balances. */
  readonly reversals: LackedEntries
  /** Checkout Sessions granted since: paid for, and not granted in the restored ledger. */
  readonly payments: readonly string[]
}

/** Nothing lacking: a restored ledger equal to the current one (or the first). */
export function lacksNothing(lacks: Lacks): boolean {
  return (
    lacks.accounts.length === 0 &&
    lacks.keys.length === 0 &&
    lacks.statuses.length === 0 &&
    lacks.grants.count === 0 &&
    lacks.charges.count === 0 &&
    lacks.reversals.count === 0 &&
    lacks.payments.length === 0
  )
}

/**
 * What `restored` lacks of `current`. An account's entries are numbered in the order they
 * were written, so those of `current` past the count `restored` holds are the ones since
 * the backup; a new account's are all of them.
 */
export function lacking(current: LedgerContents, restored: LedgerContents): Lacks {
  const since: Entry[] = []
  const accounts: string[] = []
  const keys: string[] = []
  const statuses: string[] = []
  for (const account of current.accounts.values()) {
    const before = restored.accounts.get(account.id)
    if (before === undefined) {
      accounts.push(account.email)
      since.push(...current.entriesFrom(account.id, 0))
      continue
    }
    if (current.keys.get(account.id) !== restored.keys.get(account.id)) keys.push(account.email)
    if (account.status !== before.status) statuses.push(account.email)
    since.push(...current.entriesFrom(account.id, before.entries))
  }
  const sum = (keep: (entry: Entry) => boolean): LackedEntries => {
    const kept = since.filter(keep)
    return { count: kept.length, credits: Math.abs(kept.reduce((total, entry) => total + entry.credits, 0)) }
  }
  return {
    accounts,
    keys,
    statuses,
    grants: sum((e) => e.type === 'grant' || e.type === 'signup_bonus'),
    charges: sum((e) => e.type === 'charge'),
    reversals: sum((e) => e.type === 'reversal'),
    payments: [...current.payments].filter((session) => !restored.payments.has(session)),
  }
}
