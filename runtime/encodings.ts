import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/** A body compressed once, ahead of its requests, in the encodings browsers and clients ask for. */
export interface Encoded {
  readonly br: Buffer
  readonly gzip: Buffer
}

/** Bodies smaller than this gain less from compression than its headers cost. */
const SMALLEST = 1024
/**
 * Brotli quality 9: within a few per cent of the best (11) on the pages, at a sixth of its time (a 157 KB /docs in
 * 12 ms against 78 ms), so building the site for a snapshot stays quick.
 */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }

/** A text body (HTML, JSON, JavaScript, CSS, SVG, plain text) compressed, if that makes it smaller. */
export function encode(body: string | Buffer, contentType: string): Encoded | undefined {
  if (!/^(text\/|application\/json|image\/svg\+xml)/.test(contentType)) return undefined
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  if (bytes.length < SMALLEST) return undefined
  const encoded = { br: brotliCompressSync(bytes, BROTLI), gzip: gzipSync(bytes, { level: 9 }) }
  return encoded.gzip.length < bytes.length ? encoded : undefined
}

/**
 * The encoding to answer in, from the request's Accept-Encoding: brotli, else gzip, when the client takes it (a
 * coding given q=0 is refused); none without an encoded body.
 */
export function chosenEncoding(accept: string | undefined, encoded: Encoded | undefined): keyof Encoded | undefined {
  if (encoded === undefined || accept === undefined) return undefined
  const taken = new Set<string>()
  for (const part of accept.toLowerCase().split(',')) {
    const [coding, ...params] = part.trim().split(';')
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    if (coding !== undefined && (q === undefined || Number(q) > 0)) taken.add(coding.trim())
  }
  if (taken.has('br')) return 'br'
  if (taken.has('gzip') || taken.has('*')) return 'gzip'
  return undefined
}

/** The ETag of a representation: the body's, marked with its encoding (a compressed body is another representation). */
export function encodedEtag(etag: string, encoding: keyof Encoded | undefined): string {
  return encoding === undefined ? etag : `${etag.slice(0, -1)}-${encoding}"`
}
