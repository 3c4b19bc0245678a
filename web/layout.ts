import { FAVICON } from './favicon.js'
import { html, type Html } from './html.js'
import { LOGO } from './logo.js'
import type { Resource } from './resource.js'
import { STYLESHEET } from './style.js'

export interface Page {
  readonly title: string
  readonly description: string
  /** The page's own address, marked as the current one in the navigation. */
  readonly path: string
  readonly main: Html
  /** A script of this origin, loaded as a module (so deferred): pages carry no inline script. */
  readonly script?: Resource
}

const NAVIGATION = [
  ['/explore', 'Explore'],
  ['/docs', 'API reference'],
  ['/#plans', 'Plans'],
  ['/account', 'Account'],
] as const

/**
 * The whole document of a page: head, site header and footer around its main content.
 * Every link within the site starts with `base`, the public URL's path ('' at the root).
 */
export function layout(page: Page, base: string): string {
  const nav = NAVIGATION.map(
    ([href, label]) =>
      html`<a href="${base}${href}"${page.path === href ? html` aria-current="page"` : false}>${label}</a>`,
  )
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<meta name="description" content="${page.description}">
<link rel="icon" href="${base}${FAVICON.path}" sizes="16x16 32x32">
<link rel="icon" href="${base}${LOGO.path}" type="image/svg+xml">
<link rel="stylesheet" href="${base}${STYLESHEET.path}">
${page.script === undefined ? false : html`<script type="module" src="${base}${page.script.path}"></script>`}
</head>
<body>
<header class="site"><div class="wrap">
<a class="brand" href="${base}/"><img src="${base}${LOGO.path}" alt="" width="28" height="28">carmarket</a>
<nav class="main" aria-label="Main">${nav}<a class="button" href="${base}/register"${page.path === '/register' ? html` aria-current="page"` : false}>Get a free key</a></nav>
</div></header>
<main id="main">
${page.main}
</main>
<footer class="site"><div class="wrap">
<nav aria-label="Machine-readable">
<a href="${base}/docs">API reference</a>
<a href="${base}/v1/openapi.json">OpenAPI document</a>
<a href="${base}/docs#mcp">MCP</a>
<a href="${base}/llms.txt">llms.txt</a>
<a href="${base}/.well-known/ai-plugin.json">Plugin manifest</a>
<a href="${base}/#legal">Terms</a>
</nav>
<p>Aggregated statistics on the Polish used-car market. Valuations are statistical estimates, not offers to buy or sell.</p>
</div></footer>
</body>
</html>
`.text
}
