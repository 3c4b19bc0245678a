import { Command } from 'commander'
import { FOREIGN_KEY_VARIABLES } from '../mcp/stdio-bridge.js'
import { httpUrl, positiveInteger } from './options.js'
import { visible } from './terminal-text.js'

interface McpFlags {
  baseUrl: string
  apiKey?: string
  timeout: string
}

export const mcpCommand = new Command('mcp')
  .description(
    'offer the API as MCP tools on stdin/stdout (for a desktop client), calling it over HTTP; keyless (the demo tier) unless given a key',
  )
  .option(
    '--base-url <url>',
    'the API to call (env CARMARKET_BASE_URL)',
    process.env.CARMARKET_BASE_URL ?? 'http://127.0.0.1:8080',
  )
  // No default from the environment here: commander would print the key in --help.
  .option('--api-key <key>', 'the X-API-Key to send; empty or none for the demo tier (env CARMARKET_API_KEY)')
  .option('--timeout <ms>', 'how long a call may wait for the API before its tool fails', '30000')
  .action(async (flags: McpFlags) => {
    // The API's root: a base given as the versioned path (…/v1, as clients of other APIs are told to) is taken as it.
    const baseUrl = httpUrl(flags.baseUrl, '--base-url').replace(/\/+$/, '').replace(/\/v1$/, '')
    const key = (flags.apiKey ?? process.env.CARMARKET_API_KEY ?? '').trim()
    const foreign = FOREIGN_KEY_VARIABLES.filter((name) => process.env[name] !== undefined)
    if (key === '' && foreign.length > 0)
      process.stderr.write(
        `carmarket mcp: ${foreign.join(' and ')} is set, but carmarket mcp reads its key from CARMARKET_API_KEY or --api-key: running keyless\n`,
      )
    const timeoutMs = positiveInteger(flags.timeout, '--timeout')
    // Loaded here, not at the top: the other commands do not pay for the MCP SDK.
    const { serveStdio } = await import('../mcp/stdio.js')
    await serveStdio({ baseUrl, key: key === '' ? undefined : key, timeoutMs })
    process.stderr.write(
      `carmarket mcp: tools on stdio, calling ${visible(baseUrl)} ${key === '' ? 'keyless (the demo tier)' : 'with a key'}\n`,
    )
  })
