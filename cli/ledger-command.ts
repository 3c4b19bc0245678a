import { resolve } from 'node:path'
import { Command } from 'commander'
import { migrateLedger } from './engines.js'
import { ledgerOptions, print, withLedger } from './ledger-options.js'
import { terminal } from './terminal-text.js'

const backup = ledgerOptions(
  new Command('backup').description(
    'copy the ledger consistently, while servers use it (an LMDB folder; back up PostgreSQL with pg_dump)',
  ),
  false,
)
  .requiredOption('--to <dir>', 'a new folder for the copy (its ledger.mdb is the backup)')
  .action(async (flags: { ledger: string; to: string; json?: boolean }) => {
    await withLedger(flags.ledger, (ledger) => ledger.backup(flags.to))
    const to = resolve(flags.to)
    print(flags, { backup: to }, terminal`ledger copied to ${to}`)
  })

const migrate = ledgerOptions(
  new Command('migrate').description(
    'create or upgrade the schema of a PostgreSQL ledger (safe to run again, and while servers run)',
  ),
  false,
).action(async (flags: { ledger: string; json?: boolean }) => {
  const migrated = await migrateLedger(flags.ledger)
  if (migrated === 'lmdb') {
    print(flags, { engine: 'lmdb' }, terminal`an LMDB ledger needs no migration: it is brought up to date when opened`)
  } else {
    const { from, to } = migrated
    print(
      flags,
      { engine: 'postgresql', from, to },
      from === to
        ? terminal`the ledger schema is at version ${to} already`
        : terminal`the ledger schema was migrated from version ${from} to ${to}`,
    )
  }
})

export const ledgerCommand = new Command('ledger')
  .description('the ledger as a whole')
  .addCommand(migrate)
  .addCommand(backup)
