import { execFile } from 'node:child_process'
import { createServer as createHttpServer } from 'node:http'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import t, { type Test } from 'tap'
import {
  balance,
  call,
  checkKeyedCalls,
  checkKeylessCalls,
  checkTools,
  closedPort,
  DEMO_QUOTA,
  serve,
  stdioClient,
} from './mcp-support.js'
import { CLI, account, otherKey } from './support.js'

/** `carmarket mcp` as a desktop client runs it, with the SDK's own client on its stdin and stdout. */
const mcp = (t: Test, args: readonly string[], env: Record<string, string> = {}) =>
  stdioClient(t, process.execPath, [CLI, 'mcp', ...args], env)

t.test('keyless: the market tools, answered by the demo tier of the address, and the catalogue', async (t) => {
  const { base, document } = await serve(t, DEMO_QUOTA)
  const { client, errors, stderr } = await mcp(t, ['--base-url', base])
  await checkTools(t, client, document, false)
  await checkKeylessCalls(t, client, base)
  await t.rejects(client.callTool({ name: 'get_account', arguments: {} }), McpError, 'no account tools without a key')
  t.match(stderr(), /keyless/, 'it says so on stderr')
  t.same(errors, [], 'nothing but MCP messages on stdout')
})

t.test('with --api-key: the account tools too, and every call is metered', async (t) => {
  const { base, ledger, document } = await serve(t, DEMO_QUOTA)
  const { key } = await account(ledger, 'mcp-stdio@example.pl', 1000)
  const { client, errors } = await mcp(t, ['--base-url', base, '--api-key', key])
  await checkTools(t, client, document, true)
  await checkKeyedCalls(t, client, base, key)
  t.same(errors, [], 'nothing but MCP messages on stdout')
})

t.test('with CARMARKET_API_KEY and CARMARKET_BASE_URL from the environment', async (t) => {
  const { base, ledger } = await serve(t, DEMO_QUOTA)
  const { key } = await account(ledger, 'mcp-env@example.pl', 100)
  const { client } = await mcp(t, [], { CARMARKET_API_KEY: key, CARMARKET_BASE_URL: base })
  t.equal((await client.listTools()).tools.length, 11)
  const result = await call(client, 'get_market_liquidity', { make: 'VW', model: 'Golf', year: 2017 })
  t.same([result.isError, result.structured?.credits_remaining], [false, 94])
  t.equal(await balance(base, key), 94)
})

t.test('a key the API does not know: tool errors UNAUTHORIZED', async (t) => {
  const { base, ledger } = await serve(t, DEMO_QUOTA)
  const { key } = await account(ledger, 'mcp-bad@example.pl', 100)
  const { client } = await mcp(t, ['--base-url', base, '--api-key', otherKey(key)])
  for (const name of ['get_market_valuation', 'get_account']) {
    const result = await call(client, name, name === 'get_account' ? {} : { make: 'VW', model: 'Golf', year: 2017 })
    t.same([result.isError, result.structured?.code], [true, 'UNAUTHORIZED'], name)
  }
  const models = await call(client, 'list_models', { make: 'VW' })
  t.same([models.isError, models.structured?.matched.makes], [false, ['Volkswagen']], 'the catalogue reads no key')
  t.equal(await balance(base, key), 100)
})

/** A TCP server on a free port that accepts connections and never says a word. */
async function silent(t: Test): Promise<number> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => sockets.add(socket))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.close()
    for (const socket of sockets) socket.destroy()
  })
  return (server.address() as AddressInfo).port
}

t.test('an API that cannot be reached: a tool error that says so, and the server goes on', async (t) => {
  const port = await closedPort()
  const { client } = await mcp(t, ['--base-url', `http://127.0.0.1:${port}`])
  const refused = await call(client, 'get_market_valuation', { make: 'VW', model: 'Golf', year: 2017 })
  t.equal(refused.isError, true)
  t.equal(refused.structured, undefined, 'no API answer to structure')
  t.match(refused.text, new RegExp(`could not be reached \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)`))
  t.equal((await client.listTools()).tools.length, 9, 'still serving')

  const { client: waiting } = await mcp(t, ['--base-url', `http://127.0.0.1:${await silent(t)}`, '--timeout', '300'])
  const timedOut = await call(waiting, 'get_market_liquidity', { make: 'VW', model: 'Golf', year: 2017 })
  t.equal(timedOut.isError, true)
  t.match(timedOut.text, /could not be reached \(Headers Timeout Error, UND_ERR_HEADERS_TIMEOUT\)/)
})

t.test("an answer that is not the API's envelope (a proxy's error page): a tool error that says so", async (t) => {
  const proxy = createHttpServer((_req, res) =>
    res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>'),
  )
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => proxy.close())
  const { client } = await mcp(t, ['--base-url', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`])
  const result = await call(client, 'get_market_liquidity', { make: 'VW', model: 'Golf', year: 2017 })
  t.same([result.isError, result.structured], [true, undefined])
  t.equal(result.text, 'The API answered with HTTP status 502 and a body that is not its JSON envelope.')
})

t.test('a base URL that is no http address is refused at start', async (t) => {
  const failed = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
    execFile(process.execPath, [CLI, 'mcp', '--base-url', 'ftp://example.test'], (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : (error.code as number), stderr }),
    ),
  )
  t.equal(failed.code, 2, 'a usage error')
  t.match(failed.stderr, /--base-url must be an http or https address/)
})

t.test(
  'a base URL ending in /v1 is the API itself, and a foreign key variable is named, not silently ignored',
  async (t) => {
    const { base, ledger } = await serve(t, DEMO_QUOTA)
    const { key } = await account(ledger, 'mcp-v1@example.pl', 100)
    const { client, stderr } = await mcp(t, ['--base-url', `${base}/v1/`], { CARDOSSIER_API_KEY: key })
    const result = await call(client, 'get_market_liquidity', { make: 'VW', model: 'Golf', year: 2017 })
    t.same([result.isError, result.structured?.credits_used], [false, 6], 'the tool calls /v1/... once, not /v1/v1/...')
    t.equal(await balance(base, key), 100, 'keyless: the foreign variable is not read')
    t.match(stderr(), `calling ${base} keyless (the demo tier)`, 'the base it uses and that it runs keyless')
    t.match(stderr(), /CARDOSSIER_API_KEY is set, but carmarket mcp reads its key from CARMARKET_API_KEY or --api-key/)
  },
)
