import type { IncomingMessage, ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { mcpServer } from './server.js'
import type { Caller } from './tool-call.js'
import type { Toolset } from './tools.js'

export interface McpExchange {
  readonly toolset: Toolset
  /** The API as the requester: its key and its address. */
  readonly call: Caller
  readonly keyed: boolean
  /** The origin browsers see the service at: the only one whose pages may post here. */
  readonly origin: string
  readonly req: IncomingMessage
  readonly res: ServerResponse
  /** The request's JSON body, read and bounded already. */
  readonly body: unknown
}

/**
 * Answers one POST of MCP's Streamable HTTP transport, statelessly: a server and a
 * transport for this request alone (no sessions, nothing kept between requests), and
 * JSON answers rather than event streams, since every tool answers at once.
 */
export async function answerMcp(exchange: McpExchange): Promise<void> {
  const server = mcpServer(exchange.toolset, exchange.call, exchange.keyed)
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    // A page of another origin (a DNS-rebinding attack among them) is refused by its Origin
    // header; clients that are not browsers send none. The Host is not checked: behind
    // proxies and under several names it varies, and the key, not the host, guards an account.
    enableDnsRebindingProtection: true,
    allowedOrigins: [exchange.origin],
  })
  try {
    await server.connect(transport)
    await transport.handleRequest(exchange.req, exchange.res, exchange.body)
  } finally {
    await server.close()
  }
}
