import { digest } from './canonical.js'

/**
 * The weak ETag of a market answer: a digest of the snapshot's build id, the route and
 * the canonical query. It names what the answer says, not the credit fields (which
 * differ from call to call), so it stays the same for as long as the same snapshot
 * answers the same request, and changes with every new build.
 */
export function marketEtag(buildId: string, path: string, canonical: string): string {
  return `W/"${digest(`${buildId}\n${path}\n${canonical}`)}"`
}

/**
 * Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 13.1.2): one of
 * its entity tags, with or without W/, or `*`.
 */
export function etagMatches(header: string, etag: string): boolean {
  if (header === etag) return true
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag
  for (const entry of header.split(',')) {
    const tag = entry.trim()
    if (tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === opaque) return true
  }
  return false
}
