#!/usr/bin/env node
import { Command, Help } from 'commander'
import { CODE_VERSION } from '../format/code-version.js'
import { accountsCommand } from './accounts-command.js'
import { buildCommand } from './build-command.js'
import { creditsCommand } from './credits-command.js'
import { generateCommand } from './generate-command.js'
import { isCommitEcho } from '../ledger/lmdb-writes.js'
import { USAGE_EXIT, handleError } from './handle-error.js'
import { keysCommand } from './keys-command.js'
import { ledgerCommand } from './ledger-command.js'
import { mailCommand } from './mail-command.js'
import { paymentsCommand } from './payments-command.js'
import { mcpCommand } from './mcp-command.js'
import { sampleCommand } from './sample-command.js'
import { serveCommand } from './serve-command.js'
import { snapshotCommand } from './snapshot-command.js'
import { visible } from './terminal-text.js'
import { usageCommand } from './usage-command.js'

const program = new Command('carmarket')
  .description('Polish used-car market statistics: build snapshots from listings exports and answer from them')
  .version(CODE_VERSION)
  // The program's own options come before a command: `snapshot query --version GTI` is the car's version, not ours.
  .enablePositionalOptions()
  .addCommand(generateCommand)
  .addCommand(buildCommand)
  .addCommand(snapshotCommand)
  .addCommand(sampleCommand)
  .addCommand(serveCommand)
  .addCommand(mcpCommand)
  .addCommand(accountsCommand)
  .addCommand(keysCommand)
  .addCommand(creditsCommand)
  .addCommand(usageCommand)
  .addCommand(ledgerCommand)
  .addCommand(mailCommand)
  .addCommand(paymentsCommand)

/**
 * Every command, however deep: --help marks the options it cannot go without, and
 * commander's own refusals (an unknown option, a missing value or command) are usage
 * errors like ours: one line, `carmarket: ...` and where the options are listed, exit 2.
 * Set on every command, since a command added to another inherits none of its settings.
 */
function houseStyle(command: Command, help = 'carmarket --help'): void {
  command.configureHelp({
    optionDescription: (option) => {
      const text = new Help().optionDescription(option)
      return option.mandatory ? `${text} (required)` : text
    },
  })
  command.configureOutput({
    outputError: (text, write) =>
      write(
        `carmarket: ${visible(
          text
            .replace(/^error: /, '')
            .trim()
            .split('\n')
            .join(' '),
        )}; see ${help}\n`,
      ),
  })
  command.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT))
  for (const sub of command.commands) houseStyle(sub, help.replace(/ --help$/, ` ${sub.name()} --help`))
}
houseStyle(program)

// lmdb-js rejects internal promises of a failed commit that nobody awaits; the commit's
// own caller has its answer, so only other rejections are errors (thrown on, unhandled).
process.on('unhandledRejection', (reason) => {
  if (!isCommitEcho(reason)) throw reason
})

program.parseAsync().catch(handleError)
