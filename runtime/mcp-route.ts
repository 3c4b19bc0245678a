import type { IncomingMessage } from 'node:http'
import { readJsonBody } from './json-body.js'
import type { ApiResponse } from './send.js'
import type { Exchange } from './exchange.js'

/**
 * The largest /mcp body: a tool call is a few hundred bytes (the API bounds every
 * argument), and this leaves room for what a client tells of itself at initialization.
 */
export const MAX_MCP_BODY_BYTES = 16 * 1024

export interface McpRouteOptions {
  /** Runtime.call: a market or account operation, metered as over HTTP. */
  readonly call: (
    path: string,
    query: string,
    key: string | undefined,
    ip: string,
    exchange: Exchange,
  ) => Promise<{ readonly status: number; readonly body: string }>
  /** The served OpenAPI document, whose operations the tools are. */
  readonly openApiJson: string
  /** The address callers reach the service at. */
  readonly publicUrl: string
}

/**
 * POST /mcp: the API's operations as MCP tools over Streamable HTTP. The tools call the
 * operations in the process as the requester (its X-API-Key and its address), so the
 * demo quota and the credits are those of the same calls over HTTP. The MCP SDK is
 * loaded on the first request: start-up and the market routes never pay for it. A body
 * that is not a bounded JSON object is refused in the API's error envelope before the
 * SDK sees it.
 */
export function mcpRoute(options: McpRouteOptions) {
  let loading: ReturnType<typeof load> | undefined
  const origin = new URL(options.publicUrl).origin
  return async (
    req: IncomingMessage,
    res: ApiResponse,
    _query: string,
    ip: string,
    exchange: Exchange,
  ): Promise<void> => {
    const body = await readJsonBody(req, MAX_MCP_BODY_BYTES)
    const { answerMcp, tools } = await (loading ??= load(options.openApiJson))
    const header = req.headers['x-api-key']
    const key = Array.isArray(header) ? header.join(',') : header
    // The SDK writes the status and its own headers; those set before join them.
    res.setHeader('X-Request-Id', res.requestId)
    res.setHeader('X-Content-Type-Options', 'nosniff')
    await answerMcp({
      toolset: tools,
      call: (path, query) => options.call(path, query, key, ip, exchange),
      keyed: key !== undefined,
      origin,
      req,
      res,
      body,
    })
  }
}

async function load(openApiJson: string) {
  const [{ answerMcp }, { toolset }] = await Promise.all([
    import('../mcp/streamable-http.js'),
    import('../mcp/tools.js'),
  ])
  return { answerMcp, tools: toolset(JSON.parse(openApiJson)) }
}
