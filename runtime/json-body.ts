import type { IncomingMessage } from 'node:http'
import { ApiError, invalidParameter } from '../query/api-error.js'
import { ClientGone } from './client-gone.js'

/** The largest JSON body a route takes unless it says otherwise: registration bodies are a few dozen bytes. */
export const MAX_BODY_BYTES = 4096

/**
 * A request's JSON object body: application/json, at most `limit` bytes (refused as
 * soon as more arrives, without reading the rest), valid UTF-8 JSON, an object.
 */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/json') throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.')
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge(limit)
  const chunks: Buffer[] = []
  let size = 0
  // A client that ends its side (or resets) before its body is complete will never send
  // the rest: its request is over, not left to the request timeout.
  const cutShort = () => {
    if (!req.complete) req.destroy(new ClientGone())
  }
  if (req.socket.readableEnded) cutShort()
  else req.socket.once('end', cutShort)
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length
      if (size > limit) throw tooLarge(limit)
      chunks.push(chunk as Buffer)
    }
  } catch (error) {
    throw req.complete ? error : new ClientGone()
  } finally {
    req.socket.off('end', cutShort)
  }
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)))
  } catch {
    throw invalidParameter('body', 'The body is not valid JSON.')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidParameter('body', 'The body must be a JSON object.')
  return body as Record<string, unknown>
}

function tooLarge(limit: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The body is larger than ${limit} bytes.`, {}, { Connection: 'close' })
}
