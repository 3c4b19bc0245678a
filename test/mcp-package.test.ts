import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { CODE_VERSION } from '../format/code-version.js'
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
import { account, freshDir } from './support.js'

const PACKAGE = '/downloads/carmarket-mcp.tgz'

/** npm as a customer's machine runs it, with a cache of the test's own and nothing asked. */
function npmEnv(t: Test): Record<string, string> {
  return {
    npm_config_cache: join(freshDir(t), 'npm-cache'),
    npm_config_yes: 'true',
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  }
}

const text = async (url: string) => (await request(url)).body.text()

/** npm in `cwd`, a project of its own: npm would otherwise install into the nearest folder above with a package.json. */
function npm(args: readonly string[], cwd: string, env: Record<string, string>): Promise<string> {
  writeFileSync(join(cwd, 'package.json'), '{ "private": true }\n')
  return new Promise((resolve, reject) =>
    execFile('npm', [...args], { cwd, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`npm ${args.join(' ')}: ${stderr}`)),
    ),
  )
}

t.test('the package /docs gives stdio clients, run as it says: npx -y <url>/downloads/carmarket-mcp.tgz', async (t) => {
  const { base, document } = await serve(t, DEMO_QUOTA)
  const served = await request(`${base}${PACKAGE}`)
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'application/gzip')
  await served.body.arrayBuffer()
  const docs = await text(`${base}/docs`)
  t.match(docs, `npx -y ${base}${PACKAGE}`, '/docs gives the command, at the public URL')
  t.notMatch(docs, 'npx carmarket', 'and no command of a package that is not published')
  t.match(await text(`${base}/llms.txt`), `${base}${PACKAGE}`, 'so does llms.txt')

  const folder = freshDir(t)
  const { client, errors, stderr } = await stdioClient(t, 'npx', ['-y', `${base}${PACKAGE}`], npmEnv(t), folder)
  await checkTools(t, client, document, false)
  await checkKeylessCalls(t, client, base)
  await t.rejects(client.callTool({ name: 'get_account', arguments: {} }), McpError, 'no account tools without a key')
  t.match(stderr(), `the tools of ${base}/mcp on stdio, keyless (the demo tier)`, 'it says where it calls, and how')
  t.same(errors, [], 'nothing but MCP messages on stdout')
})

t.test(
  'installed from the running server into a folder: versioned by the snapshot, every tool with a key',
  async (t) => {
    const { base, ledger, document } = await serve(t, DEMO_QUOTA)
    const folder = freshDir(t)
    const env = npmEnv(t)
    await npm(['install', '--no-save', `${base}${PACKAGE}`], folder, env)
    const installed = join(folder, 'node_modules', 'carmarket-mcp')
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    const ready = JSON.parse(await text(`${base}/readyz`))
    t.equal(manifest.version, `${CODE_VERSION}-${ready.data.snapshot}`, "the code's version, and the snapshot's build")
    const bin = join(folder, 'node_modules', '.bin', 'carmarket-mcp')
    t.equal(
      await new Promise((resolve) => execFile(bin, ['--version'], (_e, out) => resolve(out.trim()))),
      manifest.version,
    )

    const { key } = await account(ledger, 'mcp-package@example.pl', 1000)
    const { client, errors } = await stdioClient(t, bin, [], { CARMARKET_API_KEY: key })
    await checkTools(t, client, document, true)
    await checkKeyedCalls(t, client, base, key)
    t.same(errors, [], 'nothing but MCP messages on stdout')

    const foreign = await stdioClient(t, bin, ['--base-url', `${base}/v1`], { CARDOSSIER_API_KEY: key })
    const result = await call(foreign.client, 'get_market_liquidity', { make: 'VW', model: 'Golf', year: 2017 })
    t.same([result.isError, result.structured?.credits_used], [false, 6], 'a base ending in /v1 is the service itself')
    const spent = await balance(base, key)
    t.match(foreign.stderr(), /CARDOSSIER_API_KEY is set, but carmarket-mcp reads its key from CARMARKET_API_KEY/)
    t.match(foreign.stderr(), 'keyless (the demo tier)')
    t.equal(await balance(base, key), spent, 'the foreign variable is not read')
  },
)

t.test('a service that cannot be reached: initialize gets an error that says why', async (t) => {
  const { base } = await serve(t, DEMO_QUOTA)
  const folder = freshDir(t)
  await npm(['install', '--no-save', `${base}${PACKAGE}`], folder, npmEnv(t))
  const bin = join(folder, 'node_modules', '.bin', 'carmarket-mcp')
  const { client } = await stdioClient(t, bin, [])
  t.equal((await client.listTools()).tools.length, 9)
  const port = await closedPort()
  await t.rejects(
    stdioClient(t, bin, ['--base-url', `http://127.0.0.1:${port}`]),
    {
      message: new RegExp(
        `The carmarket service at http://127\\.0\\.0\\.1:${port} could not be reached \\(ECONNREFUSED\\)`,
      ),
    },
    'initialize is answered with an error that says why',
  )
})
