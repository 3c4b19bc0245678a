import { count, dollars } from '../format/amounts.js'
import { PLANS } from '../query/prices.js'
import { ACCOUNT_SCRIPT } from './account-script.js'
import { html } from './html.js'
import { layout } from './layout.js'
import type { Site } from './site.js'

/**
 * `/account`: sign in with a code e-mailed to the account's address, then its balance,
 * its recent calls and grants, the plans to buy, and the replacement of its key. The key
 * itself is never shown, only its first characters.
 */
export function accountPage(site: Site): string {
  const main = html`<div class="wrap">
<div class="card" id="account-page" data-api="${site.base}/v1">
<h1>Your account</h1>
<div id="error" class="message error" role="alert" hidden></div>
<div id="notice" class="message info" role="status" hidden></div>
<noscript><div class="message error">This page needs JavaScript, served by this site alone. With your key, <code>GET /v1/account/me</code> and <code>GET /v1/account/usage</code> tell the same (<a href="${site.base}/docs#account">API reference</a>).</div></noscript>

<form id="signin-email" novalidate hidden>
<label for="signin-address">E-mail address of your account</label>
<input id="signin-address" name="email" type="email" autocomplete="email" inputmode="email" maxlength="254" required>
<p class="hint">We e-mail you a 6-digit code to sign in. No account yet? <a href="${site.base}/register">Register</a>.</p>
<button type="submit">Send me a code</button>
</form>

<form id="signin-code" novalidate hidden>
<p>We sent a sign-in code to <strong id="code-to"></strong>.</p>
<label for="signin-otp">Code from the e-mail</label>
<input id="signin-otp" name="code" class="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<button type="submit">Sign in</button>
</form>

<section id="account-view" hidden aria-labelledby="balance-title">
<p><strong id="account-email"></strong> <button type="button" class="link" id="sign-out">Sign out</button></p>
<h2 id="balance-title">Balance: <span id="account-balance"></span> credits</h2>
<p class="small muted">Your key starts with <code id="account-key"></code>; the whole key is only ever in the e-mail that brought it.
<button type="button" class="link" id="rotate">Replace my key</button> (the new key is e-mailed; the current one stops working at once).</p>
<h3>Recent calls and credits</h3>
<div class="table"><table>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">What</th><th scope="col">Credits</th><th scope="col">Balance</th></tr></thead>
<tbody id="transactions"></tbody>
</table></div>
<p id="no-transactions" class="muted" hidden>No transactions yet.</p>
<h3>Buy credits</h3>
<ul>
${PLANS.map((p) => html`<li><a href="${site.base}/buy?plan=${p.credits}">${count(p.credits)} credits, ${dollars(p.usd)}</a></li>`)}
</ul>
</section>
</div>
</div>`
  return layout(
    {
      title: 'Your account: carmarket',
      description: 'Sign in with an e-mail code: your carmarket balance, recent calls and credits, and your key.',
      path: '/account',
      main,
      script: ACCOUNT_SCRIPT,
    },
    site.base,
  )
}
