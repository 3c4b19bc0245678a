import { HISTORY_MONTHS, MIN_LISTINGS } from '../format/schema.js'
import { VOIVODESHIPS } from '../format/vocabulary.js'
import { CREDIT_USD, PLANS, SIGNUP_CREDITS } from '../query/prices.js'
import type { OperationView } from './api-view.js'
import { USE } from '../mcp/tool-guidance.js'
import { count, dollars } from '../format/amounts.js'
import { figures } from './figures.js'
import { MCP_PACKAGE_PATH } from './mcp-package.js'
import type { Site } from './site.js'

/**
 * `/llms.txt` (the llms.txt convention: a title, a summary in a quote, then sections of
 * links): a guide for language models. The per-operation lines come from the served
 * document, so a new operation, parameter or price shows here by itself.
 */
export function llmsTxt(site: Site): string {
  const api = site.api
  const line = (o: OperationView) => {
    const required = o.parameters.filter((p) => p.required).map((p) => p.name)
    const optional = o.parameters.filter((p) => !p.required).map((p) => p.name)
    const terms = [
      o.credits === undefined || o.credits === 0 ? 'free' : `${o.credits} credits`,
      required.length > 0 && `takes ${required.join(', ')}`,
      optional.length > 0 && `optional ${optional.join(', ')}`,
    ]
    return [
      `- [${o.title}](${site.url}/docs#${o.anchor}): \`${o.method} ${o.path}\` (${terms.filter(Boolean).join('; ')}).`,
      o.lead,
      USE.get(o.path),
    ]
      .filter(Boolean)
      .join(' ')
  }
  const tagged = (tag: string) => api.operations.filter((o) => o.tag === tag)
  const demo =
    site.demoQuota > 0
      ? `Without the header, market calls are served by the keyless demo tier: real data, ${site.demoQuota} calls per client address per day, then 429 DEMO_LIMIT_REACHED with \`register_url\`.`
      : 'Every market call needs a key on this server.'
  const facts = figures(site.served)
  const source =
    facts === undefined
      ? 'aggregated from publicly available listings'
      : `aggregated from ${facts.listings} listings of ${facts.makes} makes and ${facts.models} models` +
        ` (data as of ${facts.asOf}, built ${facts.built.slice(0, 10)})`
  const smallest = PLANS[0]
  const largest = PLANS[PLANS.length - 1]!
  return `# carmarket: ${api.title}

> ${api.description} Statistics only, never individual listings: ${source}, ${VOIVODESHIPS.length} voivodeships, up to ${HISTORY_MONTHS} months of monthly history. Valuations are statistical estimates, not offers.

- Base URL: ${api.server}. Every answer is JSON: \`{"status":"success","data":{...}}\` or \`{"status":"error","error":{"code":"...","message":"..."}}\`.
- Authentication: send the key in the \`${api.keyHeader}\` header. ${demo} A header that is present but empty or unknown is 401 UNAUTHORIZED.
- Keys: free registration by e-mail one-time code (${site.url}/register) opens an account with ${SIGNUP_CREDITS} credits and e-mails its key. A lost key is replaced by registering the same address again (a new key is e-mailed, the old one revoked, the credits kept); POST /v1/account/keys/rotate replaces a key that still works.
- Credits: each market call costs the credits listed below; catalogue and account calls are free; a failed call (400, 404, 500) is refunded automatically. A credit is worth ${dollars(CREDIT_USD)}; credits never expire; plans run from ${dollars(smallest.usd)} for ${count(smallest.credits)} credits to ${dollars(largest.usd)} for ${count(largest.credits)} (${site.url}/#plans). 402 INSUFFICIENT_CREDITS carries \`top_up_url\`.
- Names: \`make\` and \`model\` accept aliases (VW) and English family names (3 Series); words after the model narrow a valuation or depreciation (Golf GTI, Corolla Hybrid, 320d, A4 Avant 2.0 TDI), as do \`version\`, \`body_type\` and \`power_hp\`; the \`matched\` block of an answer shows how they were read and what was applied (words the data cannot tell are listed in \`unresolved\`, never dropped in silence); the free catalogue lists the names, and per model and year the versions, the data hold. 404 INSUFFICIENT_DATA means fewer than ${MIN_LISTINGS} listings matched, with \`suggestions\` for a name it did not know.

## Market operations

${tagged('market').map(line).join('\n')}

## Catalogue operations

${tagged('catalog').map(line).join('\n')}

## Account operations

${tagged('account').map(line).join('\n')}

## Docs

- [OpenAPI document](${site.url}/v1/openapi.json): the machine-readable description (OpenAPI 3.1): every parameter with its accepted values and bounds, every answer and error.
- [API reference](${site.url}/docs): the same for people, with a curl example of each operation.
- [MCP endpoint](${site.url}/mcp): a Model Context Protocol server over Streamable HTTP offering these operations as tools; it works without a key too (the demo tier).
- [MCP package](${site.url}${MCP_PACKAGE_PATH}): the same tools for clients that speak stdio only: \`npx -y ${site.url}${MCP_PACKAGE_PATH}\`, the key in \`CARMARKET_API_KEY\`.
- [MCP set-up](${site.url}/docs#mcp): how to connect an HTTP client or a desktop client, and the tools.
- [Registration](${site.url}/register): a key and ${SIGNUP_CREDITS} free credits, by e-mail.
- [Explorer](${site.url}/explore): a page for people that draws the market operations' answers for one make, model and year (price distribution, mileage effect, price history, depreciation, a map of the voivodeships, days on market, attribute factors), each part one metered call made from the browser.

## Optional

- [Plans](${site.url}/#plans): the credit plans and how to buy them.
- [Plugin manifest](${site.url}/.well-known/ai-plugin.json): the ai-plugin.json manifest.
${tagged('registration')
  .map((o) => `- [${o.method} ${o.path}](${site.url}/docs#${o.anchor}): ${o.summary}`)
  .join('\n')}
`
}
