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
  /** The mailbox plans are ordered from when they are not sold online; none when the operator named none. */
  readonly sales: string | undefined
  /**
   * Where the payment provider's pages are, when plans are sold online here: the /buy page's form is sent on to them
   * (its Content-Security-Policy names this origin). Undefined when plans are not sold online.
   */
  readonly payPageOrigin: string | undefined
}

/**
 * The links of a service at `publicUrl` (http(s), with or without a path); support at
 * `support`, by default support@ the public URL's host; plans sold online (their payment pages at `payPageOrigin`),
 * or ordered from `sales`. Credits are bought on /buy, which says how either way.
 */
export function linksOf(
  publicUrl: string,
  support?: string,
  selling: { readonly sales?: string | undefined; readonly payPageOrigin?: string | undefined } = {},
): Links {
  const url = publicUrl.replace(/\/+$/, '')
  const parsed = new URL(url)
  return {
    publicUrl: url,
    basePath: parsed.pathname.replace(/\/+$/, ''),
    registerUrl: `${url}/register`,
    topUpUrl: `${url}/buy`,
    support: support ?? `support@${parsed.hostname}`,
    sales: selling.sales,
    payPageOrigin: selling.payPageOrigin,
  }
}
