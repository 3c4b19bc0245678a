import { resource } from './resource.js'

/**
 * `/robots.txt`: crawlers are welcome on the pages; the API and the MCP endpoint answer
 * programs, and a crawler's calls would only use up its address's demo quota.
 */
export const ROBOTS = resource(
  '/robots.txt',
  `User-agent: *
Allow: /
Disallow: /v1/
Disallow: /mcp
`,
  'text/plain; charset=utf-8',
)
