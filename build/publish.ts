import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { BUILD_ID_PATTERN, CURRENT_LINK, SNAPSHOT_LOCK_FILE } from '../format/schema.js'
import { BuildError } from './build-error.js'

/**
 * How a build reaches the runtime: it writes under `snapshots/.building-<id>/`, renames
 * that to `snapshots/<id>/` once verified (its files made read-only), and only then
 * points `snapshots/current` at it by renaming a new symlink over the old one (an atomic
 * step on POSIX file systems).
 * A build that fails or is killed before that leaves `current` as it was.
 */

const STAGING_PREFIX = '.building-'
const LOCK_FILE = '.build.lock'

/** Sortable and unique: the UTC time of the build to the millisecond and a random suffix. */
export function newBuildId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '')
  return `${stamp}-${randomBytes(3).toString('hex')}`
}

/**
 * Runs `work` holding the snapshots folder's build lock, so two builds (or pulls) never
 * publish over each other. A lock left by a process that no longer runs is taken over,
 * and the staging folders such a process left behind are removed; so is the staging
 * folder of a `work` that fails.
 */
export async function withBuildLock<T>(snapshots: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(snapshots, { recursive: true })
  const lock = join(snapshots, LOCK_FILE)
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' })
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error
      const holder = Number(readFileSync(lock, 'utf8'))
      if (Number.isInteger(holder) && holder > 0 && isRunning(holder)) {
        throw new BuildError('build_running', `another build (process ${holder}) is writing to ${snapshots}`)
      }
      rmSync(lock, { force: true })
    }
  }
  try {
    removeStaging(snapshots)
    return await work()
  } finally {
    removeStaging(snapshots)
    rmSync(lock, { force: true })
  }
}

/** Only the lock's holder calls this: every staging folder is then its own or a dead process's. */
function removeStaging(snapshots: string): void {
  for (const entry of readdirSync(snapshots)) {
    if (entry.startsWith(STAGING_PREFIX)) rmSync(join(snapshots, entry), { recursive: true, force: true })
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function stagingDir(snapshots: string, id: string): string {
  const dir = join(snapshots, STAGING_PREFIX + id)
  mkdirSync(dir)
  return dir
}

/**
 * Moves a verified staging folder into place, its files read-only, and switches
 * `current` to it. Workers map the data file: changing it in place would crash them
 * (SIGBUS on a cut-short file) or, unchecked, serve what the build did not write.
 * LMDB's lock file stays writable: every reader writes to it.
 */
export function publish(snapshots: string, id: string): string {
  const dir = join(snapshots, id)
  const staging = join(snapshots, STAGING_PREFIX + id)
  for (const file of readdirSync(staging)) {
    if (file !== SNAPSHOT_LOCK_FILE) chmodSync(join(staging, file), 0o444)
  }
  renameSync(staging, dir)
  const link = join(snapshots, `.${CURRENT_LINK}-${id}`)
  symlinkSync(id, link)
  renameSync(link, join(snapshots, CURRENT_LINK))
  return dir
}

/** Published snapshots a build or a pull keeps unless told otherwise, the new one included. */
export const DEFAULT_KEEP = 3

/** Removes published snapshots beyond the newest `keep`, never the one `current` names. */
export function prune(snapshots: string, keep: number): string[] {
  let current: string | undefined
  try {
    current = readlinkSync(join(snapshots, CURRENT_LINK))
  } catch {
    current = undefined
  }
  const published = readdirSync(snapshots)
    .filter((e) => BUILD_ID_PATTERN.test(e))
    .sort()
    .reverse()
  const removed = published.slice(Math.max(keep, 1)).filter((id) => id !== current)
  for (const id of removed) rmSync(join(snapshots, id), { recursive: true, force: true })
  return removed
}
