import { quickHash } from './canonical.js'

/**
 * The weak ETag of a market answer: a hash of the snapshot's build id, the route and
 * the canonical query. It names what the answer says, not the credit fields (which
 * differ from call to call), so it stays the same for as long as the same snapshot
 * answers the same request, and changes with every new build.
 */
export function marketEtag(buildId: string, path: string, canonical: string): string {
  return `W/"${quickHash(`${buildId}\n${path}\n${canonical}`)}"`
}

/** Whether an If-None-Match header (if any) names a document that always exists (its `etag`, or `*`). */
export function unchanged(header: string | undefined, etag: string): boolean {
  return header !== undefined && etagMatches(header, etag) !== false
}

/**
 * What an If-None-Match header names of `etag` (weak comparison, RFC 9110 13.1.2): the
 * tag itself, among its entity tags, with or without W/ (`tag`); or any answer there is,
 * `*` (`any`: a 304 only if there is one); or neither (false).
 */
export function etagMatches(header: string, etag: string): 'tag' | 'any' | false {
  if (header === etag) return 'tag'
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag
  let any = false
  for (const entry of header.split(',')) {
    const tag = entry.trim()
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === opaque) return 'tag'
    if (tag === '*') any = true
  }
  return any ? 'any' : false
}
