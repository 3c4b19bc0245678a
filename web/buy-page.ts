import type { IncomingMessage } from 'node:http'
import { count, dollars } from '../format/amounts.js'
import { PLANS } from '../query/prices.js'
import type { ApiResponse } from '../runtime/send.js'
import { html, type Html } from './html.js'
import { howToBuy } from './landing-page.js'
import { layout } from './layout.js'
import { CONTENT_SECURITY_POLICY, resource, serveResource } from './resource.js'
import type { Site } from './site.js'

/** What a refused checkout is told on the page, by the error code it came back with (the code alone travels). */
const REFUSALS: Readonly<Record<string, string>> = {
  INVALID_PARAMETER: 'Choose a plan and give a valid e-mail address.',
  RATE_LIMIT_EXCEEDED: 'Too many checkouts from your address in the last hour: please try again later.',
  SERVICE_UNAVAILABLE: 'The payment provider did not answer; nothing was charged. Please try again in a minute.',
  UNAUTHORIZED: 'That key is not a key of this service.',
}

/**
 * `/buy`: the plans, and a plain form (no script) that starts a checkout for one at the
 * payment provider, which takes the buyer back here once paid or cancelled. A plan of
 * the query (`?plan=5000`) is chosen beforehand; `?paid=`, `?cancelled=1` and
 * `?error=CODE` put the outcome above the form. Without online payment, the page says
 * how plans are ordered instead.
 */
export function buyHandler(
  site: Site,
  payPageOrigin: string | undefined,
): (req: IncomingMessage, res: ApiResponse) => void {
  // The form is sent on to the provider's payment page: the browser must be allowed to follow it there.
  const csp =
    payPageOrigin === undefined
      ? CONTENT_SECURITY_POLICY
      : CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${payPageOrigin}`)
  return (req, res) => {
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '')
    const page = buyPage(site, {
      plan: PLANS.find((p) => String(p.credits) === query.get('plan'))?.credits,
      outcome: query.has('paid') ? 'paid' : query.has('cancelled') ? 'cancelled' : undefined,
      refusal:
        REFUSALS[query.get('error') ?? ''] ?? (query.has('error') ? 'The checkout could not be started.' : undefined),
    })
    // Made for each request: small, and not worth compressing each time.
    serveResource(req, res, { ...resource('/buy', page, 'text/html; charset=utf-8', false), csp })
  }
}

interface BuyState {
  readonly plan: number | undefined
  readonly outcome: 'paid' | 'cancelled' | undefined
  readonly refusal: string | undefined
}

function buyPage(site: Site, state: BuyState): string {
  const chosen = state.plan ?? PLANS[0].credits
  const message: Html | false =
    state.outcome === 'paid'
      ? html`<div class="message info" role="status"><strong>Thank you.</strong> Once the payment is confirmed (a few seconds for a card, longer for a bank transfer), the credits are added to the account of your e-mail address. New customers receive their key by e-mail.</div>`
      : state.outcome === 'cancelled'
        ? html`<div class="message info" role="status">The payment was cancelled; nothing was charged.</div>`
        : state.refusal !== undefined && html`<div class="message error" role="alert">${state.refusal}</div>`
  const form = html`<form method="post" action="${site.base}/v1/billing/checkout">
<fieldset>
<legend>Plan</legend>
${PLANS.map(
  (
    plan,
  ) => html`<label class="choice"><input type="radio" name="plan" value="${plan.credits}"${plan.credits === chosen ? html` checked` : false} required>
${count(plan.credits)} credits, ${dollars(plan.usd)}</label>`,
)}
</fieldset>
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" maxlength="254" required aria-describedby="email-hint">
<p id="email-hint" class="hint">The credits go to the account of this address; with none yet, one is opened and its key e-mailed to you.</p>
<button type="submit">Continue to payment</button>
</form>`
  const main = html`<div class="wrap">
<div class="card" id="buy">
<h1>Buy credits</h1>
${message}
${site.checkout ? form : howToBuy(site)}
<p class="small muted">Credits never expire; a failed call is refunded automatically. Refunds and disputes of a payment take its credits back from the balance.</p>
</div>
</div>`
  return layout(
    {
      title: 'Buy credits: carmarket',
      description: 'Buy carmarket API credits: plans from 5,000 credits, paid by card.',
      path: '/buy',
      main,
    },
    site.base,
  )
}
