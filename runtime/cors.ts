import type { HeaderList } from './send.js'

/** Which web pages may call the API from a browser: those of any origin, of the origins listed, or none. */
export type CorsOrigins = '*' | 'none' | readonly string[]

/** What a page may send: the key, the protocol's headers and a JSON body's type. */
export const CORS_REQUEST_HEADERS = ['X-API-Key', 'Idempotency-Key', 'If-None-Match', 'Content-Type', 'X-Request-Id']
/** What a page may read of an answer beyond the basic headers: limits, ids, validators and credits. */
export const CORS_EXPOSED_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-Id',
  'ETag',
  'X-Credits-Used',
  'X-Credits-Remaining',
  'Idempotent-Replayed',
]
/**
 * The routes that open, verify or read accounts (and any sign-in or billing route to
 * come, under these paths): a page of another site calling them from its visitors'
 * browsers could open accounts in their names or read them, so they are not open to any
 * origin (accountOrigins).
 */
export const ACCOUNT_ROUTE_PREFIXES = ['/v1/auth/', '/v1/account/', '/v1/billing/'] as const

/** Who may call the account routes from a page: the service's own origin and the origins listed; never any origin. */
export function accountOrigins(origins: CorsOrigins, own: string): CorsOrigins {
  return origins === 'none' ? 'none' : [...new Set([own, ...(origins === '*' ? [] : origins)])]
}

/** How long a browser may keep a preflight's answer (browsers cap it: Chromium at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 86_400
const METHODS = 'GET, HEAD, POST'

/**
 * Cross-origin calls to the API (`/v1/...`) from web pages. Never with credentials:
 * the API's only credential is the X-API-Key header a page sends itself, so no cookie or
 * browser-held authentication is ever involved, and any origin may be allowed.
 * Every header list is made once: an answer carries a list made at start.
 */
export class Cors {
  private readonly any: boolean
  private readonly allowed: ReadonlyMap<string, { readonly answer: HeaderList; readonly preflight: HeaderList }>
  private readonly refused: HeaderList

  constructor(readonly origins: CorsOrigins) {
    this.any = origins === '*'
    const lists = (origin: string, vary: HeaderList) => ({
      answer: [
        'Access-Control-Allow-Origin',
        origin,
        'Access-Control-Expose-Headers',
        CORS_EXPOSED_HEADERS.join(', '),
        ...vary,
      ],
      preflight: [
        'Access-Control-Allow-Origin',
        origin,
        'Access-Control-Allow-Methods',
        METHODS,
        'Access-Control-Allow-Headers',
        CORS_REQUEST_HEADERS.join(', '),
        'Access-Control-Max-Age',
        CORS_MAX_AGE_SECONDS,
        ...vary,
      ],
    })
    // With a list, an answer depends on the request's Origin: caches must key on it.
    const vary = ['Vary', 'Origin']
    this.allowed = new Map(
      origins === '*' ? [['*', lists('*', [])]] : origins === 'none' ? [] : origins.map((o) => [o, lists(o, vary)]),
    )
    this.refused = origins === '*' || origins === 'none' ? [] : vary
  }

  /** Whether cross-origin calls are answered at all (not `none`). */
  get enabled(): boolean {
    return this.origins !== 'none'
  }

  /** The headers an answer to a request from `origin` carries. */
  answer(origin: string | undefined): HeaderList {
    return this.lists(origin)?.answer ?? this.refused
  }

  /** The headers of a preflight's 204 from `origin`: none of the Access-Control ones for an origin not allowed. */
  preflight(origin: string | undefined): HeaderList {
    return this.lists(origin)?.preflight ?? this.refused
  }

  private lists(origin: string | undefined) {
    return this.any ? this.allowed.get('*') : origin === undefined ? undefined : this.allowed.get(origin)
  }
}
