import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DEFAULTS } from '../runtime/defaults.js'
import { StripeCheckout } from '../runtime/stripe-checkout.js'
import { SECRET_KEY, StripeStandIn, WEBHOOK_SECRET } from './stripe-standin.js'
import { lastMailedCode, servedRoutes } from './doc-examples.js'
import { readDoc } from './markdown.js'
import { account, build, freshDir, outboxMail, rows, serve, toCsv } from './support.js'

/** A request of an .http file (REST Client / JetBrains), its {{variables}} still in place. */
interface HttpRequest {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string
  readonly line: number
}

/** The variables (`@name = value`) and the requests (separated by `###` lines) of an .http file. */
function parseHttpFile(text: string): { variables: Map<string, string>; requests: HttpRequest[] } {
  const variables = new Map<string, string>()
  const requests: HttpRequest[] = []
  const lines = text.split('\n')
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!.trim()
    const variable = /^@([\w-]+)\s*=\s*(.*)$/.exec(line)
    if (variable !== null) variables.set(variable[1]!, variable[2]!.trim())
    const start = /^([A-Z]+)\s+(\S+)(\s+HTTP\/[\d.]+)?$/.exec(line)
    if (start === null) {
      i++
      continue
    }
    const headers: Record<string, string> = {}
    let j = i + 1
    for (; j < lines.length && lines[j]!.trim() !== '' && !lines[j]!.startsWith('###'); j++) {
      const [name, ...value] = lines[j]!.split(':')
      headers[name!.trim().toLowerCase()] = value.join(':').trim()
    }
    const bodyLines: string[] = []
    for (; j < lines.length && !lines[j]!.startsWith('###'); j++) bodyLines.push(lines[j]!)
    requests.push({ method: start[1]!, url: start[2]!, headers, body: bodyLines.join('\n').trim(), line: i + 1 })
    i = j
  }
  return { variables, requests }
}

function fill(text: string, values: (name: string) => string): string {
  return text.replace(/\{\{\s*([\w-]+)\s*\}\}/g, (_, name: string) => values(name))
}

const collection = parseHttpFile(readDoc('docs/api.http'))

/** A runtime on a snapshot of one model-year: other market questions are well-formed but answered INSUFFICIENT_DATA. */
async function serveDocs(t: Test) {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 40_000 + i * 1000 }))))
  const ledger = freshDir(t)
  const standIn = await StripeStandIn.start(t)
  const { base } = await serve(t, {
    snapshots,
    ledger,
    rateLimit: DEFAULTS.rateLimit,
    publicUrl: 'http://localhost:8080',
    checkout: new StripeCheckout(SECRET_KEY, WEBHOOK_SECRET, new URL(standIn.origin)),
  })
  return { base, ledger }
}

t.test('docs/api.http holds a request for every route of the served OpenAPI document, and no other', async (t) => {
  const { base } = await serveDocs(t)
  const path = (url: string) => new URL(fill(url, (name) => (name === 'base' ? 'http://host' : 'x'))).pathname
  const collected = collection.requests.map((r) => `${r.method} ${path(r.url)}`)
  t.ok(
    collection.requests.every((r) => r.url.startsWith('{{base}}/')),
    'every request is on {{base}}',
  )
  t.same([...new Set(collected)].sort(), [...new Set(await servedRoutes(base))].sort())
})

t.test('every request of docs/api.http is one the server accepts, with the variables the file declares', async (t) => {
  t.ok(collection.variables.has('base') && collection.variables.has('key'), 'the file declares @base and @key')
  const { base, ledger } = await serveDocs(t)
  const { key } = await account(ledger, 'you@example.com', 1000)
  const values: Record<string, () => string> = {
    base: () => base,
    key: () => key,
    code: () => lastMailedCode(join(ledger, 'outbox')),
  }
  const value = (name: string) => {
    const found = values[name]?.() ?? collection.variables.get(name)
    if (found === undefined) throw new Error(`{{${name}}} is declared nowhere in docs/api.http`)
    return found
  }
  for (const request of collection.requests) {
    const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, fill(v, value)]))
    const body = request.body === '' ? {} : { body: fill(request.body, value) }
    const answer = await fetch(fill(request.url, value), { method: request.method, headers, ...body })
    const code = ((await answer.json()) as { error?: { code: string } }).error?.code
    const where = `api.http:${request.line} ${request.method} ${request.url}`
    // Stripe signs its events: the file's one shows their shape, and unsigned it is refused as any forgery is.
    const refusedUnsigned = request.url.endsWith('/stripe-webhook') && code === 'INVALID_PARAMETER'
    t.ok(answer.ok || code === 'INSUFFICIENT_DATA' || refusedUnsigned, `${where}: ${answer.status} ${code ?? ''}`)
  }
  const mail = outboxMail(join(ledger, 'outbox'), collection.variables.get('email'))
  t.ok(
    mail.some((m) => /API key/.test(m.subject)),
    'the registration requests open an account, whose key is mailed',
  )
})
