import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isCount } from '../format/json-shape.js'
import { CURRENT_LINK, MANIFEST_FILE, type BuildCounts } from '../format/schema.js'
import { BuildError } from './build-error.js'

/**
 * The share by which listings or keys may fall from the current snapshot to the next.
 * A market changes little from one night to the next; a far smaller build is a cut-short
 * or wrong export far more often than a market that shrank.
 */
export const MAX_SHRINK = 0.2

/** MAX_SHRINK as --help and messages state it. */
export const MAX_SHRINK_TEXT = `${Math.round(MAX_SHRINK * 100)} %`

/**
 * Throws a `market_shrank` BuildError when `next` holds more than MAX_SHRINK fewer
 * listings or keys than the current snapshot of `snapshots`. With no current snapshot
 * whose counts can be read there is nothing to compare with, nor anything served.
 */
export function checkShrink(snapshots: string, next: BuildCounts): void {
  const current = currentCounts(snapshots)
  if (current === undefined) return
  const n = (x: number) => x.toLocaleString('en-US')
  const falls = (['listings_kept', 'keys_written'] as const)
    .filter((count) => next[count] < current.counts[count] * (1 - MAX_SHRINK))
    .map((count) => {
      const share = Math.round((1 - next[count] / current.counts[count]) * 100)
      return `${count} ${n(current.counts[count])} -> ${n(next[count])} (${share} % fewer)`
    })
  if (falls.length === 0) return
  throw new BuildError(
    'market_shrank',
    `the new snapshot is far smaller than the current one (${current.build_id}): ${falls.join(', ')}, ` +
      `more than the ${MAX_SHRINK_TEXT} a build may drop; nothing was published (--allow-shrink publishes it)`,
  )
}

type Guarded = Pick<BuildCounts, 'listings_kept' | 'keys_written'>

/** The build id and counts of the current snapshot, from its manifest.json; undefined when there is none to read. */
function currentCounts(snapshots: string): { build_id: string; counts: Guarded } | undefined {
  let manifest: unknown
  try {
    manifest = JSON.parse(readFileSync(join(snapshots, CURRENT_LINK, MANIFEST_FILE), 'utf8'))
  } catch {
    // No current snapshot, or one whose manifest cannot be read: it could not be served either.
    return undefined
  }
  type Listed = { build_id?: unknown; counts?: Partial<Record<keyof Guarded, unknown>> }
  const { build_id, counts } = (manifest ?? {}) as Listed
  const listings = counts?.listings_kept
  const keys = counts?.keys_written
  if (typeof build_id !== 'string' || !isCount(listings) || !isCount(keys)) return undefined
  return { build_id, counts: { listings_kept: listings, keys_written: keys } }
}
