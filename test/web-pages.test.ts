import { execFile } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Marked } from 'marked'
import { BATCH as BATCH_LIMITS } from '../runtime/batch-call.js'
import { MAX_BODY_BYTES } from '../runtime/json-body.js'
import { MAX_MCP_BODY_BYTES } from '../runtime/mcp-route.js'
import t, { type Test } from 'tap'
import { request } from 'undici'
import type { Manifest } from '../format/schema.js'
import { codeBlocks, curlUrl, operationSections } from './html.js'
import { account, build, freshDir, rows, spawnServe, toCsv } from './support.js'

/** The address the server is told it is reached at; links under it are fetched from the test's server. */
const PUBLIC = 'https://cars.example.test'
const PAGES = ['/', '/register', '/docs']
const ROUTES: Record<string, string> = {
  '/': 'text/html; charset=utf-8',
  '/register': 'text/html; charset=utf-8',
  '/docs': 'text/html; charset=utf-8',
  '/llms.txt': 'text/plain; charset=utf-8',
  '/.well-known/ai-plugin.json': 'application/json; charset=utf-8',
  '/robots.txt': 'text/plain; charset=utf-8',
  '/favicon.ico': 'image/x-icon',
  '/logo.svg': 'image/svg+xml',
}
/** Several market calls in one POST. */
const BATCH = '/v1/market/batch'
/** The MCP endpoint answers MCP messages, not page requests: its address is linked, never fetched here. */
const NOT_A_PAGE = '/mcp'

interface Fetched {
  status: number
  headers: Record<string, string | string[] | undefined>
  bytes: Buffer
  text: string
}

/**
 * A market of 1,234 listings of one 2017 Golf: every market operation answers the
 * examples but valuation-factors, which has nothing to compare (404).
 */
const MARKET = toCsv(rows(1234, (i) => ({ price: 30_000 + (i % 97) * 100 })))

async function serve(t: Test) {
  const built = await build(t, MARKET)
  const ledger = freshDir(t)
  const { port, child } = await spawnServe(t, [
    ...['--snapshots', built.snapshots, '--ledger', ledger, '--outbox', freshDir(t)],
    ...['--rate-limit', '0', '--demo-quota', '1000', '--public-url', `${PUBLIC}/`, '--no-request-log'],
  ])
  const base = `http://127.0.0.1:${port}`
  const fetch = async (
    path: string,
    method = 'GET',
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<Fetched> => {
    const response = await request(`${base}${path}`, { method, headers, body })
    const bytes = Buffer.from(await response.body.arrayBuffer())
    return { status: response.statusCode, headers: response.headers, bytes, text: bytes.toString() }
  }
  /**
   * Every link of a text (of the page at `from`) is on this site at its public URL, and
   * resolves on the test's server: 200, and a fragment names an element of its page.
   */
  const resolves = async (t: Test, urls: readonly string[], from = '/') => {
    for (const url of new Set(urls)) {
      const target = new URL(url, `${PUBLIC}${from}`)
      t.equal(target.origin, PUBLIC, `${url} is on this site`)
      if (target.pathname === NOT_A_PAGE) continue
      const fetched = await fetch(target.pathname + target.search)
      t.equal(fetched.status, 200, `${url} resolves`)
      if (target.hash !== '')
        t.match(fetched.text, `id="${target.hash.slice(1)}"`, `${url} names an element of its page`)
    }
  }
  return { fetch, resolves, built, ledger, child, base }
}

/** A description of the document as its Markdown renders (marked, inline). */
function markdown(text: string): string {
  return new Marked().parseInline(text) as string
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/** The element of a page with this id, up to its closing tag (the first one: sections here do not nest). */
function byId(page: string, id: string, tag = 'section'): string {
  const start = page.indexOf(`<${tag} id="${id}"`)
  return start < 0 ? '' : page.slice(start, page.indexOf(`</${tag}>`, start))
}

t.test('each page and file: status, type, CSP, caching, HEAD and conditional GET', async (t) => {
  const { fetch, resolves } = await serve(t)
  for (const [path, type] of Object.entries(ROUTES)) {
    const got = await fetch(path)
    t.equal(got.status, 200, path)
    t.equal(got.headers['content-type'], type, `${path} type`)
    const csp = String(got.headers['content-security-policy'])
    t.match(csp, /(^|; )default-src 'self'(;|$)/, `${path} allows only this origin`)
    t.notMatch(csp, /unsafe|https?:|\*/, `${path} allows nothing else`)
    t.equal(got.headers['x-content-type-options'], 'nosniff')
    t.equal(got.headers['cache-control'], 'no-cache', `${path} is revalidated`)
    const etag = String(got.headers.etag)
    const head = await fetch(path, 'HEAD')
    t.same(
      [head.status, head.text, head.headers['content-length'], head.headers.etag, head.headers['content-type']],
      [200, '', String(got.bytes.length), etag, type],
      `HEAD ${path}`,
    )
    const again = await fetch(path, 'GET', { 'if-none-match': etag })
    t.same([again.status, again.text], [304, ''], `${path} unchanged`)
  }
  for (const path of PAGES) {
    const page = (await fetch(path)).text
    t.match(page, /^<!doctype html>\n<html lang="en">/)
    t.notMatch(
      page,
      /<script(?![^>]*\ssrc="\/)|<style|\sstyle=|\son[a-z]+=/i,
      `${path}: no inline script or style, which the CSP would block`,
    )
    const links = [...page.matchAll(/\s(?:href|src)="([^"]*)"/g)]
      .map((m) => m[1]!.replace(/&amp;/g, '&'))
      .filter((u) => !u.startsWith('mailto:'))
    t.ok(
      links.every((u) => /^[/#]/.test(u)),
      `${path} links only to this site`,
    )
    t.notOk(links.includes(NOT_A_PAGE), `${path} does not link the MCP endpoint, which answers a browser with an error`)
    t.match(page, `<link rel="icon" href="/favicon.ico"`, `${path} names the ICO icon`)
    t.match(page, `<link rel="icon" href="/logo.svg" type="image/svg+xml">`, `${path} names the SVG icon`)
    await resolves(t, links, path)
    for (const asset of links.filter((u) => u.startsWith('/assets/'))) {
      t.equal(
        (await fetch(asset)).headers['cache-control'],
        'public, max-age=31536000, immutable',
        `${asset} is cached for good`,
      )
    }
  }
  const register = (await fetch('/register')).text
  for (const id of ['email', 'code']) t.match(register, `<label for="${id}">`, `the ${id} field has a label`)
  t.same(JSON.parse((await fetch('/nowhere')).text).error.code, 'NOT_FOUND', 'other paths are still the API error')
  const post = await fetch('/', 'POST')
  t.same([post.status, post.headers.allow], [405, 'GET, HEAD'])
})

t.test('/docs renders every operation, parameter, price, answer and error code of the OpenAPI document', async (t) => {
  const { fetch } = await serve(t)
  const doc = JSON.parse((await fetch('/v1/openapi.json')).text) as { paths: Record<string, Record<string, any>> }
  const sections = operationSections((await fetch('/docs')).text)
  const expected = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
  )
  t.same([...sections.keys()].sort(), expected.map((e) => e.name).sort(), 'one section per operation')
  for (const { name, operation } of expected) {
    const section = sections.get(name) ?? ''
    t.ok(section.includes(markdown(operation.summary.replace(/ \(\d+ credits\)$/, ''))), `${name}: summary`)
    if (operation.description !== undefined)
      t.ok(section.includes(markdown(operation.description)), `${name}: description`)
    if (operation['x-credits'] !== undefined)
      t.ok(
        section.includes(operation['x-credits'] === 0 ? 'Free (0 credits)' : `${operation['x-credits']} credits`),
        `${name}: price`,
      )
    for (const p of operation.parameters ?? []) {
      t.ok(
        section.includes(
          `<code>${p.name}</code><br><span class="small muted">${p.in}, ${p.required === true ? 'required' : 'optional'}</span>`,
        ),
        `${name}: ${p.name}, where and whether required`,
      )
      t.ok(section.includes(markdown(p.description)), `${name}: ${p.name} description`)
      for (const value of p.schema.enum ?? [])
        t.ok(section.includes(escapeHtml(JSON.stringify(value))), `${name}: ${p.name} accepts ${value}`)
      if (p.schema.minimum !== undefined)
        t.ok(section.includes(`${p.schema.minimum} to ${p.schema.maximum}`), `${name}: ${p.name} range`)
    }
    const body = operation.requestBody?.content['application/json'].schema
    for (const field of Object.keys(body?.properties ?? {})) {
      const needed = (body.required ?? []).includes(field) ? 'required' : 'optional'
      t.ok(
        section.includes(`<code>${field}</code><br><span class="small muted">body, ${needed}</span>`),
        `${name}: body field ${field}, ${needed}`,
      )
    }
    for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
      const row = `<tr><td>${status}</td><td data-label="Meaning">${markdown(response.description)}</td>`
      t.ok(section.includes(row), `${name}: ${status}`)
      for (const code of Object.keys(response.content?.['application/json']?.examples ?? {}))
        t.ok(section.includes(`<code>${code}</code>`), `${name}: ${status} ${code}`)
    }
    t.match(
      section,
      new RegExp(`curl [^<]*${PUBLIC.replace(/\./g, '\\.')}${name.split(' ')[1]}`),
      `${name}: a curl example at the public URL`,
    )
  }
  for (const path of ['/v1/catalog/makes', '/v1/catalog/models', '/v1/catalog/versions']) {
    const section = sections.get(`GET ${path}`) ?? ''
    t.ok(section.includes('<li>Free (0 credits)</li><li>No key</li>'), `${path}: free, and no key`)
    t.notMatch(section, 'X-API-Key', `${path}: its curl example sends no key`)
  }
  const catalog = byId((await fetch('/docs')).text, 'catalog')
  t.match(catalog, '<h2 id="catalog-title">Catalog</h2>', 'the catalogue has a section of its own')
  const depreciation = sections.get('GET /v1/market/depreciation') ?? ''
  t.match(depreciation, 'Key optional', 'depreciation is a market operation: the demo tier answers it')
  t.notMatch(depreciation, '<code>year</code>', 'and takes no year')
})

t.test(
  '/llms.txt follows the convention, lists every market and account operation and its links resolve',
  async (t) => {
    const { fetch, resolves } = await serve(t)
    const doc = JSON.parse((await fetch('/v1/openapi.json')).text) as { paths: Record<string, Record<string, any>> }
    const text = (await fetch('/llms.txt')).text
    const lines = text.split('\n')
    t.match(lines[0], /^# \S/, 'an H1 with the name')
    t.match(
      lines.find((l, i) => i > 0 && l !== ''),
      /^> \S/,
      'then a blockquote summary',
    )
    const sections = text.split(/^## /m).slice(1)
    t.same(
      sections.map((s) => s.slice(0, s.indexOf('\n'))),
      ['Market operations', 'Catalogue operations', 'Account operations', 'Docs', 'Optional'],
    )
    for (const section of sections) {
      const items = section
        .split('\n')
        .slice(1)
        .filter((l) => l !== '')
      t.ok(
        items.every((l) => /^- \[[^\]]+\]\([^)]+\)/.test(l)),
        `${section.slice(0, section.indexOf('\n'))}: a list of links`,
      )
    }
    const line = (path: string) => lines.find((l) => l.includes(`\`GET ${path}\``)) ?? ''
    const sectionOf: Record<string, string> = {
      market: 'Market operations',
      catalog: 'Catalogue operations',
      account: 'Account operations',
    }
    const listed: string[] = []
    for (const [path, item] of Object.entries(doc.paths)) {
      const tag = item.get?.tags?.[0]
      if (sectionOf[tag] === undefined) continue
      listed.push(path)
      const section = sections.find((s) => s.includes(`\`GET ${path}\``)) ?? ''
      t.ok(section.startsWith(sectionOf[tag]), `${path} in its section`)
      t.match(
        line(path),
        item.get['x-credits'] === 0 ? '(free' : `(${item.get['x-credits']} credits`,
        `${path}: its price`,
      )
      t.match(line(path), /Use it /, `${path}: when to use it`)
      for (const p of item.get.parameters) t.match(line(path), p.name, `${path}: ${p.name}`)
    }
    for (const path of ['/v1/market/depreciation', '/v1/catalog/makes', '/v1/catalog/models'])
      t.ok(listed.includes(path), `${path} is listed`)
    t.match(line('/v1/catalog/models'), '(free; takes make)', 'the catalogue is free')
    t.match(
      line('/v1/market/depreciation'),
      "how much higher each newer production year's median is on average",
      'the sign of the change: newer years dearer',
    )
    for (const path of ['/v1/openapi.json', '/docs', NOT_A_PAGE, '/register'])
      t.match(text, `](${PUBLIC}${path})`, `links ${path}`)
    await resolves(
      t,
      [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!),
    )
  },
)

t.test('/.well-known/ai-plugin.json: the manifest, at the public URL, pointing at the OpenAPI document', async (t) => {
  const { fetch, resolves } = await serve(t)
  const manifest = JSON.parse((await fetch('/.well-known/ai-plugin.json')).text)
  t.match(manifest, {
    schema_version: 'v1',
    auth: { type: 'none' },
    api: { type: 'openapi', url: `${PUBLIC}/v1/openapi.json` },
    contact_email: 'support@cars.example.test',
  })
  t.match(manifest.name_for_human, /^.{1,20}$/)
  t.match(manifest.name_for_model, /^[a-zA-Z0-9]{1,50}$/)
  t.match(manifest.description_for_human, /^.{1,100}$/)
  t.match(manifest.description_for_model, /X-API-Key/)
  t.equal(
    (await fetch(manifest.api.url.slice(PUBLIC.length))).text,
    (await fetch('/v1/openapi.json')).text,
    'api.url is the OpenAPI document',
  )
  t.equal((await fetch(manifest.logo_url.slice(PUBLIC.length))).headers['content-type'], 'image/svg+xml')
  await resolves(t, [manifest.api.url, manifest.logo_url, manifest.legal_info_url])
  t.same(
    JSON.parse((await fetch('/v1/openapi.json')).text).servers,
    [{ url: PUBLIC }],
    'the same public URL as the document',
  )
})

t.test(
  "every example answer shown is what the server answers to the request shown with it, and so is the document's",
  async (t) => {
    const { fetch, ledger } = await serve(t)
    const doc = JSON.parse((await fetch('/v1/openapi.json')).text) as { paths: Record<string, Record<string, any>> }
    const { key } = await account(ledger, 'examples@example.pl', 1000)
    const answerTo = async (url: URL, withKey = false) =>
      JSON.parse((await fetch(url.pathname + url.search, 'GET', withKey ? { 'x-api-key': key } : {})).text)
    const sections = operationSections((await fetch('/docs')).text)
    const market = Object.keys(doc.paths).filter((path) => path.startsWith('/v1/market/') && path !== BATCH)
    t.equal(market.length, 6)
    const catalog = Object.keys(doc.paths).filter((path) => path.startsWith('/v1/catalog/'))
    t.same(catalog, ['/v1/catalog/makes', '/v1/catalog/models', '/v1/catalog/versions'])
    const refused: string[] = []
    for (const path of [...market, ...catalog]) {
      const [shownRequest, shownAnswer, ...rest] = codeBlocks(sections.get(`GET ${path}`) ?? '')
      t.same(
        [shownRequest?.answer, shownAnswer?.answer, rest.length],
        [false, true, 0],
        `${path}: a request, then its answer`,
      )
      const url = curlUrl(shownRequest!.text)
      t.equal(
        `${url.origin}${url.pathname}`,
        `${PUBLIC}${path}`,
        `${path}: the request is of this operation at the public URL`,
      )
      const shown = JSON.parse(shownAnswer!.text)
      t.same(shown, await answerTo(url), `${path}: the answer shown is the server's to ${url.search}`)
      const keyed = await answerTo(url, true)
      if (keyed.status === 'success' && market.includes(path)) {
        t.type(keyed.data.credits_remaining, 'number', `${path}: a keyed answer has the balance`)
        delete keyed.data.credits_remaining
      }
      t.same(shown, keyed, `${path}: and so is the keyed one, less credits_remaining`)
      const documented = doc.paths[path]!.get.responses['200'].content['application/json'].example
      if (shown.status === 'success') t.same(documented, shown, `${path}: the document's example is the same answer`)
      else {
        refused.push(path)
        t.equal(documented, undefined, `${path}: the document shows no success the data does not give`)
      }
    }
    t.same(refused, ['/v1/market/valuation-factors'], 'a request the data cannot answer shows its error')

    // The batch: a POST of the example body, answered keyless as shown, and keyed the same less the balances.
    const [shownBatch, shownBatchAnswer, ...more] = codeBlocks(sections.get(`POST ${BATCH}`) ?? '')
    t.same(
      [shownBatch?.answer, shownBatchAnswer?.answer, more.length],
      [false, true, 0],
      'the batch: a request, then its answer',
    )
    const body = /-d '([^']+)'/.exec(shownBatch!.text)?.[1]
    t.equal(
      `${curlUrl(shownBatch!.text)}`,
      `${PUBLIC}${BATCH}`,
      'the batch request is of the batch route at the public URL',
    )
    const batchAnswer = async (key?: string) =>
      JSON.parse(
        (
          await fetch(
            BATCH,
            'POST',
            { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-key': key }) },
            body,
          )
        ).text,
      )
    const shownBatchBody = JSON.parse(shownBatchAnswer!.text)
    t.same(shownBatchBody, await batchAnswer(), "the batch's answer shown is the server's")
    t.equal(shownBatchBody.data.results.length, 3)
    t.ok(
      shownBatchBody.data.results.every((r: { status: string }) => r.status === 'success'),
      'every item of the example is answered',
    )
    const keyedBatch = await batchAnswer(key)
    t.type(keyedBatch.data.credits_remaining, 'number')
    delete keyedBatch.data.credits_remaining
    for (const item of keyedBatch.data.results) delete item.data.credits_remaining
    t.same(shownBatchBody, keyedBatch, 'and so is the keyed one, less the balances')
    t.same(doc.paths[BATCH]!.post.responses['200'].content['application/json'].example, shownBatchBody)

    const tryIt = codeBlocks(byId((await fetch('/')).text, 'try'))
    const requests = tryIt.filter((b) => !b.answer)
    const answers = tryIt.filter((b) => b.answer)
    t.same([requests.length, answers.length], [2, 1], 'the home page: a keyless and a keyed request, and the answer')
    t.same(
      requests.map((r) => curlUrl(r.text).href),
      [
        `${PUBLIC}/v1/market/valuation?make=VW&model=Golf&year=2017`,
        `${PUBLIC}/v1/market/valuation?make=VW&model=Golf&year=2017`,
      ],
    )
    t.same(
      JSON.parse(answers[0]!.text),
      await answerTo(curlUrl(requests[0]!.text)),
      "the home page's answer is the server's",
    )
  },
)

t.test('a curl line that needs the key stops in the shell while KEY is unset', async (t) => {
  const { fetch } = await serve(t)
  const lines: string[] = []
  for (const path of ['/', '/docs', '/register']) {
    for (const block of codeBlocks((await fetch(path)).text))
      if (block.text.startsWith('curl') && block.text.includes('X-API-Key')) lines.push(block.text)
  }
  t.equal(
    lines.length,
    17,
    'the keyed examples: the eleven market, batch, account and billing operations and the four charts of /docs, the home page and the registration',
  )
  for (const line of lines) t.match(line, '-H "X-API-Key: ${KEY:?set KEY to your key}"', 'the key from $KEY, or a stop')
  const env = { PATH: process.env.PATH ?? '' }
  const run = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
    execFile('bash', ['-c', lines[0]!], { env }, (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : (error.code as number), stderr }),
    ),
  )
  t.not(run.code, 0, 'bash refuses to run it')
  t.match(run.stderr, 'set KEY to your key', 'and says why')
})

t.test('the figures on the pages are those of the snapshot served, and follow a new one', async (t) => {
  const { fetch, built, child } = await serve(t)
  const shows = async (manifest: Manifest, label: string) => {
    const listings = manifest.counts.listings_kept.toLocaleString('en-US')
    const landing = (await fetch('/')).text
    t.match(landing, `<li>Aggregated from ${listings} listings</li>`, `${label}: the home page's listing count`)
    t.match(
      landing,
      `<li>${manifest.counts.makes} makes, ${manifest.counts.models} models</li>`,
      `${label}: makes and models`,
    )
    t.match(
      (await fetch('/llms.txt')).text,
      `aggregated from ${listings} listings of ${manifest.counts.makes} makes`,
      `${label}: llms.txt's`,
    )
    for (const path of ['/', '/docs'])
      t.match((await fetch(path)).text, `<time datetime="${manifest.as_of}">`, `${label}: ${path} tells the as-of date`)
    t.match(
      (await fetch('/')).text,
      `built <time datetime="${manifest.created_at}">`,
      `${label}: the home page tells when the snapshot was built, not a promise of "nightly"`,
    )
    t.notMatch((await fetch('/')).text, /nightly/i)
  }
  t.equal(built.snapshot.manifest.counts.listings_kept, 1234)
  await shows(built.snapshot.manifest, 'the first snapshot')
  t.notMatch((await fetch('/')).text, /1\.4 million/, 'no figure the snapshot does not hold')
  const answerShown = async () =>
    JSON.parse(codeBlocks(byId((await fetch('/')).text, 'try')).find((b) => b.answer)!.text)
  t.equal((await answerShown()).data.sample_size, 1234)

  const next = await build(t, toCsv(rows(2345, (i) => ({ price: 40_000 + (i % 89) * 100 }))), {
    snapshots: built.snapshots,
    asOf: '2026-10-31',
  })
  child.kill('SIGHUP')
  for (let tries = 0; tries < 100 && !(await fetch('/llms.txt')).text.includes('2,345'); tries++)
    await new Promise((resolve) => setTimeout(resolve, 100))
  await shows(next.snapshot.manifest, 'the next snapshot')
  t.equal((await answerShown()).data.sample_size, 2345, 'the example answers are of the new snapshot')
})

t.test(
  '/docs#mcp: how to connect a desktop client and an HTTP client, and every tool the endpoint offers',
  async (t) => {
    const { fetch, base } = await serve(t)
    const mcp = byId((await fetch('/docs')).text, 'mcp')
    t.match(mcp, '<h2 id="mcp-title">MCP</h2>')
    t.match(
      mcp,
      `<code>npx -y ${PUBLIC}/downloads/carmarket-mcp.tgz</code>`,
      'the stdio command: the package this service serves, at the public URL',
    )
    const config = JSON.parse(codeBlocks(mcp)[0]!.text)
    t.same(
      config.mcpServers.carmarket,
      {
        command: 'npx',
        args: ['-y', `${PUBLIC}/downloads/carmarket-mcp.tgz`],
        env: { CARMARKET_API_KEY: '<your key>' },
      },
      "a desktop client's configuration",
    )
    t.match(mcp, `<code>${PUBLIC}/mcp</code>`, 'the Streamable HTTP endpoint, as text')
    t.notMatch(mcp, /href="[^"]*\/mcp"/, 'not as a link a browser would open')
    const client = new Client({ name: 'carmarket-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { 'X-API-Key': 'cm_any' } },
      }),
    )
    t.teardown(() => client.close())
    const { tools } = await client.listTools()
    t.equal(tools.length, 11, 'with a key: the market, catalogue and account tools')
    const listed = [...mcp.matchAll(/<tr><td><code>([a-z_]+)<\/code>/g)].map((m) => m[1])
    t.same(
      listed,
      tools.map((tool) => tool.name),
      'the section lists every tool the endpoint offers, in its order',
    )
    const landing = (await fetch('/')).text
    t.match(landing, '<a href="/docs#mcp">', 'the home page links the section')
  },
)

t.test('/robots.txt keeps crawlers to the pages; /favicon.ico is an icon', async (t) => {
  const { fetch } = await serve(t)
  const robots = (await fetch('/robots.txt')).text.split('\n')
  t.same(robots.slice(0, 4), ['User-agent: *', 'Allow: /', 'Disallow: /v1/', 'Disallow: /mcp'])
  const icon = (await fetch('/favicon.ico')).bytes
  t.same([icon.readUInt16LE(0), icon.readUInt16LE(2)], [0, 1], 'an ICO file')
  const images = Array.from({ length: icon.readUInt16LE(4) }, (_, i) => {
    const entry = 6 + 16 * i
    const [size, bytes, offset] = [icon.readUInt8(entry), icon.readUInt32LE(entry + 8), icon.readUInt32LE(entry + 12)]
    const bitmap = icon.subarray(offset, offset + bytes)
    // A 32-bit BMP of double height (the image and its mask), then the pixels and the mask.
    t.same(
      [bitmap.readUInt32LE(0), bitmap.readInt32LE(4), bitmap.readInt32LE(8), bitmap.readUInt16LE(14)],
      [40, size, size * 2, 32],
      `the ${size} px image's header`,
    )
    t.equal(bytes, 40 + size * size * 4 + Math.ceil(size / 32) * 4 * size, `the ${size} px image's length`)
    const pixel = (x: number, y: number) =>
      bitmap.subarray(40 + ((size - 1 - y) * size + x) * 4, 44 + ((size - 1 - y) * size + x) * 4)
    t.same([...pixel(0, 0)], [0, 0, 0, 0], `${size} px: a transparent corner`)
    t.same([...pixel(size / 8, size / 2)], [0xd8, 0x4e, 0x1d, 255], `${size} px: the blue ground`)
    return size
  })
  t.same(images, [16, 32])
})

t.test("the document's Markdown is rendered on the pages: no raw backticks outside code", async (t) => {
  const { fetch } = await serve(t)
  for (const path of ['/', '/docs']) {
    const prose = (await fetch(path)).text
      .replace(/<pre[\s\S]*?<\/pre>/g, '')
      .replace(/<code>[\s\S]*?<\/code>/g, '')
      .replace(/<script[\s\S]*?<\/script>/g, '')
    t.notOk(prose.includes('`'), `${path}: every \`code\` of the descriptions is rendered`)
  }
  t.match((await fetch('/docs')).text, '<code>fuel_type</code>', 'as code')
})

t.test('the table of error codes gives each code a meaning of its own, every limit from its home', async (t) => {
  const { fetch } = await serve(t)
  const page = (await fetch('/docs')).text
  const rows = [
    ...page.matchAll(
      /<tr><td><code>([A-Z_]+)<\/code><br><span class="small muted">HTTP \d+<\/span><\/td><td data-label="Meaning">(.*?)<\/td><\/tr>/g,
    ),
  ]
  const meanings = rows.map((row) => row[2]!)
  t.ok(rows.length >= 15, `${rows.length} codes`)
  t.equal(new Set(meanings).size, meanings.length, 'no two codes share a meaning')
  const tooLarge = rows.find((row) => row[1] === 'PAYLOAD_TOO_LARGE')?.[2] ?? ''
  for (const limit of [
    `${MAX_BODY_BYTES / 1024} KiB`,
    `${BATCH_LIMITS.maxBodyBytes / 1024} KiB`,
    `${MAX_MCP_BODY_BYTES / 1024} KiB`,
  ])
    t.match(tooLarge, limit, `PAYLOAD_TOO_LARGE quotes ${limit}`)
})
