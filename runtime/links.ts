/** Where the service sends people, made once from the public URL. */
export interface Links {
  /** The public URL without a trailing slash: the base of every absolute link. */
  readonly publicUrl: string
  /** Its path without a trailing slash, '' at the root: the API and the pages answer under it. */
  readonly basePath: string
  /** Where a caller without a key registers for one (DEMO_LIMIT_REACHED's register_url). */
  readonly registerUrl: string
  /** Where a caller short of credits buys more (INSUFFICIENT_CREDITS's top_up_url). */
  readonly topUpUrl: string
  /** The mailbox support answers at: what ACCOUNT_DISABLED and the pages name. */
  readonly support: string
}

/**
 * The links of a service at `publicUrl` (http(s), with or without a path); support at
 * `support`, by default support@ the public URL's host.
 */
export function linksOf(publicUrl: string, support?: string): Links {
  const url = publicUrl.replace(/\/+$/, '')
  const parsed = new URL(url)
  return {
    publicUrl: url,
    basePath: parsed.pathname.replace(/\/+$/, ''),
    registerUrl: `${url}/register`,
    topUpUrl: `${url}/#plans`,
    support: support ?? `support@${parsed.hostname}`,
  }
}
