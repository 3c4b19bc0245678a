import type { Account, AccountStatus, Entry, EntryType, Payment } from './types.js'

/**
 * Rows from PostgreSQL read into the ledger's records, each column checked for the type
 * it must have: a row that does not fit is a schema this code does not know, a bug, and
 * is thrown on rather than passed off as a record.
 */

export type Row = Readonly<Record<string, unknown>>

/** The columns of carmarket_accounts an Account is read from. */
export const ACCOUNT_COLUMNS = 'id, email, status, balance, granted, used, created, key_prefix, entries, key_delivered'
/** The columns of carmarket_entries an Entry is read from. */
export const ENTRY_COLUMNS =
  'id, time, type, credits, balance_after, endpoint, make, model, year, status, reference, count'

const ACCOUNT_STATUSES: readonly AccountStatus[] = ['active', 'disabled']
const ENTRY_TYPES: readonly EntryType[] = ['signup_bonus', 'grant', 'charge', 'failed_call', 'reversal']

export function accountOf(row: Row): Account {
  return {
    id: text(row, 'id'),
    email: text(row, 'email'),
    status: oneOf(row, 'status', ACCOUNT_STATUSES),
    balance: whole(row, 'balance'),
    granted: whole(row, 'granted'),
    used: whole(row, 'used'),
    created: instant(row, 'created'),
    key_prefix: text(row, 'key_prefix'),
    entries: whole(row, 'entries'),
    key_delivered: flag(row, 'key_delivered'),
  }
}

export function entryOf(row: Row): Entry {
  return {
    id: text(row, 'id'),
    time: instant(row, 'time'),
    type: oneOf(row, 'type', ENTRY_TYPES),
    credits: whole(row, 'credits'),
    balance_after: whole(row, 'balance_after'),
    endpoint: optional(row, 'endpoint', text),
    make: optional(row, 'make', text),
    model: optional(row, 'model', text),
    year: optional(row, 'year', number),
    status: text(row, 'status'),
    reference: optional(row, 'reference', text),
    count: whole(row, 'count'),
  }
}

export function text(row: Row, column: string): string {
  const value = row[column]
  if (typeof value !== 'string') throw misfit(column, 'text')
  return value
}

/** A whole number: an integer column, or a bigint one, which node-postgres gives as its decimal text. */
export function whole(row: Row, column: string): number {
  const value = row[column]
  const n = typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : value
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw misfit(column, 'a whole number')
  return n
}

/** A bigint[] or integer[] column of whole numbers (no nulls). */
export function wholes(row: Row, column: string): number[] {
  const value = row[column]
  if (!Array.isArray(value)) throw misfit(column, 'an array of whole numbers')
  return value.map((item: unknown) => whole({ item }, 'item'))
}

/** A boolean[] column (no nulls). */
export function flags(row: Row, column: string): boolean[] {
  const value = row[column]
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'boolean'))
    throw misfit(column, 'an array of booleans')
  return value as boolean[]
}

function number(row: Row, column: string): number {
  const value = row[column]
  if (typeof value !== 'number') throw misfit(column, 'a number')
  return value
}

function flag(row: Row, column: string): boolean {
  const value = row[column]
  if (typeof value !== 'boolean') throw misfit(column, 'a boolean')
  return value
}

/** A timestamptz, as ISO 8601 (node-postgres gives a Date, to the millisecond). */
export function instant(row: Row, column: string): string {
  const value = row[column]
  if (!(value instanceof Date)) throw misfit(column, 'a timestamp')
  return value.toISOString()
}

export function optional<T>(row: Row, column: string, read: (row: Row, column: string) => T): T | null {
  return row[column] === null ? null : read(row, column)
}

export function oneOf<T extends string>(row: Row, column: string, values: readonly T[]): T {
  const value = row[column]
  const found = values.find((v) => v === value)
  if (found === undefined) throw misfit(column, values.join(' or '))
  return found
}

function misfit(column: string, expected: string): Error {
  return new Error(`the ledger database gave a ${column} that is not ${expected}`)
}

/** The columns of carmarket_payments a Payment is read from. */
export const PAYMENT_COLUMNS =
  'session_id, payment_intent, account_id, credits, amount, currency, granted_at, refunded, disputed, reversed, unrecovered'

export function paymentOf(row: Row): Payment {
  return {
    session_id: text(row, 'session_id'),
    payment_intent: optional(row, 'payment_intent', text),
    account_id: text(row, 'account_id'),
    credits: whole(row, 'credits'),
    amount: whole(row, 'amount'),
    currency: text(row, 'currency'),
    granted_at: instant(row, 'granted_at'),
    refunded: whole(row, 'refunded'),
    disputed: whole(row, 'disputed'),
    reversed: whole(row, 'reversed'),
    unrecovered: whole(row, 'unrecovered'),
  }
}
