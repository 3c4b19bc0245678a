import type { IncomingMessage } from 'node:http'
import type { Links } from '../runtime/links.js'
import type { ApiResponse } from '../runtime/send.js'
import { accountPage } from './account-page.js'
import { ACCOUNT_SCRIPT } from './account-script.js'
import { aiPlugin } from './ai-plugin.js'
import { browserModules } from './browser-modules.js'
import { buyHandler } from './buy-page.js'
import { docsPage } from './docs-page.js'
import { explorePage } from './explore-page.js'
import { EXPLORE_SCRIPT } from './explore-script.js'
import { FAVICON } from './favicon.js'
import { landingPage } from './landing-page.js'
import { llmsTxt } from './llms-txt.js'
import { LOGO } from './logo.js'
import { mcpPackage } from './mcp-package.js'
import { registerPage } from './register-page.js'
import { REGISTER_SCRIPT } from './register-script.js'
import { resource, serveResource } from './resource.js'
import { robots } from './robots.js'
import { site, type Served } from './site.js'
import { STYLESHEET } from './style.js'

const HTML = 'text/html; charset=utf-8'
/** The explorer page's script, by its path among the compiled modules it imports (charts/, format/). */
const EXPLORE_ENTRY = 'web/explore.js'
/** Read once: the modules are the code's, the same for every snapshot the pages are rebuilt for. */
const MODULES = browserModules({ [EXPLORE_ENTRY]: EXPLORE_SCRIPT })

/**
 * The web pages and the files for language-model tooling, each built once from the
 * served OpenAPI document (its JSON), the service's links, the demo quota and the snapshot
 * served (none before one is open): a path and the handler of its GET (and HEAD).
 */
export function webRoutes(
  documentJson: string,
  links: Links,
  demoQuota: number,
  served?: Served,
): [string, (req: IncomingMessage, res: ApiResponse) => void][] {
  const s = site(documentJson, links, demoQuota, served)
  const resources = [
    resource('/', landingPage(s), HTML),
    resource('/register', registerPage(s), HTML),
    resource('/account', accountPage(s), HTML),
    resource('/explore', explorePage(s, MODULES.module(EXPLORE_ENTRY)), HTML),
    resource('/docs', docsPage(s), HTML),
    resource('/llms.txt', llmsTxt(s), 'text/plain; charset=utf-8'),
    resource('/.well-known/ai-plugin.json', aiPlugin(s), 'application/json; charset=utf-8'),
    mcpPackage(s),
    robots(links.basePath),
    FAVICON,
    LOGO,
    STYLESHEET,
    REGISTER_SCRIPT,
    ACCOUNT_SCRIPT,
    ...MODULES.resources,
  ]
  return [
    ...resources.map((r): [string, (req: IncomingMessage, res: ApiResponse) => void] => [
      r.path,
      (req, res) => serveResource(req, res, r),
    ]),
    ['/buy', buyHandler(s, links.payPageOrigin)],
  ]
}
