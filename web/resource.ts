import type { IncomingMessage } from 'node:http'
import { chosenEncoding, encode, encodedEtag, type Encoded } from '../runtime/encodings.js'
import { etagOf } from '../runtime/etag.js'
import { unchanged } from '../runtime/revalidation.js'
import { send, sendEmpty, type ApiResponse } from '../runtime/send.js'

/** A response built once at start-up: a request for it is a map look-up and a write. */
export interface Resource {
  readonly path: string
  /** Text, or the bytes of an image drawn in code. */
  readonly body: string | Buffer
  readonly contentType: string
  readonly etag: string
  readonly cacheControl: string
  /** Its own Content-Security-Policy, when it needs more than CONTENT_SECURITY_POLICY allows. */
  readonly csp?: string
  /** The body compressed at start-up, for the clients that take it; none for a small or binary body. */
  readonly encoded?: Encoded | undefined
}

/**
 * Only this origin's own files: no inline script or style, no third-party anything,
 * and no framing (the registration form must not be overlaid by another site).
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** A document at a fixed address: revalidated on each use, so a deploy shows at once. */
export function resource(path: string, body: string | Buffer, contentType: string, compress = true): Resource {
  const encoded = compress ? encode(body, contentType) : undefined
  return { path, body, contentType, etag: etagOf(body), cacheControl: 'no-cache', encoded }
}

/**
 * A stylesheet, script or image: its address carries its ETag, so it can be cached for a
 * year and a new version is a new address.
 */
export function asset(name: string, extension: string, body: string, contentType: string): Resource {
  const etag = etagOf(body)
  return {
    path: `/assets/${name}.${etag.slice(1, 11)}.${extension}`,
    body,
    contentType,
    etag,
    cacheControl: 'public, max-age=31536000, immutable',
    encoded: encode(body, contentType),
  }
}

export function serveResource(req: IncomingMessage, res: ApiResponse, resource: Resource): void {
  const encoding = chosenEncoding(req.headers['accept-encoding'], resource.encoded)
  const etag = encodedEtag(resource.etag, encoding)
  const headers: Record<string, string> = {
    ETag: etag,
    'Cache-Control': resource.cacheControl,
    'Content-Security-Policy': resource.csp ?? CONTENT_SECURITY_POLICY,
    'Referrer-Policy': 'same-origin',
  }
  if (resource.encoded !== undefined) headers.Vary = 'Accept-Encoding'
  if (unchanged(req.headers['if-none-match'], etag)) return sendEmpty(res, 304, headers)
  if (encoding !== undefined) headers['Content-Encoding'] = encoding
  const body = encoding === undefined ? resource.body : resource.encoded![encoding]
  send(req, res, 200, body, headers, resource.contentType)
}
