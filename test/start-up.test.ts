import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

/**
 * The project's modules and the packages the compiled CLI imports statically, followed from `roots` (by default
 * cli/main.js and cli/serve-run.js, which `carmarket serve` imports when it runs).
 */
function staticImports(roots: readonly string[] = ['main.js', 'serve-run.js']): {
  readonly dist: string
  readonly modules: ReadonlySet<string>
  readonly packages: ReadonlySet<string>
} {
  const dist = fileURLToPath(new URL('..', import.meta.url))
  const modules = new Set<string>()
  const packages = new Set<string>()
  const follow = (file: string) => {
    if (modules.has(file)) return
    modules.add(file)
    for (const [, from, bare] of readFileSync(file, 'utf8').matchAll(
      /^(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm,
    )) {
      const specifier = (from ?? bare)!
      if (specifier.startsWith('.')) follow(join(dirname(file), specifier))
      else packages.add(specifier)
    }
  }
  for (const root of roots) follow(join(dist, 'cli', root))
  return { dist, modules, packages }
}

t.test('start-up does not load the MCP SDK: only /mcp and `carmarket mcp` import it, when used', async (t) => {
  const { dist, modules, packages } = staticImports()
  t.ok(modules.has(join(dist, 'runtime', 'mcp-route.js')), 'the route is there')
  t.ok(packages.has('lmdb') && packages.has('commander'), 'packages are seen')
  t.same(
    [...packages].filter((name) => name.startsWith('@modelcontextprotocol/')),
    [],
    'no module of the SDK',
  )
  t.same(
    [...modules].filter((file) => file.startsWith(join(dist, 'mcp'))).sort(),
    [
      join(dist, 'mcp', 'json.js'),
      join(dist, 'mcp', 'stdio-bridge.js'),
      join(dist, 'mcp', 'tool-guidance.js'),
      join(dist, 'mcp', 'tools.js'),
    ],
    'of mcp/ only the definitions of the tools and when to use them, which /docs and llms.txt list, and the program of the package /downloads serves: no SDK',
  )
})

t.test(
  'start-up does not load the network engines: a one-machine service never loads pg or the Redis client',
  async (t) => {
    const { dist, modules, packages } = staticImports()
    t.ok(modules.has(join(dist, 'cli', 'engines.js')), 'the engines are chosen in the graph followed')
    t.same(
      [...packages].filter((name) => name === 'pg' || name.startsWith('@redis/')),
      [],
      'no client of PostgreSQL or Redis',
    )
    t.same(
      [...modules].filter((file) => /\/ledger\/(pg|redis)-/.test(file)),
      [],
      'nor their engines',
    )
  },
)

t.test('a command other than serve starts without the runtime, its pages and its engines', async (t) => {
  const { dist, modules, packages } = staticImports(['main.js'])
  t.ok(modules.has(join(dist, 'cli', 'serve-command.js')), 'the serve command is declared')
  t.notOk(modules.has(join(dist, 'runtime', 'server.js')), 'the runtime is not loaded')
  t.notOk(modules.has(join(dist, 'web', 'routes.js')), 'nor the pages')
  t.notOk(packages.has('undici'), 'nor the HTTP client')
})

t.test(
  'start-up does not load the mail relay client or Stripe: only --smtp-url and Stripe keys load them',
  async (t) => {
    const { dist, modules, packages } = staticImports()
    t.ok(modules.has(join(dist, 'runtime', 'billing.js')), 'the billing routes are in the graph followed')
    t.same(
      [...packages].filter((name) => name === 'nodemailer' || name === 'stripe'),
      [],
      'neither nodemailer nor stripe',
    )
    t.notOk(
      modules.has(join(dist, 'runtime', 'smtp-transport.js')) ||
        modules.has(join(dist, 'runtime', 'stripe-checkout.js')),
    )
  },
)
