import { ServerResponse, type IncomingMessage } from 'node:http'
import type { ApiError } from '../query/api-error.js'

/** A response that knows its request's id, sent with the other headers in one writeHead. */
export class ApiResponse extends ServerResponse {
  requestId = ''
}

/**
 * Every answer goes out here: content type and length, no caching of metered
 * answers, no content sniffing, and HEAD answered like GET without its body.
 */
export function send(
  req: IncomingMessage,
  res: ApiResponse,
  status: number,
  body: string | Buffer,
  headers: Readonly<Record<string, string | number>> = {},
  contentType = 'application/json; charset=utf-8',
): void {
  // One flat list to writeHead: node's fast path, no header object built per answer.
  const list: (string | number)[] = [
    'Content-Type',
    contentType,
    'Content-Length',
    Buffer.byteLength(body),
    'X-Content-Type-Options',
    'nosniff',
    'X-Request-Id',
    res.requestId,
  ]
  if (!('Cache-Control' in headers)) list.push('Cache-Control', 'no-store')
  for (const name in headers) list.push(name, headers[name]!)
  res.writeHead(status, list)
  res.end(req.method === 'HEAD' ? undefined : body)
}

/** An error in the spec's envelope, with the headers the error carries. */
export function sendError(req: IncomingMessage, res: ApiResponse, error: ApiError): void {
  send(req, res, error.status, errorBody(error), error.headers)
}

/** A success in the spec's envelope. `data` is JSON already. */
export function sendData(req: IncomingMessage, res: ApiResponse, data: string): void {
  send(req, res, 200, dataBody(data))
}

/** The spec's error envelope. */
export function errorBody(error: ApiError): string {
  return JSON.stringify({ status: 'error', error: error.toJSON() })
}

/** The spec's success envelope around data that is JSON already. */
export function dataBody(data: string): string {
  return `{"status":"success","data":${data}}`
}
