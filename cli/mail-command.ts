import { Command } from 'commander'
import { ledgerOptions, print, withLedger } from './ledger-options.js'
import { positiveInteger } from './options.js'
import { lines, terminal } from './terminal-text.js'

const list = ledgerOptions(
  new Command('list').description(
    'print the mail queue, newest first: messages waiting for the SMTP relay, and those given up (never their text)',
  ),
  false,
)
  .option('--failed', 'only the messages given up')
  .option('--limit <n>', 'how many', '100')
  .action(async (flags: { ledger: string; json?: boolean; failed?: boolean; limit: string }) => {
    const limit = positiveInteger(flags.limit, '--limit')
    const records = await withLedger(flags.ledger, (ledger) => ledger.mail.list(flags.failed === true, limit))
    const shown = records.map(
      (m) =>
        terminal`${m.queued}  ${m.state.padEnd(6)} ${m.kind.padEnd(7)} ${m.to}  attempts ${m.attempts}  ${m.state === 'failed' ? 'given up' : 'next'} ${m.next}${m.last_error === null ? '' : `  (${m.last_error})`}  ${m.id}`,
    )
    const none = flags.failed === true ? terminal`no mail given up` : terminal`the mail queue is empty`
    print(flags, { mail: records }, shown.length === 0 ? none : lines(shown))
  })

export const mailCommand = new Command('mail').description('the mail queue of an SMTP relay').addCommand(list)
