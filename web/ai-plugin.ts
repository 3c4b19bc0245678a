import { SIGNUP_CREDITS } from '../query/prices.js'
import { LOGO } from './logo.js'
import type { Site } from './site.js'

/**
 * `/.well-known/ai-plugin.json`, the conventional manifest for language-model tooling.
 *
 * Its auth is "none": the manifest's http schemes send the key in an Authorization
 * header, which this API does not read, and every market operation answers without a
 * key (the keyless demo tier). A caller with a key sends it as X-API-Key, the scheme the
 * OpenAPI document declares, as description_for_model says.
 */
export function aiPlugin(site: Site): string {
  const api = site.api
  const market = api.operations.filter((o) => o.tag === 'market')
  return `${JSON.stringify(
    {
      schema_version: 'v1',
      name_for_human: 'Polish car market',
      name_for_model: 'carmarket',
      description_for_human:
        'Used-car prices in Poland: valuations, price trends, depreciation, days on market, regional prices.',
      description_for_model: [
        `Aggregated statistics on the Polish used-car market, prices in PLN, for a make and model (and most for a production year): ${market.map((o) => `${o.path} (${o.title.toLowerCase()}, ${o.credits ?? 0} credits)`).join('; ')}.`,
        'Makes and models may be aliases (VW) or English family names (3 Series), with words after the model that narrow a valuation (Golf GTI, 320d); the free, keyless /v1/catalog/makes, /v1/catalog/models?make= and /v1/catalog/versions?make=&model=&year= list what the data hold.',
        site.demoQuota > 0
          ? `Without a key the calls are served by a keyless demo tier, ${site.demoQuota} a day per client address; with a key, send it in the ${api.keyHeader} header and each call is charged in credits (failed calls are refunded).`
          : `Send the key in the ${api.keyHeader} header; each call is charged in credits (failed calls are refunded).`,
        `On 429 DEMO_LIMIT_REACHED or 402 INSUFFICIENT_CREDITS, pass on the register_url or top_up_url of the error to the user: registration gives ${SIGNUP_CREDITS} free credits.`,
        'The figures are statistical estimates of asking prices, not offers.',
      ].join(' '),
      auth: { type: 'none' },
      api: { type: 'openapi', url: `${site.url}/v1/openapi.json`, is_user_authenticated: false },
      logo_url: `${site.url}${LOGO.path}`,
      contact_email: site.support,
      legal_info_url: `${site.url}/#legal`,
    },
    null,
    2,
  )}\n`
}
