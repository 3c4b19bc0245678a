import type { Manifest } from '../format/schema.js'
import { toolset, type ToolDefinition } from '../mcp/tools.js'
import type { ExampleCalls } from '../runtime/example-calls.js'
import type { Links } from '../runtime/links.js'
import { apiView, type ApiView } from './api-view.js'

/** What the pages tell of the snapshot served: its manifest, and its answers to the example requests. */
export interface Served {
  readonly manifest: Manifest
  readonly examples: ExampleCalls
}

/** What every page is built from: the served document, the public address, the demo quota and the snapshot. */
export interface Site {
  /** The public URL without a trailing slash: the base of every absolute link. */
  readonly url: string
  /** The public URL's path ('' at the root): the start of every link within the site. */
  readonly base: string
  readonly api: ApiView
  /** The MCP tools, made from the document as the MCP endpoint makes them. */
  readonly tools: readonly ToolDefinition[]
  /** Keyless market calls per client address per day; 0 when the demo tier is off. */
  readonly demoQuota: number
  /** Whether plans are sold online (/buy starts a checkout); else they are ordered from `sales`, when there is one. */
  readonly checkout: boolean
  readonly sales: string | undefined
  /** Where support answers. */
  readonly support: string
  /** None while no snapshot is open: the pages then show no figures and no example answers. */
  readonly served: Served | undefined
}

export function site(documentJson: string, links: Links, demoQuota: number, served?: Served): Site {
  return {
    url: links.publicUrl,
    base: links.basePath,
    api: apiView(documentJson),
    tools: toolset(JSON.parse(documentJson) as Record<string, unknown>).tools,
    demoQuota,
    checkout: links.payPageOrigin !== undefined,
    sales: links.sales,
    support: links.support,
    served,
  }
}
