import { Command } from 'commander'
import { findAccount, ledgerOptions, print, withLedger, type AccountFlags } from './ledger-options.js'
import { terminal } from './terminal-text.js'

const issue = ledgerOptions(
  new Command('issue').description('issue a new key for an account; the old key stops working'),
).action(async (flags: AccountFlags) => {
  const { id, key } = await withLedger(flags.ledger, async (ledger) => {
    const account = await findAccount(ledger, flags)
    return { id: account.id, key: await ledger.issueKey(account.id) }
  })
  print(
    flags,
    { account_id: id, key },
    terminal`key for ${id}: ${key}\n(the previous key no longer works; this one is shown only now)`,
  )
})

export const keysCommand = new Command('keys').description("replace an account's key").addCommand(issue)
