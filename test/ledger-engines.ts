import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import type { Test } from 'tap'
import { openLedger } from '../cli/engines.js'
import { LEDGER_FILE } from '../ledger/lmdb-ledger.js'
import { migrate } from '../ledger/pg-schema.js'
import type { Call, Entry, Ledger } from '../ledger/types.js'
import { freshDatabase } from './services.js'
import { freshDir } from './support.js'

/** A storage engine of the ledger, as the tests that hold for every engine take it. */
export interface Engine {
  readonly name: 'lmdb' | 'postgresql'
  /** A new, empty ledger of the test's own, ready to be opened: its location, a folder or a URL. */
  fresh(t: Test): Promise<string>
  /** Everything the ledger at `location` keeps, as text, to look in for what must never be kept. */
  stored(location: string): Promise<string>
}

export const ENGINES: readonly Engine[] = [
  {
    name: 'lmdb',
    fresh: async (t) => freshDir(t),
    stored: async (dir) => readFileSync(join(dir, LEDGER_FILE)).toString('latin1'),
  },
  {
    name: 'postgresql',
    async fresh(t) {
      const url = await freshDatabase(t)
      await migrate(url)
      return url
    },
    stored: everyRow,
  },
]

/** What one debit charged alone came to: charged (its entry), or refused and why. */
export type ChargeResult =
  | { readonly ok: true; readonly balance: number; readonly entry: Entry }
  | {
      readonly ok: false
      readonly reason: 'insufficient_credits' | 'disabled' | 'unknown_account' | 'not_wanted'
      readonly balance: number
    }

/** One debit for `call`, alone in its request, as a single market call is charged. */
export async function charge(
  ledger: Ledger,
  accountId: string,
  credits: number,
  call: Call,
  wanted?: () => boolean,
): Promise<ChargeResult> {
  const result = await ledger.chargeAll(accountId, { debits: [{ credits, call }], wanted })
  if (!result.ok) {
    if (result.reason === 'replayed' || result.reason === 'reused')
      throw new Error(`a plain debit was ${result.reason}`)
    return result
  }
  const outcome = result.outcomes[0]!
  return outcome.charged
    ? { ok: true, balance: outcome.balance, entry: outcome.entry }
    : { ok: false, reason: 'insufficient_credits', balance: outcome.balance }
}

/** Opens the ledger at `location` as the commands do, closed when the test ends. */
export async function openTestLedger(t: Test, location: string): Promise<Ledger> {
  const ledger = await openLedger(location)
  t.teardown(() => ledger.close())
  return ledger
}

/** Every row of every table of the database at `url`, as text. */
async function everyRow(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const tables = await client.query<{ name: string }>(
      `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema()`,
    )
    const texts: string[] = []
    for (const { name } of tables.rows)
      texts.push(
        ...(await client.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`)).rows.map((r) => r.row),
      )
    return texts.join('\n')
  } finally {
    await client.end()
  }
}

/**
 * A migrated PostgreSQL database of the test's own (its URL, `query` appended) and a connection of the test's to it,
 * outside any pool of the engine.
 */
export async function migratedDatabase(
  t: Test,
  query = '',
): Promise<{ readonly url: string; readonly admin: pg.Client }> {
  const url = await freshDatabase(t)
  await migrate(url)
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  t.teardown(() => admin.end())
  return { url: `${url}${query}`, admin }
}

/** Checks an account's balance, that it is the sum of its entries, and its entry count. */
export async function balanceAddsUp(t: Test, ledger: Ledger, id: string, balance: number): Promise<void> {
  const account = (await ledger.account(id))!
  const entries = await ledger.entries(id, 10_000)
  t.same(
    [account.balance, entries.reduce((sum, e) => sum + e.credits, 0), account.entries],
    [balance, balance, entries.length],
    `balance ${balance} = sum of entries`,
  )
}

/** The charges the ledger holds that no refund gave back; the refunded ids, each as often as it was refunded. */
export function chargesKept(entries: readonly Entry[]): { kept: Entry[]; refunded: string[] } {
  const refunded = entries.flatMap((e) =>
    e.type === 'grant' && e.reference?.startsWith('refund of ') === true
      ? e.reference.slice('refund of '.length, e.reference.indexOf(':')).split(', ')
      : [],
  )
  const gone = new Set(refunded)
  return { kept: entries.filter((e) => e.type === 'charge' && !gone.has(e.id)), refunded }
}

/** How long entriesOnceSettled asks at most. */
const SETTLE_MS = 20_000

/**
 * The entries of `accounts` once the charges they keep (chargesKept) number `kept`: a debit answered 503 in doubt is
 * given back some time after its call. As they are after SETTLE_MS if that never comes, for the test to tell.
 */
export async function entriesOnceSettled(ledger: Ledger, accounts: readonly string[], kept: number): Promise<Entry[]> {
  const deadline = Date.now() + SETTLE_MS
  for (;;) {
    const entries = (await Promise.all(accounts.map((id) => ledger.entries(id, 1_000_000)))).flat()
    if (chargesKept(entries).kept.length === kept || Date.now() >= deadline) return entries
    await sleep(100)
  }
}
