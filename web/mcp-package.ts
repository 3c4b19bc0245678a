import { CODE_VERSION } from '../format/code-version.js'
import { bridgeManifest, bridgeProgram, type BridgeTarget } from '../mcp/stdio-bridge.js'
import { resource, type Resource } from './resource.js'
import type { Site } from './site.js'
import { tarball } from './tarball.js'

/** Where the package is served: the address /docs and llms.txt give stdio clients. */
export const MCP_PACKAGE_PATH = '/downloads/carmarket-mcp.tgz'

/**
 * The carmarket-mcp package as a tarball npm installs from this service
 * (`npx -y <public URL>/downloads/carmarket-mcp.tgz`): built at start for the public
 * URL, versioned by the code and the snapshot served, so a new snapshot is a new version.
 */
export function mcpPackage(site: Site): Resource {
  const manifest = site.served?.manifest
  const target: BridgeTarget = {
    url: site.url,
    keyHeader: site.api.keyHeader,
    version: manifest === undefined ? CODE_VERSION : `${CODE_VERSION}-${manifest.build_id}`,
  }
  const readme = `# carmarket-mcp ${target.version}

The MCP tools of the carmarket API at ${site.url} for clients that start a program on stdio:

    npx -y ${site.url}${MCP_PACKAGE_PATH}

With a key in \`CARMARKET_API_KEY\` (or \`--api-key\`); without one, the keyless demo tier.
Each message goes to ${site.url}/mcp, which a client that speaks HTTP can use directly.
Documentation: ${site.url}/docs#mcp
`
  const files = [
    { path: 'package/package.json', text: bridgeManifest(target) },
    { path: 'package/README.md', text: readme },
    { path: 'package/carmarket-mcp.js', text: bridgeProgram(target), executable: true },
  ]
  const created = Date.parse(manifest?.created_at ?? '')
  const built = new Date(Number.isFinite(created) ? created : 0)
  return resource(MCP_PACKAGE_PATH, tarball(files, built), 'application/gzip', false)
}
