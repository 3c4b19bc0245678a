import type { ApiView, KeyUse, OperationView } from './api-view.js'
import { KEY_VARIABLE, curlExample } from './curl.js'
import { exampleAnswer, exampleOf } from './example.js'
import { figures } from './figures.js'
import { prose } from './prose.js'
import { ERROR_MEANINGS } from '../runtime/error-meanings.js'
import type { ErrorCode } from '../query/api-error.js'
import { codeBlock, html, type Html } from './html.js'
import { layout } from './layout.js'
import { MCP_PACKAGE_PATH } from './mcp-package.js'
import { prettyJson } from './pretty-json.js'
import type { Site } from './site.js'
import { table } from './table.js'

const KEYED_ANSWER = html`; with a key the answer also carries <code>credits_remaining</code>, the balance left`

const KEY_USE: Record<KeyUse, string> = {
  required: 'Key required',
  optional: 'Key optional: without it, the keyless demo tier',
  none: 'No key',
}

/** `/docs`: the human API reference, rendered from the served OpenAPI document and snapshot. */
export function docsPage(site: Site): string {
  const api = site.api
  const facts = figures(site.served)
  // The contents are a sidebar on a wide screen and a closed disclosure under the title on a narrow one (style.ts).
  const main = html`<div class="wrap docs">
<nav class="toc" aria-label="Contents">${contents(api)}</nav>
<div>
<h1>${api.title}: API reference</h1>
<p class="lead">${prose(api.description)}</p>
<ul class="meta">
<li>Version ${api.version}</li>
<li>Base URL <code>${api.server}</code></li>
${facts === undefined ? false : html`<li>Data as of <time datetime="${facts.asOf}">${facts.asOfText}</time></li>`}
<li><a href="${site.base}/v1/openapi.json">OpenAPI document</a></li>
<li><a href="${site.base}/explore">See the answers drawn</a></li>
</ul>
<details class="contents"><summary>Contents</summary><nav aria-label="Contents">${contents(api)}</nav></details>

<section id="authentication" aria-labelledby="authentication-title">
<h2 id="authentication-title">Authentication</h2>
<p>Send your key in the <code>${api.keyHeader}</code> header. Keys are e-mailed after <a href="${site.base}/register">registration</a>, which is free and comes with credits to start.</p>
<p>The examples read the key from the shell variable <code>${KEY_VARIABLE}</code> (set it with
<code>${KEY_VARIABLE}=</code> and your key); while it is unset the shell stops with a message instead of sending
the call without a key.</p>
<p>Where a key is optional, a call without the header is served by the keyless demo tier. A header that is present but empty or unknown is refused with 401, never served as a demo call.</p>
</section>

<section id="errors" aria-labelledby="errors-title">
<h2 id="errors-title">Errors</h2>
<p>Every failure answers <code>{"status":"error","error":{"code":"…","message":"…"}}</code>; some codes add fields to <code>error</code>, as the OpenAPI document describes. A market call that fails costs nothing.</p>
${errorTable(api)}
</section>

${mcpSection(site)}

${api.tags.map(
  (tag) => html`<section id="${tag.name}" aria-labelledby="${tag.name}-title">
<h2 id="${tag.name}-title">${capitalised(tag.name)}</h2>
<p class="tag-description">${prose(tag.description)}</p>
${tag.operations.map((o) => operationSection(site, o))}
</section>`,
)}
</div>
</div>`
  return layout(
    {
      title: `API reference: ${api.title}`,
      description: `Every operation of the ${api.title} API, with parameters, prices, answers and errors.`,
      path: '/docs',
      main,
    },
    site.base,
  )
}

function contents(api: ApiView): Html {
  return html`<h2>Overview</h2>
<ul>
<li><a href="#authentication">Authentication</a></li>
<li><a href="#errors">Errors</a></li>
<li><a href="#mcp">MCP</a></li>
</ul>
${api.tags.map(
  (tag) => html`<h2>${tag.name}</h2>
<ul>${tag.operations.map((o) => html`<li><a href="#${o.anchor}">${o.method} ${o.path}</a></li>`)}</ul>`,
)}`
}

/** How to reach the MCP tools, from a desktop client and over HTTP, and which they are. */
function mcpSection(site: Site): Html {
  const api = site.api
  const stdio = ['-y', `${site.url}${MCP_PACKAGE_PATH}`]
  const server = { command: 'npx', args: stdio, env: { CARMARKET_API_KEY: '<your key>' } }
  const config = { mcpServers: { carmarket: server } }
  const operation = (path: string) => {
    const found = api.operations.find((o) => o.path === path)
    if (found === undefined) throw new Error(`OpenAPI document: no operation ${path} for its MCP tool`)
    return found
  }
  const keyless =
    site.demoQuota > 0
      ? 'without it, the market tools use the keyless demo tier and the account tools are not offered'
      : 'without it, the market tools are refused on this server (it has no demo tier) and the account tools are not offered'
  return html`<section id="mcp" aria-labelledby="mcp-title">
<h2 id="mcp-title">MCP</h2>
<p>The market, catalogue and account operations are also the tools of a Model Context Protocol server, for AI
assistants and agents. A tool call is the API call: the same answers, errors and credits. The key is optional:
${keyless}; the catalogue tools are free and need none.</p>
<h3>Streamable HTTP</h3>
<p>A client that connects over HTTP uses the endpoint <code>${site.url}/mcp</code> (Streamable HTTP, POST only,
no sessions), with the key in the <code>${api.keyHeader}</code> header of its requests.</p>
<h3>A desktop client (stdio)</h3>
<p>For a client that starts a program instead, this service serves a small package, carmarket-mcp (Node.js 18
or later, no dependencies), which passes each message on to that endpoint: <code>npx ${stdio.join(' ')}</code>
installs and runs it. In the client's configuration (Claude Desktop's <code>claude_desktop_config.json</code>,
and the same shape for other clients):</p>
${codeBlock(prettyJson(config))}
<p>It says on its standard error which service it calls and whether with a key; <code>--base-url</code>
and <code>--api-key</code> (or <code>CARMARKET_BASE_URL</code>) change them.</p>
<h3>Tools</h3>
${table(
  [{ label: 'Tool' }, { label: 'Operation' }, { label: 'Credits', numeric: true }],
  site.tools.map((tool) => {
    const o = operation(tool.path)
    const keyOnly = tool.needsKey ? html`<br><span class="small muted">with a key only</span>` : false
    return [
      html`<code>${tool.tool.name}</code>${keyOnly}`,
      html`<a href="#${o.anchor}">${o.title}</a><br><code>${o.method} ${o.path}</code>`,
      o.credits ?? 0,
    ]
  }),
)}
</section>`
}

function operationSection(site: Site, o: OperationView): Html {
  const api = site.api
  const example = exampleOf(site, o)
  const credits =
    o.credits === undefined ? false : html`<li>${o.credits === 0 ? 'Free (0 credits)' : `${o.credits} credits`}</li>`
  return html`<article class="operation" id="${o.anchor}" aria-labelledby="${o.anchor}-title">
<h3 id="${o.anchor}-title"><span class="method ${o.method.toLowerCase()}">${o.method}</span><code>${o.path}</code></h3>
<p><strong>${prose(o.title)}</strong></p>
${o.description === undefined ? false : html`<p>${prose(o.description)}</p>`}
<ul class="meta">${credits}<li>${KEY_USE[o.key]}</li></ul>
${
  o.parameters.length === 0
    ? false
    : html`<h4>Parameters</h4>
${table(
  [{ label: 'Name' }, { label: 'Accepts' }, { label: 'Description' }],
  o.parameters.map((p) => [
    named(p.name, `${p.location}, ${p.required ? 'required' : 'optional'}`),
    p.accepts,
    html`${prose(p.description)}${p.example === undefined ? false : html` Example: <code>${p.example}</code>.`}`,
  ]),
)}`
}
<h4>Example request</h4>
${codeBlock(curlExample(api, o, true, example?.query))}
${
  example === undefined
    ? false
    : html`<h4>Example answer${example.status === 200 ? '' : ` (HTTP ${example.status})`}</h4>
${exampleAnswer(example)}
<p class="small muted">What the data served now answers${o.key === 'none' ? '' : KEYED_ANSWER}.</p>`
}
<h4>Responses</h4>
${table(
  [{ label: 'Status' }, { label: 'Meaning' }, { label: 'Error codes' }],
  o.responses.map((r) => [r.status, prose(r.description), codeList(r.codes)]),
)}
</article>`
}

/** Every error code the document names, with its status and what it means (ERROR_MEANINGS). */
function errorTable(api: ApiView): Html {
  const codes = new Map<string, string>()
  for (const o of api.operations)
    for (const r of o.responses) for (const c of r.codes) if (!codes.has(c)) codes.set(c, r.status)
  const rows = [...codes].sort(([a, x], [b, y]) => x.localeCompare(y) || a.localeCompare(b))
  return table(
    [{ label: 'Code' }, { label: 'Meaning' }],
    rows.map(([code, status]) => [named(code, `HTTP ${status}`), prose(ERROR_MEANINGS[code as ErrorCode])]),
  )
}

/** A name in code, with a note under it. */
function named(name: string, note: string): Html {
  return html`<code>${name}</code><br><span class="small muted">${note}</span>`
}

function codeList(codes: readonly string[]): Html {
  return html`${codes.map((c, i) => html`${i > 0 ? ', ' : ''}<code>${c}</code>`)}`
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}
