import type { KeyObject } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, watch, type FSWatcher } from 'node:fs'
import { join } from 'node:path'
import { BUILD_ID_PATTERN, CURRENT_LINK, SNAPSHOT_FILE } from '../format/schema.js'
import { notReady } from '../query/api-error.js'
import { Snapshot } from '../query/snapshot.js'
import { SnapshotError } from '../format/snapshot-error.js'
import { logEvent } from './events.js'
import { messageOf } from '../format/message-of.js'

/** How often `current` is compared even without a file-system event (a network file system may send none). */
const POLL_MS = 60_000

/** A snapshot being served and the requests using it. */
export interface Generation {
  readonly snapshot: Snapshot
  users: number
  retired: boolean
}

export type SwapResult = 'swapped' | 'unchanged' | 'refused'

/**
 * The snapshot the runtime answers from, replaced while serving when a build publishes
 * a new one (`current` changes) or on reload(): the new one is opened and checked
 * first, requests that begin after the switch read only it, and the old one is closed
 * once the requests that were using it have finished. So no request fails or mixes two
 * snapshots. A new snapshot that fails its check is refused (logged) and the old one
 * keeps serving.
 */
export class ServedSnapshot {
  private current: Generation | undefined
  /** The folder last refused, not retried until `current` names another or reload() is asked for. */
  private refused: string | undefined
  private readonly watcher: FSWatcher | undefined
  /** `path` is one snapshot folder, not a snapshots folder with builds and `current`. */
  private readonly single: boolean
  private readonly poller: NodeJS.Timeout
  /** The reload running, and whether another was asked for meanwhile (and with retry). */
  private reloading: Promise<SwapResult> | undefined
  private again: { readonly retry: boolean } | undefined
  private closed = false

  constructor(
    private readonly path: string,
    /** Told of every swap and refusal, with the snapshot served afterwards. */
    private readonly onChange: (result: 'swapped' | 'refused', serving: Snapshot | undefined) => void,
    /** The key a snapshot must be signed with to be served, if any. */
    private readonly verifyKey?: KeyObject,
  ) {
    this.single = existsSync(join(path, SNAPSHOT_FILE))
    // A single snapshot folder never changes; a snapshots folder is watched for `current`.
    // Watched first: a folder that cannot be created or read fails here, before anything is opened.
    if (!this.single) {
      mkdirSync(path, { recursive: true })
      this.watcher = watch(path, (_event, name) => {
        if (name === CURRENT_LINK) void this.reload(false)
      })
      this.watcher.on('error', (error) =>
        logEvent('warn', 'the snapshots folder cannot be watched; it is polled', { reason: error.message }),
      )
    }
    const dir = Snapshot.locate(path)
    const first = dir === undefined ? undefined : this.start(dir)
    if (first === undefined)
      logEvent('warn', 'no snapshot is open: not ready until a build publishes one', { snapshots: path })
    else this.current = { snapshot: first, users: 0, retired: false }
    this.poller = setInterval(() => void this.reload(false), POLL_MS).unref()
  }

  /**
   * The snapshot to start with: `dir`, or when it fails its check (a restart, or a
   * replaced worker, after a broken snapshot was published) the newest other published
   * one that passes, so the service answers with the last good data rather than none.
   */
  private start(dir: string): Snapshot | undefined {
    const published = this.single
      ? []
      : readdirSync(this.path)
          .filter((name) => BUILD_ID_PATTERN.test(name) && join(this.path, name) !== dir)
          .sort()
          .reverse()
          .map((name) => join(this.path, name))
    for (const candidate of [dir, ...published]) {
      try {
        const snapshot = openChecked(candidate, this.verifyKey)
        if (candidate !== dir)
          logEvent('warn', 'serving an older snapshot: the current one was refused', { snapshot: candidate })
        return snapshot
      } catch (error) {
        if (candidate === dir) this.refused = dir
        logEvent('error', 'snapshot refused', { snapshot: candidate, code: codeOf(error), reason: messageOf(error) })
      }
    }
    return undefined
  }

  /** The snapshot served now, for a request that uses it synchronously. */
  get snapshot(): Snapshot | undefined {
    return this.current?.snapshot
  }

  /**
   * The snapshot served now, held until release(): a request that reads it across an
   * await keeps it open through a swap. Throws NOT_READY when there is none.
   */
  acquire(): Generation {
    const generation = this.current
    if (generation === undefined) throw notReady()
    generation.users++
    return generation
  }

  release(generation: Generation): void {
    if (--generation.users === 0 && generation.retired) void generation.snapshot.close()
  }

  /**
   * Serves what `current` names now if it is another snapshot and passes its check, read
   * in slices between requests (the snapshot served meanwhile keeps answering). `retry`
   * checks again a snapshot refused before (an operator's SIGHUP). A reload asked for
   * while one runs is run once that one ends.
   */
  reload(retry: boolean): Promise<SwapResult> {
    if (this.reloading !== undefined) {
      this.again = { retry: retry || (this.again?.retry ?? false) }
      return this.reloading
    }
    const run = this.swap(retry).finally(() => {
      this.reloading = undefined
      const again = this.again
      this.again = undefined
      if (again !== undefined && !this.closed) void this.reload(again.retry)
    })
    this.reloading = run
    return run
  }

  private async swap(retry: boolean): Promise<SwapResult> {
    const dir = Snapshot.locate(this.path)
    if (dir === undefined || dir === this.current?.snapshot.dir) return 'unchanged'
    if (dir === this.refused && !retry) return 'unchanged'
    let next: Snapshot
    try {
      next = await openCheckedInSlices(dir, this.verifyKey)
    } catch (error) {
      this.refused = dir
      logEvent('error', 'new snapshot refused; the old one keeps serving', {
        snapshot: dir,
        serving: this.current?.snapshot.dir ?? null,
        code: codeOf(error),
        reason: messageOf(error),
      })
      this.onChange('refused', this.current?.snapshot)
      return 'refused'
    }
    if (this.closed) {
      void next.close()
      return 'unchanged'
    }
    const old = this.current
    this.current = { snapshot: next, users: 0, retired: false }
    this.refused = undefined
    if (old !== undefined) {
      old.retired = true
      if (old.users === 0) void old.snapshot.close()
    }
    logEvent('info', 'snapshot swapped', {
      snapshot: next.dir,
      build_id: next.manifest.build_id,
      as_of: next.manifest.as_of,
      previous: old?.snapshot.dir ?? null,
    })
    this.onChange('swapped', next)
    return 'swapped'
  }

  /** Stops watching and closes the snapshot (the runtime has finished its requests). */
  async close(): Promise<void> {
    this.closed = true
    this.watcher?.close()
    clearInterval(this.poller)
    await this.current?.snapshot.close()
  }
}

/**
 * A snapshot opened and checked as it will be served, every answer read (about 1.6 s for the 1.4-million-listing
 * sample): whoever could change the files could also have recomputed their digests. Closed again if the check fails.
 * At start, before anything is served.
 */
function openChecked(dir: string, verifyKey: KeyObject | undefined): Snapshot {
  const snapshot = Snapshot.open(dir, { verifyKey })
  try {
    snapshot.check(Infinity)
    return snapshot
  } catch (error) {
    void snapshot.close()
    throw error
  }
}

/** As openChecked, while a snapshot is served: the answers read in slices between requests. */
async function openCheckedInSlices(dir: string, verifyKey: KeyObject | undefined): Promise<Snapshot> {
  const snapshot = Snapshot.open(dir, { verifyKey })
  try {
    await snapshot.checkInSlices(Infinity)
    return snapshot
  } catch (error) {
    void snapshot.close()
    throw error
  }
}

/** A refusal's code, for an operator who filters the log by it. */
function codeOf(error: unknown): string | null {
  return error instanceof SnapshotError ? error.code : null
}
