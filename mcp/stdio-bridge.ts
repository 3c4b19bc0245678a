/** Key variables of other clients that people set for this one by mistake: named at start rather than ignored silently. */
export const FOREIGN_KEY_VARIABLES = ['CARDOSSIER_API_KEY', 'CAR_API_KEY', 'API_KEY', 'X_API_KEY'] as const

/** What the bridge is built for: the service it calls unless told otherwise, and how a key is sent. */
export interface BridgeTarget {
  /** The public URL of the service, without a trailing slash. */
  readonly url: string
  readonly keyHeader: string
  /** The package's version, which names the snapshot it was built with. */
  readonly version: string
}

/**
 * The program of the carmarket-mcp package (plain Node.js, no dependencies): MCP over
 * stdin and stdout for clients that speak stdio only, each message posted as it comes to
 * the service's Streamable HTTP endpoint and its answer written back. The tools, their
 * answers and their prices are the service's own, so the package never falls behind the
 * API it calls; it only carries the key and says at start where it sends it.
 */
export function bridgeProgram(target: BridgeTarget): string {
  return `#!/usr/bin/env node
// carmarket-mcp ${target.version}: the MCP tools of ${target.url}/mcp on standard input and output.
import { createInterface } from 'node:readline'

const SERVICE = ${JSON.stringify(target.url)}
const KEY_HEADER = ${JSON.stringify(target.keyHeader)}
const FOREIGN_KEY_VARIABLES = ${JSON.stringify(FOREIGN_KEY_VARIABLES)}
const VERSION = ${JSON.stringify(target.version)}
const USAGE = \`carmarket-mcp \${VERSION}: the tools of \${SERVICE}/mcp for MCP clients that speak stdio

  --api-key KEY     the key (env CARMARKET_API_KEY); without one, the keyless demo tier
  --base-url URL    another carmarket service (env CARMARKET_BASE_URL)
  --timeout MS      how long a message may wait for the service (default 30000)
\`

const say = (line) => process.stderr.write('carmarket-mcp: ' + line + '\\n')
const flags = new Map()
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i]
  if (arg === '--help' || arg === '-h') {
    process.stdout.write(USAGE)
    process.exit(0)
  }
  if (arg === '--version') {
    process.stdout.write(VERSION + '\\n')
    process.exit(0)
  }
  const [name, inline] = arg.split(/=(.*)/s)
  if (!['--api-key', '--base-url', '--timeout'].includes(name)) {
    say('unknown argument ' + JSON.stringify(arg) + '\\n' + USAGE)
    process.exit(2)
  }
  const value = inline ?? argv[++i]
  if (value === undefined) {
    say(name + ' needs a value')
    process.exit(2)
  }
  flags.set(name, value)
}

// The service's root: a base given as its versioned path (…/v1) is taken as it.
const base = (flags.get('--base-url') ?? process.env.CARMARKET_BASE_URL ?? SERVICE).trim().replace(/\\/+$/, '').replace(/\\/v1$/, '')
if (!/^https?:\\/\\/[^/]/.test(base)) {
  say('--base-url ' + JSON.stringify(base) + ' is no http(s) address')
  process.exit(2)
}
const key = (flags.get('--api-key') ?? process.env.CARMARKET_API_KEY ?? '').trim()
const timeout = Number(flags.get('--timeout') ?? 30000)
if (!Number.isInteger(timeout) || timeout <= 0) {
  say('--timeout is a whole number of milliseconds')
  process.exit(2)
}
const foreign = FOREIGN_KEY_VARIABLES.filter((name) => process.env[name] !== undefined)
if (key === '' && foreign.length > 0)
  say(foreign.join(' and ') + ' is set, but carmarket-mcp reads its key from CARMARKET_API_KEY or --api-key: running keyless')
const endpoint = base + '/mcp'
say('the tools of ' + endpoint + ' on stdio, ' + (key === '' ? 'keyless (the demo tier)' : 'with a key'))

const write = (message) => process.stdout.write(JSON.stringify(message) + '\\n')
const failed = (id, message) => {
  // A notification has no answer to carry a failure: the client learns of it from its next request.
  if (id !== undefined && id !== null) write({ jsonrpc: '2.0', id, error: { code: -32603, message } })
  else say(message)
}
// The protocol version agreed at initialize, sent with every later message as the transport asks.
let protocol

/** The JSON-RPC messages of an answer: a JSON body, or the data lines of an event stream. */
const messagesOf = (type, text) => {
  if (!type.includes('text/event-stream')) return [JSON.parse(text)].flat()
  return text
    .split(/\\r?\\n\\r?\\n/)
    .map((event) => event.split(/\\r?\\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\\n'))
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data))
}

const forward = async (line) => {
  let message
  try {
    message = JSON.parse(line)
  } catch {
    return write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a line that is not JSON' } })
  }
  const id = message !== null && typeof message === 'object' ? message.id : undefined
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
  if (key !== '') headers[KEY_HEADER] = key
  if (protocol !== undefined) headers['MCP-Protocol-Version'] = protocol
  let response
  let text
  try {
    response = await fetch(endpoint, { method: 'POST', headers, body: line, signal: AbortSignal.timeout(timeout) })
    text = await response.text()
  } catch (error) {
    const reason = error?.cause?.code ?? error?.cause?.message ?? error?.message ?? String(error)
    return failed(id, 'The carmarket service at ' + base + ' could not be reached (' + reason + '). Check that it runs there (--base-url, CARMARKET_BASE_URL) and retry.')
  }
  if (text.trim() === '') {
    if (!response.ok) failed(id, endpoint + ' answered ' + response.status + ' with no message.')
    return
  }
  let messages
  try {
    messages = messagesOf(response.headers.get('content-type') ?? '', text)
  } catch {
    return failed(id, endpoint + ' answered ' + response.status + ' with something that is not JSON.')
  }
  const rpc = messages.filter((m) => m !== null && typeof m === 'object' && m.jsonrpc === '2.0')
  if (rpc.length === 0) {
    // The service's own envelope (a limit, a refused key) rather than a JSON-RPC message.
    const said = messages[0]?.error?.message
    return failed(id, endpoint + ' answered ' + response.status + (typeof said === 'string' ? ': ' + said : '.'))
  }
  for (const m of rpc) {
    if (message?.method === 'initialize' && m.id === id && typeof m.result?.protocolVersion === 'string')
      protocol = m.result.protocolVersion
    write(m)
  }
}

// Messages are posted as they come: answers carry their ids, so they may return in any order.
createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  // Whatever one message does, the next ones are still passed on.
  if (line.trim() !== '') forward(line).catch((error) => say('a message could not be passed on: ' + String(error)))
})
`
}

/** The package.json of carmarket-mcp. */
export function bridgeManifest(target: BridgeTarget): string {
  return `${JSON.stringify(
    {
      name: 'carmarket-mcp',
      version: target.version,
      description: `MCP tools of the carmarket API at ${target.url}, for clients that speak stdio`,
      type: 'module',
      bin: { 'carmarket-mcp': 'carmarket-mcp.js' },
      engines: { node: '>=18' },
      license: 'UNLICENSED',
    },
    null,
    2,
  )}\n`
}
