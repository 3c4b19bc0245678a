import { resolve } from 'node:path'
import { Command } from 'commander'
import { ledgerOptions, print, withLedger } from './ledger-options.js'
import { terminal } from './terminal-text.js'

const backup = ledgerOptions(new Command('backup').description('copy the ledger consistently, while servers use it'), false)
  .requiredOption('--to <dir>', 'a new folder for the copy (its ledger.mdb is the backup)')
  .action(async (flags: { ledger: string; to: string; json?: boolean }) => {
    await withLedger(flags.ledger, (ledger) => ledger.backup(flags.to))
    const to = resolve(flags.to)
    print(flags, { backup: to }, terminal`ledger copied to ${to}`)
  })

export const ledgerCommand = new Command('ledger').description('the ledger as a whole').addCommand(backup)
