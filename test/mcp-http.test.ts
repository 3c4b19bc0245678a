import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { Ajv } from 'ajv'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { MAX_MCP_BODY_BYTES } from '../runtime/mcp-route.js'
import { TOOL_CHARTS, TOOL_PATHS } from '../mcp/tools.js'
import {
  balance,
  call,
  checkKeyedCalls,
  checkKeylessCalls,
  checkTools,
  DEMO_QUOTA,
  MARKET,
  MARKET_CALLS,
} from './mcp-support.js'
import { account, build, freshDir, memoryLog, otherKey, serve } from './support.js'

const PUBLIC_URL = 'https://api.example.test'

async function setup(t: Test) {
  const { snapshots } = await build(t, MARKET)
  const ledger = freshDir(t)
  const { log, lines } = memoryLog()
  const { base, get } = await serve(t, {
    snapshots,
    ledger,
    demoQuota: DEMO_QUOTA,
    publicUrl: PUBLIC_URL,
    requestLog: log,
  })
  const document = (await get('/v1/openapi.json')).body as Record<string, any>
  return { base, ledger, document, lines }
}

/** The SDK's own client on <server>/mcp, with the key in X-API-Key when there is one. */
async function connect(t: Test, base: string, key?: string) {
  const client = new Client({ name: 'carmarket-test', version: '1.0.0' })
  const errors: Error[] = []
  client.onerror = (error) => errors.push(error)
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`${base}/mcp`),
      key === undefined ? {} : { requestInit: { headers: { 'X-API-Key': key } } },
    ),
  )
  t.teardown(() => client.close())
  return { client, errors }
}

t.test(
  'keyless over /mcp: the market tools in the demo quota of the caller address, the catalogue in none',
  async (t) => {
    const { base, document, lines } = await setup(t)
    const { client, errors } = await connect(t, base)
    await checkTools(t, client, document, false)
    await checkKeylessCalls(t, client, base)
    await t.rejects(client.callTool({ name: 'get_usage', arguments: {} }), McpError, 'no account tools without a key')
    t.same(errors, [], 'the client met nothing it did not expect')
    const mcp = lines().filter((line) => line.route === '/mcp')
    t.ok(mcp.length > 10, 'every /mcp request is in the request log')
    t.same(
      [...new Set(mcp.map((line) => `${line.method} ${line.status}`))].sort(),
      ['GET 405', 'POST 200', 'POST 202'],
      'JSON answers, 202 for notifications, 405 for the stream the client offers to open',
    )
  },
)

t.test('keyed over /mcp: the account tools too, and every call is metered', async (t) => {
  const { base, ledger, document, lines } = await setup(t)
  const { key, id } = await account(ledger, 'mcp-http@example.pl', 1000)
  const { client, errors } = await connect(t, base, key)
  await checkTools(t, client, document, true)
  await checkKeyedCalls(t, client, base, key)
  t.same(errors, [])
  const calls = lines().filter((line) => line.route === '/mcp' && line.account_id !== null)
  t.ok(calls.length >= 7, 'the log lines of tool calls name the account')
  t.ok(calls.every((line) => line.account_id === id))
})

t.test('chart: true adds the answer drawn, the same image as GET /v1/chart, charged once', async (t) => {
  const { base, ledger } = await setup(t)
  const { key } = await account(ledger, 'mcp-charts@example.pl', 1000)
  const { client } = await connect(t, base, key)
  let expected = 1000
  for (const { tool, args, credits } of MARKET_CALLS) {
    const chart = TOOL_CHARTS[tool]
    if (chart === undefined) continue
    const result = await client.callTool({ name: tool, arguments: { ...args, chart: true } })
    expected -= credits
    const content = result.content as { type: string; text?: string; data?: string; mimeType?: string }[]
    t.same(
      content.map((c) => [c.type, c.mimeType]),
      [
        ['text', undefined],
        ['image', 'image/svg+xml'],
      ],
      `${tool}: the data, then the chart`,
    )
    t.same(JSON.parse(content[0]!.text!), result.structuredContent, `${tool}: the data as without chart`)
    t.equal(await balance(base, key), expected, `${tool}: charged once, for the data`)
    const query = Object.entries(args)
      .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`)
      .join('&')
    const drawn = await request(`${base}/v1/chart/${chart}.svg?${query}`, { headers: { 'x-api-key': key } })
    expected -= credits
    t.equal(
      Buffer.from(content[1]!.data!, 'base64').toString(),
      await drawn.body.text(),
      `${tool}: the image GET /v1/chart/${chart}.svg answers`,
    )
    const plain = await client.callTool({ name: tool, arguments: { ...args, chart: false } })
    expected -= credits
    t.equal((plain.content as unknown[]).length, 1, `${tool}: chart false, the data alone`)
  }
  const failed = await client.callTool({
    name: 'get_market_valuation',
    arguments: { make: 'VW', model: 'Polo', year: 2017, chart: true },
  })
  t.same([failed.isError, (failed.content as unknown[]).length], [true, 1], 'a failure has no chart, and costs nothing')
  await t.rejects(
    client.callTool({
      name: 'get_regional_pricing',
      arguments: { make: 'VW', model: 'Golf', year: 2017, chart: 'yes' },
    }),
    McpError,
    'chart is true or false',
  )
  const liquidity = await call(client, 'get_market_liquidity', { make: 'VW', model: 'Golf', year: 2017, chart: true })
  t.same(
    [liquidity.isError, liquidity.structured?.code, liquidity.structured?.parameter],
    [true, 'INVALID_PARAMETER', 'chart'],
    'a tool without a chart refuses the argument like any unknown one',
  )
  t.equal(await balance(base, key), expected, 'nothing charged for the refusals')
})

t.test('a key the API does not know: tool errors UNAUTHORIZED, nothing charged', async (t) => {
  const { base, ledger } = await setup(t)
  const { key } = await account(ledger, 'mcp-http-bad@example.pl', 100)
  const { client } = await connect(t, base, otherKey(key))
  t.equal((await client.listTools()).tools.length, 11, 'a key was sent: the account tools are offered')
  const result = await call(client, 'get_regional_pricing', { make: 'VW', model: 'Golf', year: 2017 })
  t.same([result.isError, result.structured?.code], [true, 'UNAUTHORIZED'])
  const makes = await call(client, 'list_makes', {})
  t.same([makes.isError, makes.structured?.makes.length], [false, 1], 'the catalogue reads no key: it answers')
  t.equal(await balance(base, key), 100)
})

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
})
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

t.test('/mcp over plain HTTP: POST only, bounded JSON bodies, X-Request-Id on every answer', async (t) => {
  const { base, lines } = await setup(t)
  const post = async (
    body: string,
    headers: Record<string, string> = MCP_HEADERS,
    method: 'POST' | 'GET' | 'DELETE' = 'POST',
  ) => {
    const response = await request(`${base}/mcp`, { method, body: method === 'POST' ? body : undefined, headers })
    const text = await response.body.text()
    return { status: response.statusCode, headers: response.headers, body: JSON.parse(text) as Record<string, any> }
  }

  const answer = await post(initialize, { ...MCP_HEADERS, 'x-request-id': 'mcp-trace-1' })
  t.equal(answer.status, 200)
  t.match(answer.headers['content-type'], /^application\/json/, 'a JSON answer, not an event stream')
  t.equal(answer.headers['mcp-session-id'], undefined, 'stateless: no session')
  t.match(answer.body, {
    jsonrpc: '2.0',
    id: 1,
    result: { serverInfo: { name: 'carmarket' }, capabilities: { tools: {} } },
  })

  const refusals: [string, Awaited<ReturnType<typeof post>>, number, string][] = [
    ['GET', await post('', { accept: 'text/event-stream' }, 'GET'), 405, 'METHOD_NOT_ALLOWED'],
    ['DELETE', await post('', {}, 'DELETE'), 405, 'METHOD_NOT_ALLOWED'],
    ['malformed JSON', await post('{"jsonrpc":'), 400, 'INVALID_PARAMETER'],
    ['a batch', await post(`[${initialize}]`), 400, 'INVALID_PARAMETER'],
    [
      'an oversized body',
      await post(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(MAX_MCP_BODY_BYTES) } }),
      ),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'no JSON',
      await post(initialize, { ...MCP_HEADERS, 'content-type': 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  ]
  for (const [what, refused, status, code] of refusals) {
    t.same(
      [refused.status, refused.body.status, refused.body.error?.code],
      [status, 'error', code],
      `${what}: ${status} ${code} in the API's envelope`,
    )
    t.ok(refused.headers['x-request-id'], `${what}: with X-Request-Id`)
  }
  t.equal(refusals[0]![1].headers.allow, 'POST')
  t.same(refusals[2]![1].body.error.parameter, 'body')

  // What the SDK refuses is a JSON-RPC error, and carries the request id too.
  const notAcceptable = await post(initialize, {
    'content-type': 'application/json',
    accept: 'application/json',
    'x-request-id': 'mcp-trace-2',
  })
  t.same([notAcceptable.status, notAcceptable.body.error?.code], [406, -32000])
  t.equal(notAcceptable.headers['x-request-id'], 'mcp-trace-2')
  const notRpc = await post('{"hello":"world"}')
  t.same([notRpc.status, notRpc.body.error?.code], [400, -32700])
  const foreign = await post(initialize, { ...MCP_HEADERS, origin: 'https://elsewhere.example' })
  t.same(
    [foreign.status, foreign.body.error?.message],
    [403, 'Invalid Origin header: https://elsewhere.example'],
    "another site's page is refused",
  )
  t.equal(
    (await post(initialize, { ...MCP_HEADERS, origin: PUBLIC_URL })).status,
    200,
    'a page of the service itself is not',
  )

  for (const [what, args] of [
    ['an array', []],
    ['a string', 'VW Golf'],
  ] as const) {
    const bad = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_market_liquidity', arguments: args },
      }),
    )
    t.same([bad.body.id, bad.body.error?.code], [7, -32602], `tool arguments that are ${what}: invalid params`)
    t.match(String(bad.body.error?.message), /arguments/, 'naming the arguments')
  }
  t.equal(answer.headers['x-content-type-options'], 'nosniff', 'JSON answers are not to be sniffed')
  t.equal(refusals[2]![1].headers['x-content-type-options'], 'nosniff')

  t.equal(answer.headers['x-request-id'], 'mcp-trace-1', 'the request id is echoed')
  const logged = lines().filter((line) => line.route === '/mcp')
  t.same(
    logged.map((line) => [line.method, line.status]),
    [
      ['POST', 200],
      ['GET', 405],
      ['DELETE', 405],
      ['POST', 400],
      ['POST', 400],
      ['POST', 413],
      ['POST', 415],
      ['POST', 406],
      ['POST', 400],
      ['POST', 403],
      ['POST', 200],
      ['POST', 200],
      ['POST', 200],
    ],
    'each in the request log with its status',
  )
  t.match(logged[0], { request_id: 'mcp-trace-1', ip: '127.0.0.1' })
})

t.test('tools have titles and annotations, and take every spelling the API takes', async (t) => {
  const { base } = await setup(t)
  const { client } = await connect(t, base)
  const { tools } = await client.listTools()
  for (const tool of tools) {
    t.ok(
      typeof tool.title === 'string' && tool.title.length > 0 && !/credits\)/.test(tool.title),
      `${tool.name}: a title`,
    )
    t.match(
      tool.annotations,
      { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
      `${tool.name}: it only reads, from this service`,
    )
  }
  t.equal(
    tools.find((tool) => tool.name === 'list_makes')?.annotations?.idempotentHint,
    true,
    'a free tool is idempotent',
  )
  t.equal(
    tools.find((tool) => tool.name === 'get_market_valuation')?.annotations?.idempotentHint,
    false,
    'a paid one charges again',
  )
  // A client that checks arguments against the tool's schema (as desktop clients do) lets through what the API takes.
  const valuation = tools.find((tool) => tool.name === 'get_market_valuation')!
  const check = new Ajv({ strict: false }).compile(valuation.inputSchema)
  for (const [fuel, gearbox] of [
    ['PETROL', 'MANUAL'],
    ['benzyna', 'Automatyczna'],
    ['Plug-In Hybrid', ' auto '],
  ])
    t.ok(
      check({ make: 'VW', model: 'Golf', year: 2017, fuel_type: fuel, gearbox }),
      `${fuel} / ${gearbox}: ${JSON.stringify(check.errors)}`,
    )
  const petrol = await client.callTool({
    name: 'get_market_valuation',
    arguments: { make: 'VW', model: 'Golf', year: 2017, fuel_type: 'PETROL' },
  })
  t.not(
    (petrol.structuredContent as { code?: string } | undefined)?.code,
    'INVALID_PARAMETER',
    'and the API reads it (an answer, or too few listings of that fuel)',
  )
})

t.test("the server's instructions are written for a model choosing tools", async (t) => {
  const { base } = await setup(t)
  const { client } = await connect(t, base)
  const instructions = client.getInstructions() ?? ''
  for (const { name } of (await client.listTools()).tools)
    t.match(instructions, new RegExp(`^- ${name}( \\(with a key\\))?: \\S`, 'm'), `${name}: which question it answers`)
  t.match(instructions, /NOT_FOUND\), call list_models/, 'what to do when a name is not found')
  t.match(instructions, /INSUFFICIENT_DATA/, 'and when the data are thin')
  t.notMatch(instructions, /ETag|Idempotency|batch/i, 'nothing an MCP client cannot use')
})

t.test("tools/list: each tool's answer described in full, its errors by their shape alone", async (t) => {
  const { base, document } = await setup(t)
  const list = await request(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': 'cm_any',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  const text = await list.body.text()
  const { tools } = JSON.parse(text).result as { tools: { name: string; outputSchema: any }[] }
  t.equal(tools.length, 11, 'every tool, keyed')
  // Measured: 48,171 bytes when every tool repeated the document's description of every error code; 27,101 before
  // the valuation and depreciation took version, body_type and power_hp, matched named what was applied and
  // list_versions came; 34,566 with them.
  t.ok(text.length < 36_000, `tools/list is ${text.length} bytes`)
  for (const tool of tools) {
    const [data, error] = tool.outputSchema.anyOf
    const path = TOOL_PATHS[tool.name as keyof typeof TOOL_PATHS]
    const documented = document.paths[path].get.responses['200'].content['application/json'].schema.properties.data
    const fields = documented.properties ?? document.components.schemas[documented.$ref.split('/').pop()].properties
    t.same(Object.keys(data.properties), Object.keys(fields), `${tool.name}: every field of the answer`)
    t.same(error.required, ['code', 'message'], `${tool.name}: an error's code and message`)
    t.notOk('enum' in (error.properties.code ?? {}), `${tool.name}: not the codes' descriptions again`)
  }
})
