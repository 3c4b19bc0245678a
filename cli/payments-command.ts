import { Command } from 'commander'
import { UsageError } from './handle-error.js'
import { ledgerOptions, print, withLedger } from './ledger-options.js'
import { httpUrl } from './options.js'
import { lines, terminal } from './terminal-text.js'
import { STRIPE_API_BASE } from '../runtime/stripe-api.js'

const env = process.env
const DAY_MS = 86_400_000

interface Period {
  from?: string
  to?: string
}

/** The period of --from and --to (ISO 8601 dates or times): the last 30 days to now by default. */
function periodOf(flags: Period): { from: Date; to: Date } {
  const date = (value: string, option: string) => {
    const time = Date.parse(value)
    if (Number.isNaN(time))
      throw new UsageError(`${option} must be a date or time such as 2026-11-01, not ${JSON.stringify(value)}`)
    return new Date(time)
  }
  const to = flags.to === undefined ? new Date() : date(flags.to, '--to')
  const from = flags.from === undefined ? new Date(to.getTime() - 30 * DAY_MS) : date(flags.from, '--from')
  if (from > to) throw new UsageError('--from must not be after --to')
  return { from, to }
}

const list = ledgerOptions(
  new Command('list').description('print the payments granted in a period, oldest first'),
  false,
)
  .option('--from <date>', 'the start of the period (ISO 8601; 30 days before --to by default)')
  .option('--to <date>', 'the end of the period (ISO 8601; now by default)')
  .action(async (flags: Period & { ledger: string; json?: boolean }) => {
    const { from, to } = periodOf(flags)
    const payments = await withLedger(flags.ledger, (ledger) =>
      ledger.payments.list(from.toISOString(), to.toISOString()),
    )
    const shown = payments.map(
      (p) =>
        terminal`${p.granted_at}  ${p.session_id}  ${p.account_id}  ${p.credits} credits  ${p.amount / 100} ${p.currency}${p.reversed + p.unrecovered > 0 ? `  taken back ${p.reversed}, unrecovered ${p.unrecovered}` : ''}`,
    )
    print(flags, { payments }, shown.length === 0 ? terminal`no payments in the period` : lines(shown))
  })

const reconcileCommand = ledgerOptions(
  new Command('reconcile').description(
    "compare the Checkout Sessions Stripe has paid in a period with the ledger's grants: name any paid but not granted, or granted twice (needs STRIPE_SECRET_KEY)",
  ),
  false,
)
  .option('--from <date>', 'the start of the period (ISO 8601; 30 days before --to by default)')
  .option('--to <date>', 'the end of the period (ISO 8601; now by default)')
  .option('--fix', 'grant the sessions paid but not granted, each exactly once')
  .option(
    '--stripe-api-base <url>',
    "Stripe's API (env CARMARKET_STRIPE_API_BASE)",
    env.CARMARKET_STRIPE_API_BASE ?? STRIPE_API_BASE,
  )
  .action(async (flags: Period & { ledger: string; json?: boolean; fix?: boolean; stripeApiBase: string }) => {
    const { from, to } = periodOf(flags)
    const secretKey = env.STRIPE_SECRET_KEY
    if (secretKey === undefined)
      throw new UsageError('reconcile reads Stripe: set STRIPE_SECRET_KEY in the environment')
    const { StripeCheckout } = await import('../runtime/stripe-checkout.js')
    const { reconcile } = await import('../runtime/reconcile.js')
    const { paidSession } = await import('../runtime/billing.js')
    const provider = new StripeCheckout(
      secretKey,
      env.STRIPE_WEBHOOK_SECRET ?? '',
      new URL(httpUrl(flags.stripeApiBase, '--stripe-api-base')),
    )
    const result = await withLedger(flags.ledger, async (ledger) => {
      const found = await reconcile(
        provider,
        ledger,
        Math.floor(from.getTime() / 1000),
        Math.floor(to.getTime() / 1000),
      )
      const fixed = []
      if (flags.fix === true)
        for (const session of found.paidNotGranted) {
          const paid = paidSession(session)
          if (paid === undefined) continue
          const grant = await ledger.payments.grantPaid(paid)
          fixed.push({
            session_id: session.id,
            outcome: grant.outcome,
            account_id: grant.payment.account_id,
            account_opened: grant.outcome === 'granted' && grant.key !== null,
          })
        }
      return { ...found, fixed }
    })
    const text = [
      terminal`${result.paid} sessions paid in Stripe, ${result.granted} payments in the ledger (with an hour's slack)`,
      ...result.paidNotGranted.map(
        (s) => terminal`paid, not granted: ${s.id} (${s.credits ?? '?'} credits for ${s.email ?? s.accountId ?? '?'})`,
      ),
      ...result.grantedTwice.map((p) => terminal`granted twice: ${p.session_id} (account ${p.account_id})`),
      ...result.fixed.map(
        (f) =>
          terminal`fixed: ${f.session_id} ${f.outcome} to ${f.account_id}${f.account_opened ? ' (a new account: its key is e-mailed when Stripe delivers the event again, or when the buyer registers the address)' : ''}`,
      ),
    ]
    if (result.paidNotGranted.length === 0 && result.grantedTwice.length === 0) text.push(terminal`nothing differs`)
    print(flags, result, lines(text))
    if ((result.paidNotGranted.length > 0 && flags.fix !== true) || result.grantedTwice.length > 0) process.exitCode = 1
  })

export const paymentsCommand = new Command('payments')
  .description('payments received through Stripe Checkout')
  .addCommand(list)
  .addCommand(reconcileCommand)
