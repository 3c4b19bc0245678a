import t, { type Test } from 'tap'
import { request } from 'undici'
import { build, freshDir, rows, spawnServe, toCsv } from './support.js'

/** The address the server is told it is reached at; links under it are fetched from the test's server. */
const PUBLIC = 'https://cars.example.test'
const PAGES = ['/', '/register', '/docs']
const ROUTES: Record<string, string> = {
  '/': 'text/html; charset=utf-8',
  '/register': 'text/html; charset=utf-8',
  '/docs': 'text/html; charset=utf-8',
  '/llms.txt': 'text/plain; charset=utf-8',
  '/.well-known/ai-plugin.json': 'application/json; charset=utf-8',
  '/logo.svg': 'image/svg+xml',
}
/** The MCP endpoint answers MCP messages, not page requests: its address is linked, never fetched here. */
const NOT_A_PAGE = '/mcp'

interface Fetched {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

async function serve(t: Test) {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const { port } = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t), '--outbox', freshDir(t), '--rate-limit', '0', '--public-url', `${PUBLIC}/`, '--no-request-log'])
  const base = `http://127.0.0.1:${port}`
  const fetch = async (path: string, method = 'GET', headers: Record<string, string> = {}): Promise<Fetched> => {
    const response = await request(`${base}${path}`, { method, headers })
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
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
      if (target.hash !== '') t.match(fetched.text, `id="${target.hash.slice(1)}"`, `${url} names an element of its page`)
    }
  }
  return { fetch, resolves }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
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
    t.same([head.status, head.text, head.headers['content-length'], head.headers.etag, head.headers['content-type']], [200, '', String(Buffer.byteLength(got.text)), etag, type], `HEAD ${path}`)
    const again = await fetch(path, 'GET', { 'if-none-match': etag })
    t.same([again.status, again.text], [304, ''], `${path} unchanged`)
  }
  for (const path of PAGES) {
    const page = (await fetch(path)).text
    t.match(page, /^<!doctype html>\n<html lang="en">/)
    t.notMatch(page, /<script(?![^>]*\ssrc="\/)|<style|\sstyle=|\son[a-z]+=/i, `${path}: no inline script or style, which the CSP would block`)
    const links = [...page.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&')).filter((u) => !u.startsWith('mailto:'))
    t.ok(links.every((u) => /^[/#]/.test(u)), `${path} links only to this site`)
    await resolves(t, links, path)
    for (const asset of links.filter((u) => u.startsWith('/assets/'))) {
      t.equal((await fetch(asset)).headers['cache-control'], 'public, max-age=31536000, immutable', `${asset} is cached for good`)
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
  const page = (await fetch('/docs')).text
  const sections = new Map(
    page
      .split('<article class="operation"')
      .slice(1)
      .map((chunk) => {
        const section = chunk.slice(0, chunk.indexOf('</article>'))
        const heading = /<span class="method [a-z]+">([A-Z]+)<\/span><code>([^<]+)<\/code>/.exec(section)
        return [heading === null ? '' : `${heading[1]} ${heading[2]}`, section]
      }),
  )
  const expected = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })))
  t.same([...sections.keys()].sort(), expected.map((e) => e.name).sort(), 'one section per operation')
  for (const { name, operation } of expected) {
    const section = sections.get(name) ?? ''
    t.ok(section.includes(escapeHtml(operation.summary.replace(/ \(\d+ credits\)$/, ''))), `${name}: summary`)
    if (operation.description !== undefined) t.ok(section.includes(escapeHtml(operation.description)), `${name}: description`)
    if (operation['x-credits'] !== undefined) t.ok(section.includes(operation['x-credits'] === 0 ? 'Free (0 credits)' : `${operation['x-credits']} credits`), `${name}: price`)
    for (const p of operation.parameters ?? []) {
      t.ok(section.includes(`<code>${p.name}</code><br><span class="small muted">${p.in}, ${p.required === true ? 'required' : 'optional'}</span>`), `${name}: ${p.name}, where and whether required`)
      t.ok(section.includes(escapeHtml(p.description)), `${name}: ${p.name} description`)
      for (const value of p.schema.enum ?? []) t.ok(section.includes(escapeHtml(JSON.stringify(value))), `${name}: ${p.name} accepts ${value}`)
      if (p.schema.minimum !== undefined) t.ok(section.includes(`${p.schema.minimum} to ${p.schema.maximum}`), `${name}: ${p.name} range`)
    }
    for (const field of Object.keys(operation.requestBody?.content['application/json'].schema.properties ?? {})) {
      t.ok(section.includes(`<code>${field}</code><br><span class="small muted">body, required</span>`), `${name}: body field ${field}`)
    }
    for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
      t.ok(section.includes(`<tr><td>${status}</td><td>${escapeHtml(response.description)}</td>`), `${name}: ${status}`)
      for (const code of Object.keys(response.content?.['application/json'].examples ?? {})) t.ok(section.includes(`<code>${code}</code>`), `${name}: ${status} ${code}`)
    }
    t.match(section, new RegExp(`curl [^<]*${PUBLIC.replace(/\./g, '\\.')}${name.split(' ')[1]}`), `${name}: a curl example at the public URL`)
  }
})

t.test('/llms.txt follows the convention, lists every market and account operation and its links resolve', async (t) => {
  const { fetch, resolves } = await serve(t)
  const doc = JSON.parse((await fetch('/v1/openapi.json')).text) as { paths: Record<string, Record<string, any>> }
  const text = (await fetch('/llms.txt')).text
  const lines = text.split('\n')
  t.match(lines[0], /^# \S/, 'an H1 with the name')
  t.match(lines.find((l, i) => i > 0 && l !== ''), /^> \S/, 'then a blockquote summary')
  const sections = text.split(/^## /m).slice(1)
  t.same(
    sections.map((s) => s.slice(0, s.indexOf('\n'))),
    ['Market operations', 'Account operations', 'Docs', 'Optional'],
  )
  for (const section of sections) {
    const items = section.split('\n').slice(1).filter((l) => l !== '')
    t.ok(items.every((l) => /^- \[[^\]]+\]\([^)]+\)/.test(l)), `${section.slice(0, section.indexOf('\n'))}: a list of links`)
  }
  const line = (path: string) => lines.find((l) => l.includes(`\`GET ${path}\``)) ?? ''
  for (const [path, item] of Object.entries(doc.paths)) {
    const tag = item.get?.tags?.[0]
    if (tag !== 'market' && tag !== 'account') continue
    const section = sections.find((s) => s.includes(`\`GET ${path}\``)) ?? ''
    t.ok(section.startsWith(tag === 'market' ? 'Market operations' : 'Account operations'), `${path} in its section`)
    t.match(line(path), item.get['x-credits'] === 0 ? '(free' : `(${item.get['x-credits']} credits`, `${path}: its price`)
    t.match(line(path), /Use it /, `${path}: when to use it`)
    for (const p of item.get.parameters) t.match(line(path), p.name, `${path}: ${p.name}`)
  }
  for (const path of ['/v1/openapi.json', '/docs', NOT_A_PAGE, '/register']) t.match(text, `](${PUBLIC}${path})`, `links ${path}`)
  await resolves(t, [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!))
})

t.test('/.well-known/ai-plugin.json: the manifest, at the public URL, pointing at the OpenAPI document', async (t) => {
  const { fetch, resolves } = await serve(t)
  const manifest = JSON.parse((await fetch('/.well-known/ai-plugin.json')).text)
  t.match(manifest, { schema_version: 'v1', auth: { type: 'none' }, api: { type: 'openapi', url: `${PUBLIC}/v1/openapi.json` }, contact_email: 'support@cars.example.test' })
  t.match(manifest.name_for_human, /^.{1,20}$/)
  t.match(manifest.name_for_model, /^[a-zA-Z0-9]{1,50}$/)
  t.match(manifest.description_for_human, /^.{1,100}$/)
  t.match(manifest.description_for_model, /X-API-Key/)
  t.equal((await fetch(manifest.api.url.slice(PUBLIC.length))).text, (await fetch('/v1/openapi.json')).text, 'api.url is the OpenAPI document')
  t.equal((await fetch(manifest.logo_url.slice(PUBLIC.length))).headers['content-type'], 'image/svg+xml')
  await resolves(t, [manifest.api.url, manifest.logo_url, manifest.legal_info_url])
  t.same(JSON.parse((await fetch('/v1/openapi.json')).text).servers, [{ url: PUBLIC }], 'the same public URL as the document')
})
