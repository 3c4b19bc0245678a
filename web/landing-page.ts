import { HISTORY_MONTHS } from '../format/schema.js'
import { VOIVODESHIPS } from '../format/vocabulary.js'
import { CREDIT_USD, OPERATION_CREDITS, PLANS, SIGNUP_CREDITS } from '../query/prices.js'
import type { OperationView } from './api-view.js'
import { KEY_VARIABLE, curlExample } from './curl.js'
import { exampleAnswer, exampleOf } from './example.js'
import { figures } from './figures.js'
import { codeBlock, html, type Html } from './html.js'
import { prose } from './prose.js'
import { layout } from './layout.js'
import { count, dollars } from '../format/amounts.js'
import type { Site } from './site.js'
import { table } from './table.js'

/** The operation the landing page shows as its example: the first market one. */
function example(site: Site): OperationView {
  const operation = site.api.operations.find((o) => o.tag === 'market')
  if (operation === undefined) throw new Error('OpenAPI document: no market operation')
  return operation
}

/** `/`: what the service is, a first call, the operations with their prices, the plans and the terms. */
export function landingPage(site: Site): string {
  const api = site.api
  const first = example(site)
  const answer = exampleOf(site, first)
  const facts = figures(site.served)
  const valuationCredits = OPERATION_CREDITS.valuation
  const market = api.operations.filter((o) => o.tag === 'market')
  const main = html`<div class="wrap">
<section class="hero">
<h1>Polish used-car market data, one HTTP call away</h1>
<p class="lead">Valuation, price history, liquidity, valuation factors and regional pricing for any make, model and production year on the Polish used-car market, and depreciation across production years, as JSON.</p>
<ul class="facts">
${
  facts === undefined
    ? html`<li>Aggregated from publicly available listings</li>`
    : html`<li>Aggregated from ${facts.listings} listings</li>
<li>${facts.makes} makes, ${facts.models} models</li>
<li>Data as of <time datetime="${facts.asOf}">${facts.asOfText}</time>, built <time datetime="${facts.built}">${facts.builtText}</time></li>`
}
<li>Prices in PLN</li>
<li>All ${VOIVODESHIPS.length} voivodeships</li>
<li>Up to ${HISTORY_MONTHS} months of history</li>
</ul>
<div class="actions">
<a class="button" href="${site.base}/register">Get a free key with ${SIGNUP_CREDITS} credits</a>
<a class="button secondary" href="${site.base}/explore">Explore the market</a>
<a class="button secondary" href="${site.base}/docs">Read the API reference</a>
</div>
</section>

<section id="try" aria-labelledby="try-title">
<h2 id="try-title">Try it</h2>
${
  site.demoQuota > 0
    ? html`<p>No key is needed to try: without an <code>${api.keyHeader}</code> header a market call is answered by the keyless demo tier, with real data, ${site.demoQuota} calls a day per address.</p>
${codeBlock(curlExample(api, first, false, answer?.query))}`
    : html`<p>Send your key in the <code>${api.keyHeader}</code> header, from the shell variable
<code>${KEY_VARIABLE}</code>:</p>
${codeBlock(curlExample(api, first, true, answer?.query))}`
}
${
  answer === undefined
    ? false
    : html`<p>The answer, from the data served now:</p>
${exampleAnswer(answer)}`
}
${
  site.demoQuota > 0
    ? html`<p>With a key, send it in the <code>${api.keyHeader}</code> header (here from the shell variable
<code>${KEY_VARIABLE}</code>); the answer then also carries <code>credits_remaining</code>, what is left after the
call:</p>
${codeBlock(curlExample(api, first, true, answer?.query))}`
    : html`<p>Every answer tells what the call cost (<code>credits_used</code>) and what is left
(<code>credits_remaining</code>).</p>`
}
<p class="muted">Makes and models are matched for you: aliases such as VW, and English family names such as 3 Series, resolve to the canonical names of the Polish market, and words after the model narrow the answer to the car you mean (Golf GTI, Corolla Hybrid, 320d, A4 Avant 2.0 TDI), all shown in the <code>matched</code> block.</p>
</section>

<section id="operations" aria-labelledby="operations-title">
<h2 id="operations-title">What you can ask</h2>
${table(
  [
    { label: 'Operation' },
    { label: 'What it returns' },
    { label: 'Credits', numeric: true },
    { label: 'Cost', numeric: true },
  ],
  market.map((o) => [
    html`<a href="${site.base}/docs#${o.anchor}">${o.title}</a><br><code>${o.method} ${o.path}</code>`,
    prose(o.lead),
    o.credits ?? 0,
    dollars((o.credits ?? 0) * CREDIT_USD),
  ]),
)}
<p class="muted">The catalogue of makes and models, <a href="${site.base}/docs#catalog"><code>GET /v1/catalog/makes</code> and <code>GET /v1/catalog/models</code></a>, is free and needs no key; the account calls, <code>GET /v1/account/me</code> and <code>GET /v1/account/usage</code>, are free too. A call that fails (a bad parameter, too little data, a server error) is refunded automatically.</p>
</section>

<section id="plans" aria-labelledby="plans-title">
<h2 id="plans-title">Plans</h2>
<p>Buy credits once and use them at your pace: credits never expire. A credit is worth ${dollars(CREDIT_USD)} at list price; larger plans cost less per credit.</p>
<div class="plans">
<div class="plan free">
<h3>${SIGNUP_CREDITS} credits</h3>
<div class="price">$0</div>
<p>Free on registration: no card, just an e-mail address.</p>
<p>About ${Math.floor(SIGNUP_CREDITS / valuationCredits)} valuations.</p>
<p><a href="${site.base}/register">Register</a></p>
</div>
${PLANS.map(
  (plan) => html`<div class="plan">
<h3>${count(plan.credits)} credits</h3>
<div class="price">${dollars(plan.usd)}</div>
<p>${dollars(plan.usd / (plan.credits / 1000))} per 1,000 credits</p>
<p>About ${count(Math.floor(plan.credits / valuationCredits))} valuations.</p>
<p><a href="${site.base}/buy?plan=${plan.credits}">${site.checkout ? 'Buy' : 'How to order'}</a></p>
</div>`,
)}
</div>
<div class="note">
<h3>How to buy</h3>
${howToBuy(site)}
</div>
</section>

<section id="developers" aria-labelledby="developers-title">
<h2 id="developers-title">For developers and AI agents</h2>
<ul class="links">
<li><a href="${site.base}/docs">API reference</a><p class="small muted">Every operation with its parameters, prices, answers, errors and a curl example.</p></li>
<li><a href="${site.base}/v1/openapi.json">OpenAPI document</a><p class="small muted">The machine-readable description (OpenAPI 3.1), for clients and code generators.</p></li>
<li><a href="${site.base}/docs#mcp">MCP server</a><p class="small muted">The operations as Model Context Protocol tools for AI
assistants, from a desktop client or over HTTP; they work without a key too.</p></li>
<li><a href="${site.base}/llms.txt">llms.txt</a><p class="small muted">A short guide to the API for language models.</p></li>
</ul>
</section>

<section id="legal" aria-labelledby="legal-title">
<h2 id="legal-title">Terms in brief</h2>
<ul>
<li>The service returns aggregated statistics computed from publicly available listings. It does not post, edit or expose any individual seller's listing.</li>
<li>Valuations are statistical estimates of asking prices, not offers to buy or sell.</li>
<li>Credits are prepaid and never expire; a failed call is refunded automatically.</li>
<li>A lost key is replaced by <a href="${site.base}/register">registering</a> the address again: a new key is e-mailed and the old one stops working; the credits stay.</li>
<li>Questions, and anything else about an account: <a href="mailto:${site.support}">${site.support}</a>.</li>
</ul>
</section>
</div>`
  return layout(
    {
      title: 'carmarket: Polish used-car market data API',
      description:
        'Valuation, price history, depreciation, liquidity, valuation factors and regional prices of used cars in Poland, as a JSON API. Prices in PLN.',
      path: '/',
      main,
    },
    site.base,
  )
}

/** How plans are bought on this server: online, by e-mail, or not at all yet. */
export function howToBuy(site: Site): Html {
  if (site.checkout)
    return html`<p>Pay by card on the <a href="${site.base}/buy">buy page</a>. The credits are added to the account of your e-mail address as soon as the payment is confirmed, and your key stays the same; with no account yet, one is opened and its key e-mailed to you.</p>`
  if (site.sales !== undefined)
    return html`<p>Plans are ordered by e-mail: write to <a href="mailto:${site.sales}?subject=${encodeURIComponent('carmarket credits')}">${site.sales}</a> from the address of your account, naming the plan. You get an invoice, and once it is paid the credits are added to your account: your key stays the same. No account yet? <a href="${site.base}/register">Register</a> first.</p>`
  return html`<p>This server does not sell plans: its operator has set up neither online payment nor an address to order from. Ask <a href="mailto:${site.support}">${site.support}</a>.</p>`
}
