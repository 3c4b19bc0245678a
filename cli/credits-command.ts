import { Command } from 'commander'
import { positiveInteger } from './options.js'
import { findAccount, ledgerOptions, print, withLedger, type AccountFlags } from './ledger-options.js'
import { terminal } from './terminal-text.js'

const grant = ledgerOptions(new Command('grant').description('add credits to an account'))
  .requiredOption('--credits <n>', 'credits to add')
  .requiredOption('--reference <text>', 'why the credits are granted: an order number, a support case')
  .action(async (flags: AccountFlags & { credits: string; reference: string }) => {
    const credits = positiveInteger(flags.credits, '--credits')
    const entry = await withLedger(flags.ledger, async (ledger) =>
      ledger.grant((await findAccount(ledger, flags)).id, credits, flags.reference),
    )
    print(
      flags,
      entry,
      terminal`granted ${entry.credits} credits (${entry.reference ?? ''}); balance ${entry.balance_after}`,
    )
  })

export const creditsCommand = new Command('credits').description('grant credits').addCommand(grant)
