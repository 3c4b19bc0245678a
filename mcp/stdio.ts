import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { latestYear } from '../format/bounds.js'
import { openApiDocument } from '../runtime/openapi.js'
import { httpCaller } from './http-caller.js'
import { mcpServer } from './server.js'
import { toolset } from './tools.js'

export interface StdioOptions {
  /** The API root, to which /v1 is appended. */
  readonly baseUrl: string
  /** Sent as X-API-Key; without one the demo tier answers. */
  readonly key: string | undefined
  readonly timeoutMs: number
}

/** Serves the tools on stdin and stdout, calling the API over HTTP, until the client closes stdin. */
export async function serveStdio(options: StdioOptions): Promise<void> {
  // The API bounds `year` by its snapshot, unknown here: this is the bound the runtime
  // uses without one. Either way the API checks the year itself.
  const document = openApiDocument(latestYear(new Date().getUTCFullYear()), options.baseUrl)
  const server = mcpServer(
    toolset(document),
    httpCaller(options.baseUrl, options.key, options.timeoutMs),
    options.key !== undefined,
  )
  server.onerror = (error) =>
    process.stderr.write(`${JSON.stringify({ level: 'error', message: 'MCP protocol error', error: String(error) })}\n`)
  await server.connect(new StdioServerTransport())
}
