import { createHash } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'

const CHARTS_DIR = new URL('../charts/', import.meta.url)

/**
 * What the code that draws the charts is: a digest of its compiled modules, read once at
 * start. A chart's ETag includes it, so that a drawing changed by a new release is not
 * kept as the same image by a client that revalidates (an ETag names what the answer
 * shows, and a chart shows its drawing as much as its figures).
 */
export const CHARTS_VERSION: string = (() => {
  const hash = createHash('sha256')
  for (const name of readdirSync(CHARTS_DIR)
    .filter((file) => file.endsWith('.js'))
    .sort())
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(new URL(name, CHARTS_DIR)))
  return hash.digest('base64url').slice(0, 12)
})()
