import type { Readable } from 'node:stream'
import { isCount } from '../format/json-shape.js'
import { BuildError } from './build-error.js'
import { messageOf } from '../format/message-of.js'

/** A response under way: its body streams as it arrives. */
export interface Download {
  readonly body: Readable
  /** The Content-Length the server sent, if any. */
  readonly length: number | undefined
}

export interface HttpGetOptions {
  /** Milliseconds to wait for the response's headers. */
  readonly headersTimeout: number
  /** Milliseconds to wait for each next piece of the body. */
  readonly bodyTimeout: number
  /** Ends the request, its body included, when aborted. */
  readonly signal?: AbortSignal
}

const MAX_REDIRECTIONS = 5

/** An address as messages and manifests show it: without credentials or query. */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`
}

/**
 * GETs `url`, following a few redirects, once its headers are in; throws a BuildError
 * when there is no answer or its status is not 2xx.
 */
export async function httpGet(url: URL, options: HttpGetOptions): Promise<Download> {
  return (await get(url, options, false))!
}

/** As httpGet, but a file the server does not have (404, 410) is undefined instead of a failure. */
export function httpGetIfPresent(url: URL, options: HttpGetOptions): Promise<Download | undefined> {
  return get(url, options, true)
}

async function get(url: URL, options: HttpGetOptions, absentOk: boolean): Promise<Download | undefined> {
  const description = describeUrl(url)
  // Loaded here, not at the top: only downloads need it, and it costs every command 0.1 s to load.
  const { Agent, interceptors, request } = await import('undici')
  // One dispatcher per download, closed with it, so no idle socket keeps the CLI alive.
  const dispatcher = new Agent({ headersTimeout: options.headersTimeout, bodyTimeout: options.bodyTimeout }).compose(
    interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }),
  )
  let response
  try {
    response = await request(url, { dispatcher, signal: options.signal })
  } catch (error) {
    void dispatcher.close()
    // Aborted for a reason of the caller's own (a deadline passed): that is the failure.
    const reason: unknown = options.signal?.aborted === true ? options.signal.reason : undefined
    if (reason instanceof BuildError) throw reason
    throw new BuildError('download_failed', `cannot download ${description}: ${messageOf(error)}`)
  }
  response.body.once('close', () => void dispatcher.close())
  if (response.statusCode < 200 || response.statusCode > 299) {
    // Destroying the body aborts the request; that abort is expected, not an error to raise.
    response.body.on('error', () => {})
    response.body.destroy()
    if (absentOk && (response.statusCode === 404 || response.statusCode === 410)) return undefined
    // A redirect reaches here only past the last one followed.
    const redirected =
      response.statusCode >= 300 && response.statusCode < 400 ? `, still a redirect after ${MAX_REDIRECTIONS}` : ''
    throw new BuildError('http_status', `cannot download ${description}: HTTP ${response.statusCode}${redirected}`)
  }
  const length = Number(response.headers['content-length'])
  return { body: response.body, length: isCount(length) ? length : undefined }
}
