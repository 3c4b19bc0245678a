import { resolve } from 'node:path'
import { Command } from 'commander'
import { lacksNothing, type LackedEntries, type Lacks } from '../ledger/ledger-diff.js'
import { inUse, planRestore } from '../ledger/lmdb-restore.js'
import { count, counted } from '../format/amounts.js'
import { isPostgres, migrateLedger } from './engines.js'
import { UsageError } from './handle-error.js'
import { ledgerOptions, print, withLedger } from './ledger-options.js'
import { lines, terminal, type TerminalText } from './terminal-text.js'

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

/** Exit status of a restore not done because the backup lacks something and --force was not given. */
const NOT_FORCED = 1

const restore = ledgerOptions(
  new Command('restore').description(
    'put a backup (of ledger backup) in place of an LMDB ledger, first saying what it lacks of the current one; with servers stopped',
  ),
  false,
)
  .requiredOption('--from <dir>', 'the backup: a folder ledger backup wrote, or its ledger.mdb')
  .option('--force', 'restore it although it lacks what the current ledger holds')
  .action(async (flags: { ledger: string; from: string; force?: boolean; json?: boolean }) => {
    if (isPostgres(flags.ledger))
      throw new UsageError(
        'a PostgreSQL ledger is restored with pg_restore from its pg_dump (docs/past-one-machine.md)',
      )
    const plan = await planRestore(flags.ledger, flags.from)
    const lacks = plan.lacks
    if (lacks !== undefined && !lacksNothing(lacks) && flags.force !== true) {
      plan.discard()
      print(
        flags,
        { restored: false, lacks },
        terminal`${lackText(lacks)}
Nothing was changed. Run again with --force to restore it all the same.`,
      )
      process.exitCode = NOT_FORCED
      return
    }
    if (plan.users.length > 0) {
      plan.discard()
      throw inUse(plan.users)
    }
    const kept = await plan.apply().catch((error: unknown) => {
      plan.discard()
      throw error
    })
    const where = resolve(flags.ledger)
    print(
      flags,
      { restored: true, ledger: where, replaced: kept ?? null, lacks: lacks ?? null },
      kept === undefined
        ? terminal`the backup is the ledger in ${where} now`
        : terminal`${lacks === undefined || lacksNothing(lacks) ? terminal`the backup lacks nothing of the ledger it replaced.` : lackText(lacks)}
the backup is the ledger in ${where} now; the one it replaced is kept there as ${kept}`,
    )
  })

/** What a backup lacks, for a person: each kind on a line, with the accounts it concerns. */
function lackText(lacks: Lacks): TerminalText {
  const emails = (list: readonly string[]) =>
    list.length <= 5 ? list.join(', ') : `${list.slice(0, 5).join(', ')} and ${count(list.length - 5)} more`
  const entries = (e: LackedEntries, what: string, effect: string, plural?: string) =>
    e.count === 0
      ? []
      : [terminal`  ${counted(e.count, what, plural)} since, ${counted(e.credits, 'credit')} ${effect}`]
  const list = [
    ...(lacks.accounts.length === 0
      ? []
      : [
          terminal`  ${counted(lacks.accounts.length, 'account')} opened since, whose keys would be refused: ${emails(lacks.accounts)}`,
        ]),
    ...(lacks.keys.length === 0
      ? []
      : [
          terminal`  ${counted(lacks.keys.length, 'key')} issued since, refused after the restore (the key before it works again): ${emails(lacks.keys)}`,
        ]),
    ...(lacks.statuses.length === 0
      ? []
      : [
          terminal`  ${counted(lacks.statuses.length, 'account')} enabled or disabled since: ${emails(lacks.statuses)}`,
        ]),
    ...entries(lacks.grants, 'grant', 'that would be gone'),
    ...entries(lacks.charges, 'charge', 'that could be spent again'),
    ...entries(
      lacks.reversals,
      'reversal of a refunded payment',
      'that would be back',
      'reversals of refunded payments',
    ),
    ...(lacks.payments.length === 0
      ? []
      : [
          terminal`  ${counted(lacks.payments.length, 'payment')} granted since, paid and not granted in the backup (carmarket payments reconcile --fix grants them again): ${lacks.payments.join(', ')}`,
        ]),
  ]
  return terminal`the backup lacks what happened in the current ledger after it was taken:
${lines(list)}`
}

export const ledgerCommand = new Command('ledger')
  .description('the ledger as a whole')
  .addCommand(migrate)
  .addCommand(backup)
  .addCommand(restore)
