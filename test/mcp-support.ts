import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createServer, type AddressInfo } from 'node:net'
import type { Test } from 'tap'
import { request } from 'undici'
import { TOOL_CHARTS, TOOL_PATHS } from '../mcp/tools.js'
import { openApiDocument } from '../runtime/openapi.js'
import { build, freshDir, rows, spawnServe, toCsv } from './support.js'

/** An MCP initialize request as a client without an SDK (curl) sends it. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
})

/** 30 listings of a 2017 Golf, enough for every market operation to answer; 4 of a Polo, too few. */
export const MARKET = toCsv([
  ...rows(30, (i) => ({ price: 40_000 + i * 500, imported: i % 2 ? 'true' : 'false', first_seen: '2026-09-01' })),
  ...rows(4, () => ({ model: 'Polo' })),
])

/** A server on MARKET with the given demo quota, no rate limit, and the document it serves. */
export async function serve(t: Test, demoQuota: number) {
  const { snapshots, snapshot } = await build(t, MARKET)
  const ledger = freshDir(t)
  const served = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    ledger,
    '--rate-limit',
    '0',
    '--demo-quota',
    String(demoQuota),
    '--no-request-log',
  ])
  const base = `http://127.0.0.1:${served.port}`
  // The document the server makes: its year bound is the snapshot's, not this year's.
  return { base, ledger, document: openApiDocument(snapshot.maxYear, base) as Record<string, any> }
}

/** A program speaking MCP on stdio as a desktop client runs it, with the SDK's own client on its stdin and stdout. */
export async function stdioClient(
  t: Test,
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
  cwd?: string,
) {
  const transport = new StdioClientTransport({
    command,
    args: [...args],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
    cwd,
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new Client({ name: 'carmarket-test', version: '1.0.0' })
  // A line on stdout that is not an MCP message would land here.
  const errors: Error[] = []
  client.onerror = (error) => errors.push(error)
  await client.connect(transport)
  t.teardown(() => client.close())
  return { client, errors, stderr: () => stderr }
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

type Args = Record<string, string | number>
const golf = { make: 'VW', model: 'Golf', year: 2017 }
/** A successful call of every market tool, and what it costs (interface spec, "Limits"). */
export const MARKET_CALLS: readonly {
  readonly tool: keyof typeof TOOL_PATHS
  readonly args: Args
  readonly credits: number
}[] = [
  {
    tool: 'get_market_valuation',
    args: { ...golf, fuel_type: 'diesel', mileage: 100_000, asking_price: 52_000 },
    credits: 8,
  },
  { tool: 'get_price_history', args: { ...golf, months: 3 }, credits: 10 },
  { tool: 'get_market_liquidity', args: golf, credits: 6 },
  { tool: 'get_valuation_factors', args: golf, credits: 12 },
  { tool: 'get_regional_pricing', args: golf, credits: 8 },
  { tool: 'get_depreciation', args: { make: 'VW', model: 'Golf' }, credits: 10 },
]

/** A successful call of every catalogue tool: free, and answered with or without a key. */
export const CATALOG_CALLS: readonly { readonly tool: keyof typeof TOOL_PATHS; readonly args: Args }[] = [
  { tool: 'list_makes', args: {} },
  { tool: 'list_models', args: { make: 'VW' } },
  { tool: 'list_versions', args: golf },
]

/** The demo quota of the servers these checks run on: each market call made once as a tool and once over HTTP. */
export const DEMO_QUOTA = 2 * MARKET_CALLS.length

export interface Envelope {
  status: string
  data?: Record<string, any>
  error?: { code: string; message: string; [field: string]: unknown }
}

/** The same operation over plain HTTP, its arguments as query parameters. */
export async function http(
  base: string,
  path: string,
  args: Args = {},
  key?: string,
): Promise<{ status: number; body: Envelope }> {
  const query = new URLSearchParams(
    Object.entries(args).map(([name, value]): [string, string] => [name, String(value)]),
  ).toString()
  const response = await request(`${base}${path}${query === '' ? '' : `?${query}`}`, {
    headers: key === undefined ? {} : { 'x-api-key': key },
  })
  return { status: response.statusCode, body: (await response.body.json()) as Envelope }
}

export const balance = async (base: string, key: string) =>
  (await http(base, '/v1/account/me', {}, key)).body.data?.credits_remaining as number

/** A tool call's result as the SDK's client returns it (having checked it against the tool's output schema). */
export async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args })
  const content = result.content as { type: string; text: string }[]
  return {
    isError: result.isError === true,
    structured: result.structuredContent as Record<string, any> | undefined,
    text: content[0]?.text ?? '',
  }
}

/**
 * The tools offered are the API's market and catalogue operations, and its account
 * operations too when there is a key, as the served OpenAPI document describes them:
 * every parameter with its schema and description, the required ones required, nothing
 * else accepted.
 */
export async function checkTools(
  t: Test,
  client: Client,
  document: Record<string, any>,
  keyed: boolean,
): Promise<void> {
  const operations = Object.entries(document.paths as Record<string, any>).filter(([, item]) =>
    ['market', 'catalog', 'account'].includes(item.get?.tags?.[0]),
  )
  t.same(
    Object.values(TOOL_PATHS).sort(),
    operations.map(([path]) => path).sort(),
    'a tool for every market, catalogue and account operation',
  )
  const offered = operations.filter(([, item]) => keyed || item.get.tags[0] !== 'account').map(([path]) => path)
  const { tools } = await client.listTools()
  t.same(
    tools.map((tool) => TOOL_PATHS[tool.name as keyof typeof TOOL_PATHS]).sort(),
    offered.sort(),
    keyed ? 'with a key: market, catalogue and account tools' : 'keyless: the market and catalogue tools',
  )
  t.equal(tools.length, keyed ? 11 : 9)
  for (const name of ['get_depreciation', 'list_makes', 'list_models'])
    t.ok(
      tools.some((tool) => tool.name === name),
      `${name} is offered`,
    )
  for (const tool of tools) {
    const operation = document.paths[TOOL_PATHS[tool.name as keyof typeof TOOL_PATHS]].get
    // The query parameters: the protocol's headers (If-None-Match, Idempotency-Key) are no tool's arguments.
    const parameters = (
      (operation.parameters ?? []) as {
        name: string
        in: string
        required: boolean
        description: string
        example?: unknown
        schema: { type?: string; enum?: unknown[]; examples?: unknown[] }
      }[]
    ).filter((p) => p.in === 'query')
    t.match(tool.description, operation.summary, `${tool.name} says what it is for`)
    t.match(tool.description, /\(\d+ credits\)/, `${tool.name} says what it costs`)
    const chart = TOOL_CHARTS[tool.name as keyof typeof TOOL_PATHS]
    t.same(
      Object.keys(tool.inputSchema.properties ?? {}),
      [...parameters.map((p) => p.name), ...(chart === undefined ? [] : ['chart'])],
      `${tool.name} takes the parameters of ${operation.operationId ?? operation.summary}${chart === undefined ? '' : ', and chart'}`,
    )
    if (chart !== undefined)
      t.match(tool.inputSchema.properties!.chart, { type: 'boolean', default: false }, `${tool.name}: chart, if asked`)
    t.same(
      tool.inputSchema.required,
      parameters.filter((p) => p.required).map((p) => p.name),
      `${tool.name}: the required ones required`,
    )
    t.equal(tool.inputSchema.additionalProperties, false)
    for (const p of parameters) {
      // A word the API reads in any spelling is offered with its canonical values as examples (its own example
      // first), not as an enum a client enforces.
      const { enum: values, examples, ...rest } = p.schema
      const spelled = p.schema.type === 'string' && Array.isArray(values)
      const offered = spelled ? rest : p.schema
      const property = tool.inputSchema.properties![p.name] as { examples?: unknown[] }
      t.has(property, { ...offered, description: p.description }, `${tool.name} ${p.name}: schema and description`)
      if (spelled)
        t.same(
          [...(property.examples ?? [])].sort(),
          [...new Set([p.example, ...(examples ?? [])].filter((e) => e !== undefined))].sort(),
          `${tool.name} ${p.name}: its example and the canonical values as examples`,
        )
      t.notOk(
        p.schema.type === 'string' && 'enum' in (tool.inputSchema.properties![p.name] as object),
        `${tool.name} ${p.name}: no enum held to the letter`,
      )
    }
    t.equal(tool.outputSchema?.type, 'object', `${tool.name} has an output schema`)
  }
}

/**
 * Keyless: a bad argument is a tool error that names it, and costs no quota; each
 * market tool answers the data of the same HTTP call, and both count in the demo quota
 * of the one address (the server's quota is DEMO_QUOTA): the next call is refused with
 * register_url, while the catalogue tools, counted in no quota, still answer.
 */
export async function checkKeylessCalls(t: Test, client: Client, base: string): Promise<void> {
  const invalid = await call(client, 'get_market_valuation', { ...golf, year: 1800 })
  t.same(
    [invalid.isError, invalid.structured?.code, invalid.structured?.parameter],
    [true, 'INVALID_PARAMETER', 'year'],
    'a bad argument is a tool error naming it',
  )
  t.same(JSON.parse(invalid.text), invalid.structured, 'the error object as text too')
  const unknown = await call(client, 'get_market_liquidity', { ...golf, colour: 'red' })
  t.same(
    [unknown.isError, unknown.structured?.code, unknown.structured?.parameter],
    [true, 'INVALID_PARAMETER', 'colour'],
    'an unknown argument is refused as the API refuses it',
  )
  const missing = await call(client, 'get_regional_pricing', { make: 'VW', model: 'Golf' })
  t.same(
    [missing.structured?.code, missing.structured?.parameter],
    ['INVALID_PARAMETER', 'year'],
    'so is a missing one',
  )
  const thin = await call(client, 'get_regional_pricing', { ...golf, model: 'Polo' })
  t.same([thin.isError, thin.structured?.code], [true, 'INSUFFICIENT_DATA'], 'too few listings')
  for (const { tool, args, credits } of MARKET_CALLS) {
    const result = await call(client, tool, args)
    const direct = await http(base, TOOL_PATHS[tool], args)
    t.equal(direct.status, 200, `${tool}: the HTTP call succeeds`)
    t.notOk(result.isError, `${tool} succeeds`)
    t.same(result.structured, direct.body.data, `${tool}: the data of the HTTP call`)
    t.same(JSON.parse(result.text), result.structured, `${tool}: the same as JSON text`)
    t.same(
      [result.structured?.credits_used, 'credits_remaining' in result.structured!],
      [credits, false],
      `${tool}: credits_used, no credits_remaining`,
    )
  }
  const refused = await call(client, 'get_market_liquidity', golf)
  t.same(
    [refused.isError, refused.structured?.code],
    [true, 'DEMO_LIMIT_REACHED'],
    'the market call of the day past the quota is refused',
  )
  t.match(refused.structured, { register_url: /\/register$/, message: String }, 'with register_url')
  t.equal((await http(base, '/v1/market/liquidity', golf)).status, 429, 'over HTTP too: one quota')
  await checkCatalogCalls(t, client, base)
}

/**
 * The catalogue tools answer the data of the same HTTP call, with no credit fields
 * (they are free), whatever the demo quota or the key; a bad or unknown make is a tool
 * error as the API answers it.
 */
export async function checkCatalogCalls(t: Test, client: Client, base: string, key?: string): Promise<void> {
  for (const { tool, args } of CATALOG_CALLS) {
    const result = await call(client, tool, args)
    const direct = await http(base, TOOL_PATHS[tool], args, key)
    t.equal(direct.status, 200, `${tool}: the HTTP call succeeds`)
    t.notOk(result.isError, `${tool} succeeds`)
    t.same(result.structured, direct.body.data, `${tool}: the data of the HTTP call`)
    t.same(JSON.parse(result.text), result.structured, `${tool}: the same as JSON text`)
    t.notOk('credits_used' in result.structured!, `${tool}: free, no credit fields`)
  }
  const makes = await call(client, 'list_makes', {})
  t.same(makes.structured?.makes, [{ make: 'Volkswagen', listings: 34 }], 'list_makes: the makes and their listings')
  const models = await call(client, 'list_models', { make: 'VW' })
  t.same(
    models.structured?.models.map((m: any) => [m.model, m.listings, m.years]),
    [
      ['Golf', 30, [2017]],
      ['Polo', 4, []],
    ],
    'list_models: the models, their listings and the years with 10 of them',
  )
  const missing = await call(client, 'list_models', {})
  t.same(
    [missing.isError, missing.structured?.code, missing.structured?.parameter],
    [true, 'INVALID_PARAMETER', 'make'],
    'list_models without a make',
  )
  const unknown = await call(client, 'list_models', { make: 'Volk' })
  t.same(
    [unknown.isError, unknown.structured?.code, unknown.structured?.suggestions],
    [true, 'INSUFFICIENT_DATA', ['Volkswagen']],
    'list_models of a make that resolves to nothing: suggestions',
  )
}

/**
 * Keyed: each market tool debits its price, answers the data of the same HTTP call
 * with the balance after it, and a refused call is refunded; the account tools answer
 * what the account routes answer.
 */
export async function checkKeyedCalls(t: Test, client: Client, base: string, key: string): Promise<void> {
  for (const { tool, args, credits } of MARKET_CALLS) {
    const before = await balance(base, key)
    const result = await call(client, tool, args)
    const after = await balance(base, key)
    t.equal(after, before - credits, `${tool} debits ${credits} credits`)
    t.notOk(result.isError, `${tool} succeeds`)
    t.same(
      [result.structured?.credits_used, result.structured?.credits_remaining],
      [credits, after],
      `${tool}: its credits as the API counts them`,
    )
    const direct = await http(base, TOOL_PATHS[tool], args, key)
    t.same(
      direct.body.data,
      { ...result.structured, credits_remaining: after - credits },
      `${tool}: the data of the HTTP call`,
    )
  }
  const before = await balance(base, key)
  const invalid = await call(client, 'get_price_history', { ...golf, months: 25 })
  t.same(
    [invalid.isError, invalid.structured?.code, invalid.structured?.parameter],
    [true, 'INVALID_PARAMETER', 'months'],
    'a bad argument is a tool error naming it',
  )
  t.equal(await balance(base, key), before, 'and is refunded')

  const me = await call(client, 'get_account', {})
  t.same(me.structured, (await http(base, '/v1/account/me', {}, key)).body.data, 'get_account: the account of the key')
  t.equal(me.structured?.credits_remaining, before)
  const usage = await call(client, 'get_usage', { limit: 2 })
  t.same(
    usage.structured,
    (await http(base, '/v1/account/usage', { limit: 2 }, key)).body.data,
    'get_usage: its transactions',
  )
  t.same(
    usage.structured?.transactions.map((e: any) => [e.type, e.endpoint, e.credits, e.status]),
    [
      ['failed_call', 'price-history', 0, 'INVALID_PARAMETER'],
      ['charge', 'depreciation', -10, 'success'],
    ],
    'the refused call is on record, costing nothing',
  )
  await checkCatalogCalls(t, client, base, key)
  t.equal(await balance(base, key), before, 'the catalogue tools cost nothing')
  const bad = await call(client, 'get_usage', { limit: 0 })
  t.same([bad.isError, bad.structured?.parameter], [true, 'limit'])
}
