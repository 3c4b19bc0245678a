import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { isJsonObject, type JsonObject } from './json.js'

/** What the API answered (its HTTP status and its envelope), or why it could not be asked. */
export type Answer = { readonly status: number; readonly body: string } | { readonly unreachable: string }

/**
 * Calls an API operation by its path with a query string, as the one caller it was made for (with its key, or none).
 */
export type Caller = (path: string, query: string) => Promise<Answer>

/**
 * A tool's arguments as the query string an HTTP caller would send: every value as text
 * (a number as its digits, anything else that is not a string as its JSON), every
 * argument passed on, so that the API judges them all, an unknown one included.
 */
export function queryString(args: Readonly<Record<string, unknown>>): string {
  return Object.entries(args)
    .map(
      ([name, value]) =>
        `${encodeURIComponent(name)}=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`,
    )
    .join('&')
}

type Envelope =
  { readonly status: 'success'; readonly data: JsonObject } | { readonly status: 'error'; readonly error: JsonObject }

function envelope(body: string): Envelope | undefined {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return undefined
  }
  if (!isJsonObject(value)) return undefined
  if (value.status === 'success' && isJsonObject(value.data)) return { status: 'success', data: value.data }
  if (value.status === 'error' && isJsonObject(value.error) && typeof value.error.code === 'string')
    return { status: 'error', error: value.error }
  return undefined
}

function failure(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] }
}

/**
 * The tool result of an answer: its `data` on success, its `error` object (code,
 * message and fields such as `parameter` or `register_url`) on failure, as structured
 * content and as JSON text. An answer that is no envelope is a failure told in words.
 */
export function toolResult(answer: Answer): CallToolResult {
  if ('unreachable' in answer) return failure(answer.unreachable)
  const parsed = envelope(answer.body)
  if (parsed === undefined)
    return failure(`The API answered with HTTP status ${answer.status} and a body that is not its JSON envelope.`)
  const content = parsed.status === 'success' ? parsed.data : parsed.error
  return {
    isError: parsed.status === 'error',
    content: [{ type: 'text', text: JSON.stringify(content) }],
    structuredContent: content,
  }
}

/**
 * A successful result with its data drawn beside it as an image content item (an SVG chart,
 * base64 as MCP carries images); a failure as it is. The call is paid for by then: a
 * drawing that fails leaves the data without its picture rather than failing the call.
 */
export function withChart(result: CallToolResult, draw: (data: unknown) => string): CallToolResult {
  if (result.isError === true || result.structuredContent === undefined) return result
  let svg: string
  try {
    svg = draw(result.structuredContent)
  } catch {
    return result
  }
  const image = Buffer.from(svg).toString('base64')
  return { ...result, content: [...result.content, { type: 'image', data: image, mimeType: 'image/svg+xml' }] }
}
