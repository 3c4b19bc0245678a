import { Command, Option } from 'commander'
import { positiveInteger } from './options.js'
import { describeAccount, findAccount, ledgerOptions, print, withLedger, type AccountFlags } from './ledger-options.js'
import { terminal } from './terminal-text.js'

const create = ledgerOptions(new Command('create').description('open an account and print its key (shown once)'), false)
  .requiredOption('--email <email>', 'the account e-mail')
  .option('--credits <n>', 'credits to start with (a grant)', '0')
  .option('--reference <text>', 'why the credits are granted (optional)')
  .addOption(
    new Option(
      '--key-only',
      'print only the key and a newline, for a script: KEY=$(carmarket accounts create ... --key-only)',
    ).conflicts('json'),
  )
  .action(async (flags: AccountFlags & { email: string; credits: string; reference?: string; keyOnly?: boolean }) => {
    const credits = positiveInteger(flags.credits, '--credits', 0)
    const { account, key } = await withLedger(flags.ledger, (ledger) =>
      ledger.createAccount(flags.email, credits, 'grant', flags.reference ?? null),
    )
    if (flags.keyOnly === true) process.stdout.write(`${key}\n`)
    else
      print(
        flags,
        { account_id: account.id, key },
        terminal`${describeAccount(account)}\nkey: ${key}\n(the key is shown only now; it is stored only as a hash)`,
      )
  })

const show = ledgerOptions(new Command('show').description("print an account's details")).action(
  async (flags: AccountFlags) => {
    const account = await withLedger(flags.ledger, (ledger) => findAccount(ledger, flags))
    print(flags, account, describeAccount(account))
  },
)

const status = (name: 'disable' | 'enable') =>
  ledgerOptions(new Command(name).description(`${name} an account (from its next request on)`)).action(
    async (flags: AccountFlags) => {
      const account = await withLedger(flags.ledger, async (ledger) =>
        ledger.setStatus((await findAccount(ledger, flags)).id, name === 'disable' ? 'disabled' : 'active'),
      )
      print(flags, account, describeAccount(account))
    },
  )

export const accountsCommand = new Command('accounts')
  .description('manage accounts in the ledger (works while serve runs)')
  .addCommand(create)
  .addCommand(show)
  .addCommand(status('disable'))
  .addCommand(status('enable'))
