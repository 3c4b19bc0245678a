import { SIGNUP_CREDITS } from '../query/prices.js'
import { KEY_VARIABLE, curlExample } from './curl.js'
import { codeBlock, html } from './html.js'
import { layout } from './layout.js'
import { REGISTER_SCRIPT } from './register-script.js'
import type { Site } from './site.js'

/**
 * `/register`: an e-mail address, then the code e-mailed to it, then word that the key
 * is on its way. The key itself is only ever e-mailed, never shown here.
 */
export function registerPage(site: Site): string {
  const registration = site.api.operations.filter((o) => o.tag === 'registration')
  const firstCall = site.api.operations.find((o) => o.path === '/v1/market/valuation')
  if (firstCall === undefined) throw new Error('OpenAPI document: no /v1/market/valuation')
  const main = html`<div class="wrap">
<div class="card" id="register" data-api="${site.base}/v1/auth">
<h1>Get your free API key</h1>
<p class="muted">${SIGNUP_CREDITS} free credits, no card. We e-mail you a 6-digit code, then your key.</p>
<div id="error" class="message error" role="alert" hidden></div>
<div id="notice" class="message info" role="status" hidden></div>
<noscript><div class="message error">This form needs JavaScript, served by this site alone. Without it, register with two requests:
${codeBlock(registration.map((o) => curlExample(site.api, o, false)).join('\n\n'))}</div></noscript>

<form id="email-step" novalidate>
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" maxlength="254" required aria-describedby="email-hint">
<p id="email-hint" class="hint">We send a one-time code to this address, and then your key.</p>
<button type="submit">Send me a code</button>
</form>

<form id="code-step" novalidate hidden>
<p>We sent a 6-digit code to <strong id="sent-to"></strong>. It is valid for <span id="expires"></span> minutes.</p>
<label for="code">Code from the e-mail</label>
<input id="code" name="code" class="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required aria-describedby="code-hint">
<p id="code-hint" class="hint">Six digits. No e-mail? Look in the spam folder, or ask for a new code.</p>
<button type="submit">Create my account</button>
<div class="row">
<button type="button" class="link" id="resend">Send a new code</button>
<button type="button" class="link" id="change">Use another address</button>
</div>
</form>

<section id="done-step" tabindex="-1" aria-labelledby="done-title" hidden>
<h2 id="done-title">Your key is on its way</h2>
<p>Look in the inbox of <strong id="done-to"></strong>: the key is in that e-mail and only there, so keep it safe. Your account starts with ${SIGNUP_CREDITS} free credits.</p>
<p>Send the key in the <code>${site.api.keyHeader}</code> header of each call. Your first one: put the key in the
shell variable <code>${KEY_VARIABLE}</code> (type <code>${KEY_VARIABLE}=</code> and paste it), then ask for a
valuation, ${firstCall.credits ?? 0} credits:</p>
${codeBlock(curlExample(site.api, firstCall, true))}
<p>Or see the market drawn with it: <a id="to-explorer" href="${site.base}/explore#key">open the explorer with your key</a> (paste it there once; it stays in that tab).</p>
<p>Next: the <a href="${site.base}/docs">API reference</a>, or the <a href="${site.base}/#plans">plans</a> for more credits.</p>
</section>
</div>
</div>`
  return layout(
    {
      title: 'Register: carmarket',
      description: `Register with your e-mail address for a carmarket API key and ${SIGNUP_CREDITS} free credits.`,
      path: '/register',
      main,
      script: REGISTER_SCRIPT,
    },
    site.base,
  )
}
