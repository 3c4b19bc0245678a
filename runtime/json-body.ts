import type { IncomingMessage } from 'node:http'
import { ApiError, invalidParameter } from '../query/api-error.js'
import { ClientGone } from './client-gone.js'

/** The largest JSON body a route takes unless it says otherwise: registration bodies are a few dozen bytes. */
export const MAX_BODY_BYTES = 4096

/**
 * A request's body as it came: one of the `accepted` media types (the first when the
 * header names none, none accepted else: 415), at most `limit` bytes (refused as soon as
 * more arrives, without reading the rest).
 */
export async function readBody(
  req: IncomingMessage,
  limit: number,
  accepted: readonly string[],
): Promise<{ readonly type: string; readonly bytes: Buffer }> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (!accepted.includes(type))
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send the body as ${accepted.join(' or ')}.`)
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
  return { type, bytes: Buffer.concat(chunks) }
}

/**
 * A request's JSON object body: application/json, at most `limit` bytes, valid UTF-8
 * JSON, an object.
 */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  return jsonObject((await readBody(req, limit, ['application/json'])).bytes)
}

/** JSON bytes that must be a JSON object (400 naming `body` else). */
export function jsonObject(bytes: Buffer): Record<string, unknown> {
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw invalidParameter('body', 'The body is not valid JSON.')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidParameter('body', 'The body must be a JSON object.')
  return body as Record<string, unknown>
}

/** A web form's fields (application/x-www-form-urlencoded), each once: a field given twice is refused by name. */
export function formFields(bytes: Buffer): Record<string, unknown> {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw invalidParameter('body', 'The form is not valid UTF-8.')
  }
  const fields: Record<string, unknown> = {}
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(fields, name)) throw invalidParameter(name.slice(0, 50), `${name.slice(0, 50)} is given twice`)
    fields[name] = value
  }
  return fields
}

function tooLarge(limit: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The body is larger than ${limit} bytes.`, {}, { Connection: 'close' })
}
