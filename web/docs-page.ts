import type { ApiView, KeyUse, OperationView } from './api-view.js'
import { curlExample } from './curl.js'
import { html, type Html } from './html.js'
import { layout } from './layout.js'
import { prettyJson } from './pretty-json.js'
import type { Site } from './site.js'

const KEY_USE: Record<KeyUse, string> = {
  required: 'Key required',
  optional: 'Key optional: without it, the keyless demo tier',
  none: 'No key',
}

/** `/docs`: the human API reference, rendered from the served OpenAPI document at start-up. */
export function docsPage(site: Site): string {
  const api = site.api
  const main = html`<div class="wrap docs">
<nav class="toc" aria-label="Contents">
<h2>Overview</h2>
<ul><li><a href="#authentication">Authentication</a></li><li><a href="#errors">Errors</a></li></ul>
${api.tags.map(
  (tag) => html`<h2>${tag.name}</h2>
<ul>${tag.operations.map((o) => html`<li><a href="#${o.anchor}">${o.method} ${o.path}</a></li>`)}</ul>`,
)}
</nav>
<div>
<h1>${api.title}: API reference</h1>
<p class="lead">${api.description}</p>
<ul class="meta">
<li>Version ${api.version}</li>
<li>Base URL <code>${api.server}</code></li>
<li><a href="/v1/openapi.json">OpenAPI document</a></li>
</ul>

<section id="authentication" aria-labelledby="authentication-title">
<h2 id="authentication-title">Authentication</h2>
<p>Send your key in the <code>${api.keyHeader}</code> header. Keys are e-mailed after <a href="/register">registration</a>, which is free and comes with credits to start.</p>
<p>Where a key is optional, a call without the header is served by the keyless demo tier. A header that is present but empty or unknown is refused with 401, never served as a demo call.</p>
</section>

<section id="errors" aria-labelledby="errors-title">
<h2 id="errors-title">Errors</h2>
<p>Every failure answers <code>{"status":"error","error":{"code":"…","message":"…"}}</code>; some codes add fields to <code>error</code>, as the OpenAPI document describes. A market call that fails costs nothing.</p>
${errorTable(api)}
</section>

${api.tags.map(
  (tag) => html`<section id="${tag.name}" aria-labelledby="${tag.name}-title">
<h2 id="${tag.name}-title">${capitalised(tag.name)}</h2>
<p class="tag-description">${tag.description}</p>
${tag.operations.map((o) => operationSection(api, o))}
</section>`,
)}
</div>
</div>`
  return layout({ title: `API reference: ${api.title}`, description: `Every operation of the ${api.title} API, with parameters, prices, answers and errors.`, path: '/docs', main })
}

function operationSection(api: ApiView, o: OperationView): Html {
  const credits = o.credits === undefined ? false : html`<li>${o.credits === 0 ? 'Free (0 credits)' : `${o.credits} credits`}</li>`
  return html`<article class="operation" id="${o.anchor}" aria-labelledby="${o.anchor}-title">
<h3 id="${o.anchor}-title"><span class="method ${o.method.toLowerCase()}">${o.method}</span><code>${o.path}</code></h3>
<p><strong>${o.title}</strong></p>
${o.description === undefined ? false : html`<p>${o.description}</p>`}
<ul class="meta">${credits}<li>${KEY_USE[o.key]}</li></ul>
${
  o.parameters.length === 0
    ? false
    : html`<h4>Parameters</h4>
<div class="table"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Accepts</th><th scope="col">Description</th></tr></thead>
<tbody>${o.parameters.map(
        (p) =>
          html`<tr><td><code>${p.name}</code><br><span class="small muted">${p.location}, ${p.required ? 'required' : 'optional'}</span></td><td>${p.accepts}</td><td>${p.description}${p.example === undefined ? false : html` Example: <code>${p.example}</code>.`}</td></tr>`,
      )}</tbody>
</table></div>`
}
<h4>Example request</h4>
<pre><code>${curlExample(api, o, true)}</code></pre>
${o.responseExample === undefined ? false : html`<h4>Example answer</h4><pre><code>${prettyJson(o.responseExample)}</code></pre>`}
<h4>Responses</h4>
<div class="table"><table>
<thead><tr><th scope="col">Status</th><th scope="col">Meaning</th><th scope="col">Error codes</th></tr></thead>
<tbody>${o.responses.map((r) => html`<tr><td>${r.status}</td><td>${r.description}</td><td>${r.codes.map((c, i) => html`${i > 0 ? ', ' : ''}<code>${c}</code>`)}</td></tr>`)}</tbody>
</table></div>
</article>`
}

/** Every error code the document names, with its status and where it first appears. */
function errorTable(api: ApiView): Html {
  const codes = new Map<string, { status: string; description: string }>()
  for (const o of api.operations) for (const r of o.responses) for (const c of r.codes) if (!codes.has(c)) codes.set(c, { status: r.status, description: r.description })
  const rows = [...codes].sort(([a, x], [b, y]) => x.status.localeCompare(y.status) || a.localeCompare(b))
  return html`<div class="table"><table class="compact">
<thead><tr><th scope="col">Code</th><th scope="col">Meaning</th></tr></thead>
<tbody>${rows.map(([code, r]) => html`<tr><td><code>${code}</code><br><span class="small muted">HTTP ${r.status}</span></td><td>${r.description}</td></tr>`)}</tbody>
</table></div>`
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}
