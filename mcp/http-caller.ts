import { Agent, request } from 'undici'
import type { Caller } from './tool-call.js'

/**
 * Calls the API over HTTP at `baseUrl`, as an HTTP client would, with `key` as the
 * X-API-Key header when there is one. A call that cannot be made or is not answered in
 * time (refused, reset, `timeoutMs` without a word) is an answer too, saying why: the
 * tool fails and the MCP server keeps serving. (Idle kept-alive connections do not keep
 * the process alive: it ends when the client closes stdin and the calls in flight end.)
 */
export function httpCaller(baseUrl: string, key: string | undefined, timeoutMs: number): Caller {
  const base = baseUrl.replace(/\/+$/, '')
  const agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  const headers = key === undefined ? {} : { 'x-api-key': key }
  return async (path, query) => {
    try {
      const response = await request(`${base}${path}${query === '' ? '' : `?${query}`}`, { dispatcher: agent, headers })
      return { status: response.statusCode, body: await response.body.text() }
    } catch (error) {
      if (!isNetworkError(error)) throw error
      const reason = error.message.includes(error.code) ? error.message : `${error.message}, ${error.code}`
      return {
        unreachable: `The carmarket API at ${base} could not be reached (${reason}). Check that it runs there (--base-url, CARMARKET_BASE_URL) and retry.`,
      }
    }
  }
}

/** Node's socket errors and undici's own carry a string code; anything else is a bug, not the network. */
function isNetworkError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
}
