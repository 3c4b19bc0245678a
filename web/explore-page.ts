import { count } from '../format/amounts.js'
import { MAX_DETAIL_TEXT, MAX_MILEAGE, MAX_PRICE } from '../format/bounds.js'
import { HISTORY_MONTHS } from '../format/schema.js'
import {
  FUEL_IN_ENGLISH,
  FUEL_TYPES,
  GEARBOXES,
  GEARBOX_IN_ENGLISH,
  IMPORT_STATUS_IN_ENGLISH,
} from '../format/vocabulary.js'
import { SIGNUP_CREDITS } from '../query/prices.js'
import type { OperationView } from './api-view.js'
import { html, type Html } from './html.js'
import { layout } from './layout.js'
import type { Resource } from './resource.js'
import type { Site } from './site.js'

/** A chart of the page: its name among the explorer's charts, and its heading. */
interface Figure {
  readonly chart: string
  readonly heading: string
}

/** One call of the page, in the order the page makes them (the most used first, for a keyless visitor's few calls). */
interface Panel {
  readonly path: string
  readonly heading: string
  readonly figures: readonly Figure[]
  /** Query parameters the page sets itself rather than the form. */
  readonly fixed?: string
}

const PANELS: readonly Panel[] = [
  {
    path: '/v1/market/valuation',
    heading: 'Price',
    figures: [
      { chart: 'valuation', heading: 'Where asking prices sit' },
      { chart: 'mileage', heading: 'What mileage does to the price' },
    ],
  },
  {
    path: '/v1/market/price-history',
    heading: 'Price history',
    figures: [{ chart: 'price-history', heading: `The last ${HISTORY_MONTHS} months` }],
    fixed: `months=${HISTORY_MONTHS}`,
  },
  {
    path: '/v1/market/depreciation',
    heading: 'Depreciation',
    figures: [{ chart: 'depreciation', heading: 'The median by production year' }],
  },
  {
    path: '/v1/market/regional',
    heading: 'Regions',
    figures: [{ chart: 'regional', heading: 'The 16 voivodeships against the national average' }],
  },
  {
    path: '/v1/market/liquidity',
    heading: 'Days on market',
    figures: [{ chart: 'liquidity', heading: 'How long such cars stay listed' }],
  },
  {
    path: '/v1/market/valuation-factors',
    heading: 'Attributes',
    figures: [{ chart: 'valuation-factors', heading: 'Import, gearbox and fuel against the price' }],
  },
]

function operation(site: Site, path: string): OperationView {
  const found = site.api.operations.find((o) => o.path === path && o.method === 'GET')
  if (found === undefined) throw new Error(`OpenAPI document: no GET ${path}`)
  return found
}

/**
 * `/explore`: a form for one make, model and year, and the market for it drawn from the
 * answers the browser buys, each part one metered call (keyless in the demo tier, or
 * with a key pasted into the page), with the same drawing code GET /v1/chart serves.
 */
export function explorePage(site: Site, script: Resource): string {
  const panels = PANELS.map((panel) => ({ ...panel, operation: operation(site, panel.path) }))
  const perView = panels.reduce((sum, p) => sum + (p.operation.credits ?? 0), 0)
  const demo =
    site.demoQuota === 0
      ? html`Without a key the page cannot call the API: this service has no demo tier.`
      : html`Without a key, the free demo shows the first ${Math.min(site.demoQuota, panels.length)} parts, price first (${site.demoQuota} calls a day from your address); <a href="${site.base}/register">register</a> for a free key with ${SIGNUP_CREDITS} credits to see them all.`
  const option = (value: string, text: string) => html`<option value="${value}">${text}</option>`
  const main = html`<div class="wrap explore">
<h1>Explore the market</h1>
<p class="lead">Where a price sits, how prices moved, how a model loses value and where in Poland it is cheaper: the answers of this API, drawn.</p>
<p>Each part below is one call of the API at its list price, ${count(perView)} credits for the whole view. ${demo}
Fuel, gearbox, version and body narrow the price part and the depreciation curve; the other parts take every car of the model and year, as their operations do.</p>
${glossary()}

<noscript><div class="message error">This page draws its charts with JavaScript, served by this site alone. Without it, the same charts are images of the API: <code>GET ${site.base}/v1/chart/valuation.svg</code> and its siblings in the <a href="${site.base}/docs#charts">API reference</a>.</div></noscript>
<form id="explore" novalidate data-api="${site.base}" data-key-header="${site.api.keyHeader}" data-register="${site.base}/register" data-demo-quota="${site.demoQuota}">
<div class="fields">
<div class="field"><label for="make">Make</label>
<input id="make" name="make" list="makes" autocomplete="off" spellcheck="false" required maxlength="100">
<datalist id="makes"></datalist></div>
<div class="field"><label for="model">Model</label>
<input id="model" name="model" list="models" autocomplete="off" spellcheck="false" required maxlength="100">
<datalist id="models"></datalist></div>
<div class="field"><label for="year">Production year</label>
<input id="year" name="year" type="number" inputmode="numeric" list="years" required min="1900" max="2100">
<datalist id="years"></datalist></div>
<div class="field"><label for="fuel_type">Fuel <span class="muted">(optional)</span></label>
<select id="fuel_type" name="fuel_type">${option('', 'Any')}${FUEL_TYPES.map((fuel) => option(fuel, FUEL_IN_ENGLISH[fuel]))}</select></div>
<div class="field"><label for="gearbox">Gearbox <span class="muted">(optional)</span></label>
<select id="gearbox" name="gearbox">${option('', 'Any')}${GEARBOXES.map((gearbox) => option(gearbox, GEARBOX_IN_ENGLISH[gearbox]))}</select></div>
<div class="field" id="version-field" hidden><label for="version">Version <span class="muted">(optional)</span></label>
<input id="version" name="version" list="versions" autocomplete="off" spellcheck="false" maxlength="${MAX_DETAIL_TEXT}" aria-describedby="version-hint">
<datalist id="versions"></datalist>
<p id="version-hint" class="hint">Words of the version, such as GTI or 2.0 TDI: the listings that name them.</p></div>
<div class="field" id="body-field" hidden><label for="body_type">Body <span class="muted">(optional)</span></label>
<select id="body_type" name="body_type">${option('', 'Any')}</select></div>
<div class="field"><label for="mileage">Mileage, km <span class="muted">(optional)</span></label>
<input id="mileage" name="mileage" type="number" inputmode="numeric" min="0" max="${MAX_MILEAGE}" step="1"></div>
<div class="field"><label for="asking_price">Asking price, PLN <span class="muted">(optional)</span></label>
<input id="asking_price" name="asking_price" type="number" inputmode="numeric" min="1" max="${MAX_PRICE}" step="1"></div>
</div>
<details id="key-box">
<summary>Use an API key</summary>
<label for="key">API key</label>
<input id="key" type="password" autocomplete="off" spellcheck="false" aria-describedby="key-hint">
<p id="key-hint" class="hint">Kept in this browser tab only (its session storage) and sent only to this API, in the <code>${site.api.keyHeader}</code> header. <button type="button" class="link" id="forget-key">Forget the key</button></p>
</details>
<button type="submit">Show the market</button>
</form>
<div id="error" class="message error" role="alert" tabindex="-1" hidden></div>
<p id="account" class="account" role="status"></p>
<div id="demo" class="message notice" hidden></div>

<div id="view" hidden>
<section id="headline" class="headline" aria-labelledby="headline-car" hidden>
<p class="eyebrow">Market value</p>
<h2 id="headline-car"></h2>
<p class="range"></p>
<p class="sentence"></p>
</section>
${panels.map((panel) => section(panel))}
</div>
</div>`
  return layout(
    {
      title: 'Explore the market: carmarket',
      description:
        'Price distribution, price history, depreciation, regional prices, days on market and attribute factors of a used car on the Polish market, drawn.',
      path: '/explore',
      main,
      script,
    },
    site.base,
  )
}

/** The data's terms, Polish as the marketplace writes them and as the API answers, in English once. */
function glossary(): Html {
  const terms = [
    ...Object.entries(FUEL_IN_ENGLISH),
    ...Object.entries(GEARBOX_IN_ENGLISH),
    ...Object.entries(IMPORT_STATUS_IN_ENGLISH),
  ]
  return html`<details class="glossary"><summary>The page is in English; the data speaks Polish</summary>
<p>The API answers in the marketplace's own terms, which this page writes in English:</p>
<dl>${terms.map(([polish, english]) => html`<div><dt lang="pl">${polish}</dt><dd>${english}</dd></div>`)}<div><dt>voivodeship</dt><dd>one of Poland's 16 provinces, named in Polish (mazowieckie is Warsaw's)</dd></div></dl>
</details>`
}

function section(panel: Panel & { operation: OperationView }): Html {
  const id = panel.operation.anchor
  const parameters = panel.operation.parameters.filter((p) => p.location === 'query').map((p) => p.name)
  return html`<section class="panel" id="${id}" aria-labelledby="${id}-heading" data-path="${panel.path}" data-parameters="${parameters.join(' ')}" data-fixed="${panel.fixed ?? ''}">
<div class="panel-head"><h2 id="${id}-heading">${panel.heading}</h2><span class="credits">${count(panel.operation.credits ?? 0)} credits</span></div>
<div class="state"></div>
${panel.figures.map(
  (figure) => html`<figure data-chart="${figure.chart}" hidden>
<h3>${figure.heading}</h3>
<figcaption class="takeaway"></figcaption>
<div class="chart" tabindex="0" role="group" aria-label="${figure.heading} (chart)"></div>
<details class="figures"><summary>Every figure in words</summary><p class="words"></p></details>
</figure>`,
)}
${
  panel.figures.some((f) => f.chart === 'regional')
    ? html`<div class="regions" hidden><table>
<caption>Every voivodeship in figures, cheapest first</caption>
<thead><tr><th scope="col">Voivodeship</th><th scope="col" class="num">Mean price, PLN</th><th scope="col" class="num">vs national</th><th scope="col" class="num">Listings</th></tr></thead>
<tbody></tbody>
</table></div>`
    : false
}
</section>`
}
