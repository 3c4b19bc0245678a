import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { CODE_VERSION } from '../format/code-version.js'
import { CHARTS } from '../charts/charts.js'
import { queryString, toolResult, withChart, type Caller } from './tool-call.js'
import { CHART_ARGUMENT, type Toolset } from './tools.js'

// A server checks schemas only for elicitation, which these tools never use: one shared
// checker spares every /mcp request building its own (most of the cost of a new server).
const validator = new AjvJsonSchemaValidator()

/**
 * An MCP server that offers the API's operations as tools to one caller: the market
 * and catalogue tools always, the account tools only to a caller with a key. Both
 * transports use it: stdio with a caller over HTTP, /mcp with the runtime's in-process
 * calls.
 *
 * @example
 * const call = httpCaller('http://127.0.0.1:8080', key, 30_000)
 * await mcpServer(toolset(document), call, key !== undefined).connect(new StdioServerTransport())
 */
export function mcpServer(toolset: Toolset, call: Caller, keyed: boolean): Server {
  const offered = toolset.tools.filter((definition) => keyed || !definition.needsKey)
  const byName = new Map(offered.map((definition) => [definition.tool.name, definition]))
  const server = new Server(
    { name: 'carmarket', version: CODE_VERSION },
    { capabilities: { tools: {} }, instructions: toolset.instructions, jsonSchemaValidator: validator },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: offered.map((definition) => definition.tool) }))
  // The SDK's server checks a tools/call request itself and refuses a bad one as invalid
  // params (-32602), but only if it gets to: registered with the full schema, a request
  // with array `arguments` fails an earlier check as an internal error (-32603) that
  // shows the validator's text. So it is registered by its method alone, and parsed once
  // the SDK's own check has passed.
  server.setRequestHandler(CallToolRequestSchema.pick({ method: true }).passthrough(), async (raw) => {
    const request = CallToolRequestSchema.parse(raw)
    const { name } = request.params
    const definition = byName.get(name)
    if (definition === undefined) {
      const needsKey = toolset.tools.some((t) => t.tool.name === name)
      throw new McpError(
        ErrorCode.InvalidParams,
        needsKey ? `The tool ${name} needs an API key.` : `No tool ${JSON.stringify(name.slice(0, 100))}.`,
      )
    }
    const given = request.params.arguments ?? {}
    // Only a tool with a chart takes the argument; any other passes it on, for the API to refuse as unknown.
    if (definition.chart === undefined) return toolResult(await call(definition.path, queryString(given)))
    const { [CHART_ARGUMENT]: chart, ...args } = given
    if (chart !== undefined && typeof chart !== 'boolean')
      throw new McpError(ErrorCode.InvalidParams, `${CHART_ARGUMENT} is true or false.`)
    const result = toolResult(await call(definition.path, queryString(args)))
    return chart === true ? withChart(result, CHARTS[definition.chart]) : result
  })
  return server
}
