import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ensureSampleSnapshot } from '../../cli/sample-command.js'
import { prettyJson } from '../../web/pretty-json.js'
import {
  DOCUMENTED_BASE,
  ExampleRunner,
  comparable,
  curlRequest,
  examples,
  servedRoutes,
  shellCommands,
  type Example,
} from '../doc-examples.js'
import { documentationFiles, fences, readDoc } from '../markdown.js'
import { SECRET_KEY, StripeStandIn, WEBHOOK_SECRET } from '../stripe-standin.js'
import { freshDir, spawnServe } from '../support.js'

// The default sample, built once the way `npm start` builds it: the documented answers are its answers.
const sampleDir = freshDir(t)
const snapshots = join(sampleDir, 'snapshots')
await ensureSampleSnapshot(snapshots, join(sampleDir, 'sample-listings.csv.gz'))

const documented = documentationFiles().map((file) => ({ file, examples: examples(readDoc(file), file) }))

/**
 * `carmarket serve` on the sample with a ledger of its own, trusting 127.0.0.1's
 * X-Forwarded-For; its links name the address `npm start` listens on, as the docs show them.
 */
async function serveSample(t: Test) {
  const ledger = freshDir(t)
  const outbox = join(ledger, 'outbox')
  // Plans sold through a stand-in of Stripe, as a server with Stripe's keys sells them.
  const standIn = await StripeStandIn.start(t)
  const env = {
    ...process.env,
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CARMARKET_STRIPE_API_BASE: standIn.origin,
  }
  const server = await spawnServe(
    t,
    [
      ...['--snapshots', snapshots, '--ledger', ledger, '--outbox', outbox],
      ...['--trusted-proxy', '127.0.0.1', '--no-request-log', '--public-url', 'http://127.0.0.1:8080'],
    ],
    { env },
  )
  return { base: `http://127.0.0.1:${server.port}`, ledger, outbox }
}

t.test('every documented call gets the answer shown, on the sample', async (t) => {
  for (const { file, examples } of documented.filter((d) => d.examples.length > 0)) {
    await t.test(file, async (t) => {
      // A server of its own for each file: its examples run in order from a fresh ledger, as a reader's would.
      const { base, ledger, outbox } = await serveSample(t)
      const runner = new ExampleRunner(base, ledger, outbox)
      for (const example of examples) {
        const answer = await runner.answer(example)
        const same = t.same(comparable(answer), comparable(example.answer), `${file}:${example.line}`)
        if (!same) t.comment(`${file}:${example.line} answers:\n${prettyJson(answer)}`)
      }
    })
  }
})

t.test('the README shows a first call, and the docs every route of the OpenAPI document but itself', async (t) => {
  const readme = documented.find((d) => d.file === 'README.md')!.examples
  t.ok(readme.length >= 1, 'the README has a first call with its answer')
  t.ok(
    readme[0]!.accounts.some((a) => a.variable === 'KEY'),
    'which opens an account for its key',
  )

  const { base } = await serveSample(t)
  const shown = new Set(documented.flatMap((d) => d.examples).map(routeOf))
  for (const route of (await servedRoutes(base)).filter((r) => r !== 'GET /v1/openapi.json')) {
    t.ok(shown.has(route), `${route} has an example`)
  }
})

t.test('every curl command of the docs names a variable so that an unset one stops the shell', async (t) => {
  let commands = 0
  for (const file of documentationFiles()) {
    for (const block of fences(readDoc(file)).filter((f) => f.lang === 'sh')) {
      for (const command of shellCommands(block.text).filter((c) => c.startsWith('curl '))) {
        commands++
        t.doesNotThrow(() => curlRequest(command, () => 'value'), `${file}:${block.line}: ${command}`)
      }
    }
  }
  t.ok(commands >= documented.flatMap((d) => d.examples).length)
  const bare = `curl -H "X-API-Key: $KEY" '${DOCUMENTED_BASE}/v1/account/me'`
  t.throws(() => curlRequest(bare, () => 'value'), /\$\{NAME:\?message\}/, 'a bare $KEY is refused')
})

function routeOf(example: Example): string {
  const request = curlRequest(example.curl, () => '000000')
  return `${request.method} ${request.target.split('?')[0]}`
}
