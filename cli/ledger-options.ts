import type { Command } from 'commander'
import type { Account, Ledger } from '../ledger/types.js'
import { openLedger } from './engines.js'
import { UsageError } from './handle-error.js'
import { terminal, terminalJson, type TerminalText } from './terminal-text.js'

/** Where the ledger is when neither --ledger nor CARMARKET_LEDGER says. */
export const LEDGER_FOLDER = 'data/ledger'
export const DEFAULT_LEDGER = process.env.CARMARKET_LEDGER ?? LEDGER_FOLDER

export interface AccountFlags {
  ledger: string
  account?: string
  email?: string
  json?: boolean
}

/** The options every ledger command takes. */
export function ledgerOptions(command: Command, selectsAccount = true): Command {
  command
    .option('--ledger <location>', 'ledger folder or postgres:// URL (env CARMARKET_LEDGER)', DEFAULT_LEDGER)
    .option('--json', 'print JSON')
  if (selectsAccount)
    command
      .option('--account <id>', 'the account id')
      .option('--email <email>', 'the account e-mail (instead of --account)')
  return command
}

/** Runs `work` on the ledger and closes it; the ledger may be open in a running server too. */
export async function withLedger<T>(location: string, work: (ledger: Ledger) => Promise<T>): Promise<T> {
  const ledger = await openLedger(location)
  try {
    return await work(ledger)
  } finally {
    await ledger.close()
  }
}

export async function findAccount(ledger: Ledger, flags: AccountFlags): Promise<Account> {
  if ((flags.account === undefined) === (flags.email === undefined))
    throw new UsageError('name the account with --account ID or --email E')
  const account =
    flags.account !== undefined ? await ledger.account(flags.account) : await ledger.accountByEmail(flags.email!)
  if (account === undefined) throw new UsageError(`no account ${flags.account ?? flags.email}`)
  return account
}

/** A command's result on standard output: `value` as JSON with --json, else `text` for a person. */
export function print(flags: { json?: boolean }, value: object, text: TerminalText): void {
  process.stdout.write(flags.json === true ? `${terminalJson(value)}\n` : `${text}\n`)
}

export function describeAccount(a: Account): TerminalText {
  return terminal`${a.id}  ${a.email}  ${a.status}  balance ${a.balance} (granted ${a.granted}, used ${a.used})  key ${a.key_prefix}...  since ${a.created}`
}
