import { resource, type Resource } from './resource.js'

/**
 * `/robots.txt`: crawlers are welcome on the pages; the API and the MCP endpoint answer
 * programs, and a crawler's calls would only use up its address's demo quota. Under a
 * base path the routes answer there and at the root alike, so both are named.
 */
export function robots(base: string): Resource {
  const prefixes = base === '' ? [''] : [base, '']
  return resource(
    '/robots.txt',
    `User-agent: *
Allow: /
${prefixes.map((prefix) => `Disallow: ${prefix}/v1/\nDisallow: ${prefix}/mcp\n`).join('')}`,
    'text/plain; charset=utf-8',
  )
}
