import { ServerResponse, type IncomingMessage } from 'node:http'
import type { ApiError } from '../query/api-error.js'

/** Headers as a flat list of names and values, as writeHead takes them. */
export type HeaderList = readonly (string | number)[]
/** Headers by name, or as a flat list. */
export type Headers = Readonly<Record<string, string | number>> | HeaderList

const NONE: HeaderList = []

/**
 * A response that knows its request's id and the CORS headers every answer to it carries,
 * sent with the other headers in one writeHead.
 */
export class ApiResponse extends ServerResponse {
  requestId = ''
  cors: HeaderList = NONE
}

/**
 * Every answer goes out here: content type and length, no caching unless the headers
 * say otherwise, no content sniffing, and HEAD answered like GET without its body.
 */
export function send(
  req: IncomingMessage,
  res: ApiResponse,
  status: number,
  body: string | Buffer,
  headers: Headers = NONE,
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
  if (!has(headers, 'Cache-Control')) list.push('Cache-Control', 'no-store')
  append(list, headers)
  append(list, res.cors)
  res.writeHead(status, joined(res, list))
  res.end(req.method === 'HEAD' ? undefined : body)
}

/**
 * An answer without a body (204 No Content, 304 Not Modified): the headers given and
 * none of a body's (RFC 9110 forbids Content-Length on a 204 and 304 repeats a 200's).
 */
export function sendEmpty(res: ApiResponse, status: 204 | 304, headers: Headers): void {
  const list: (string | number)[] = ['X-Request-Id', res.requestId]
  append(list, headers)
  append(list, res.cors)
  res.writeHead(status, joined(res, list))
  res.end()
}

/** An error in the spec's envelope, with the headers the error carries. */
export function sendError(req: IncomingMessage, res: ApiResponse, error: ApiError): void {
  send(req, res, error.status, errorBody(error), error.headers)
}

/** A success in the spec's envelope. `data` is JSON already. */
export function sendData(req: IncomingMessage, res: ApiResponse, data: string, headers: Headers = NONE): void {
  send(req, res, 200, dataBody(data), headers)
}

/** The spec's error envelope. */
export function errorBody(error: ApiError): string {
  return JSON.stringify({ status: 'error', error: error.toJSON() })
}

/** The spec's success envelope around data that is JSON already. */
export function dataBody(data: string): string {
  return `{"status":"success","data":${data}}`
}

function append(list: (string | number)[], headers: Headers): void {
  if (isList(headers)) for (const item of headers) list.push(item)
  else for (const name in headers) list.push(name, headers[name]!)
}

/** Headers whose value is a list, which an answer may be given from more than one place (a policy of each limit). */
const LISTS = new Set(['Vary', 'RateLimit', 'RateLimit-Policy'])
/** Of those, the ones the rate limit sets on the response before its route answers. */
const SET_EARLY = new Set(['RateLimit', 'RateLimit-Policy'])

/**
 * The list with each list-valued header made one, its values joined in order after any
 * the response already holds (the rate limit's, set before its route answered): once a
 * header was set on the response, writeHead sets the list's one by one, and a second
 * Vary or RateLimit would replace the first.
 */
function joined(res: ApiResponse, list: (string | number)[]): (string | number)[] {
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i] as string
    if (!LISTS.has(name)) continue
    let at = 0
    while (list[at] !== name) at += 2
    if (at === i) {
      const held = SET_EARLY.has(name) ? res.getHeader(name) : undefined
      if (held !== undefined) list[i + 1] = `${String(held)}, ${list[i + 1]}`
    } else {
      list[at + 1] = `${list[at + 1]}, ${list[i + 1]}`
      list.splice(i, 2)
      i -= 2
    }
  }
  return list
}

function has(headers: Headers, name: string): boolean {
  if (!isList(headers)) return name in headers
  for (let i = 0; i < headers.length; i += 2) if (headers[i] === name) return true
  return false
}

function isList(headers: Headers): headers is HeaderList {
  return Array.isArray(headers)
}
