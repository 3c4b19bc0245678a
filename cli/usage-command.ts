import { Command } from 'commander'
import { USAGE_LIMIT } from '../runtime/usage-limit.js'
import { positiveInteger } from './options.js'
import { findAccount, ledgerOptions, print, withLedger, type AccountFlags } from './ledger-options.js'
import { lines, terminal } from './terminal-text.js'

export const usageCommand = ledgerOptions(
  new Command('usage').description("print an account's recent transactions, newest first"),
)
  .option('--limit <n>', `how many (${USAGE_LIMIT.min}-${USAGE_LIMIT.max})`, String(USAGE_LIMIT.default))
  .action(async (flags: AccountFlags & { limit: string }) => {
    const limit = Math.min(USAGE_LIMIT.max, positiveInteger(flags.limit, '--limit'))
    const { id, entries } = await withLedger(flags.ledger, async (ledger) => {
      const account = await findAccount(ledger, flags)
      return { id: account.id, entries: await ledger.entries(account.id, limit) }
    })
    const transactions = entries.map(
      (e) =>
        terminal`${e.time}  ${e.type.padEnd(12)} ${String(e.credits).padStart(6)}  balance ${String(e.balance_after).padStart(6)}  ${e.endpoint ?? ''} ${[e.make, e.model, e.year].filter((x) => x !== null).join(' ')} ${e.status}${e.count > 1 ? ` x${e.count}` : ''}${e.reference === null ? '' : ` (${e.reference})`}`,
    )
    print(
      flags,
      { account_id: id, transactions: entries },
      transactions.length === 0 ? terminal`no transactions` : lines(transactions),
    )
  })
