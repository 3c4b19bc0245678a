import { createHash, type KeyObject } from 'node:crypto'
import { closeSync, existsSync, fsyncSync, openSync, statfsSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { verifySignature } from '../format/manifest-signature.js'
import { BUILD_ID_PATTERN, CURRENT_LINK, MANIFEST_FILE, SIGNATURE_FILE, type FileDigest } from '../format/schema.js'
import { SnapshotError } from '../format/snapshot-error.js'
import { parseListedFiles, type ListedFiles } from '../format/snapshot-files.js'
import { BuildError } from './build-error.js'
import { describeUrl, httpGet, httpGetIfPresent } from './http-get.js'
import { DEFAULT_KEEP, prune, publish, stagingDir, withBuildLock } from './publish.js'
import { verifySnapshot } from './snapshot-writer.js'
import { messageOf } from '../format/message-of.js'

/**
 * Copies the current snapshot of another host's snapshots folder, served over HTTP by
 * any static file server, into a local snapshots folder and publishes it there as a
 * build does: downloaded into a staging folder, every file checked against the digests
 * of its manifest.json, opened and checked as the runtime will, then renamed into place
 * and made `current`. A pull that fails publishes nothing and leaves nothing behind.
 */

export interface PullOptions {
  /** The other host's snapshots folder as an http(s) address. */
  readonly from: string
  /** The local snapshots folder; the pulled snapshot becomes its `current`. */
  readonly snapshots: string
  /** Published snapshots to keep, the new one included. */
  readonly keep?: number
  /** Milliseconds a request may wait for its headers or its body's next bytes, and the manifest for all of it. */
  readonly timeout?: number
  /** Milliseconds the whole pull may take, DEFAULT_DEADLINE unless given. */
  readonly deadline?: number
  /** Bytes a second a file's download must keep to once MIN_RATE_AFTER_MS have passed, DEFAULT_MIN_RATE unless given; 0 for none. */
  readonly minRate?: number
  /**
   * The Ed25519 public key whose signature the snapshot's manifest must carry: one unsigned or signed otherwise is
   * refused before its files are downloaded. Without it, a signature the other host has is copied along unchecked.
   */
  readonly verifyKey?: KeyObject | undefined
  /** Bytes of the snapshot's files downloaded so far, of `total`. */
  readonly onProgress?: (done: number, total: number) => void
}

export interface PullReport {
  readonly build_id: string
  /** The local folder of that build. */
  readonly snapshot: string
  /** The other host's snapshots folder, without credentials. */
  readonly source: string
  /** `unchanged`: the local folder already had that build. */
  readonly result: 'published' | 'unchanged'
  /** Bytes downloaded, manifest.json aside. */
  readonly bytes: number
  readonly pruned: readonly string[]
  readonly seconds: number
}

/** A manifest.json is a few hundred bytes; anything past this is not one. */
export const MAX_MANIFEST_BYTES = 1 << 20
/** manifest.sig is one line of base64; anything past this is not one. */
const MAX_SIGNATURE_BYTES = 1024
const DEFAULT_TIMEOUT = 30_000
/**
 * A source that trickles bytes never stalls long enough for a timeout, and holds the
 * snapshots folder's lock (every other pull and build of it fails meanwhile): a pull gives
 * up past its deadline, and below its minimum rate.
 */
export const DEFAULT_DEADLINE = 30 * 60_000
/** 64 KiB/s: the sample's snapshot in about an hour and a half; a LAN moves it in seconds. */
export const DEFAULT_MIN_RATE = 64 * 1024
/** How long a download runs before its rate is judged: a connection's first seconds are slow. */
const MIN_RATE_AFTER_MS = 5_000

/**
 * Publishes the other host's current snapshot in `snapshots` unless a folder of that
 * build is already there. An existing folder is never replaced (a published snapshot is
 * never modified, and may be mapped by a server), and is not made `current` again
 * either: an operator who pointed `current` back at an older snapshot by hand is not
 * overruled by the next scheduled pull, only by a new build on the other host.
 */
export async function pullSnapshot(options: PullOptions): Promise<PullReport> {
  const started = performance.now()
  const origin = new URL(options.from)
  if (!origin.pathname.endsWith('/')) origin.pathname += '/'
  const timeout = options.timeout ?? DEFAULT_TIMEOUT
  const progress = options.onProgress ?? (() => {})
  const limits = new DownloadLimits(options.deadline ?? DEFAULT_DEADLINE, options.minRate ?? DEFAULT_MIN_RATE)
  try {
    return await pullWithin(options, origin, timeout, progress, limits, started)
  } finally {
    limits.end()
  }
}

async function pullWithin(
  options: PullOptions,
  origin: URL,
  timeout: number,
  progress: (done: number, total: number) => void,
  limits: DownloadLimits,
  started: number,
): Promise<PullReport> {
  // Read through `current` once; the files are fetched by build id, as `current` may
  // move on the other host during the download.
  const manifestUrl = new URL(`${CURRENT_LINK}/${MANIFEST_FILE}`, origin)
  const { raw, listed } = await fetchManifest(manifestUrl, timeout, limits.signal)
  const id = listed.build_id
  const dir = join(options.snapshots, id)
  const report = (result: PullReport['result'], bytes: number, pruned: readonly string[]): PullReport => ({
    build_id: id,
    snapshot: dir,
    source: describeUrl(origin),
    result,
    bytes,
    pruned,
    seconds: Math.round(performance.now() - started) / 1000,
  })

  return withBuildLock(options.snapshots, async () => {
    if (existsSync(dir)) return report('unchanged', 0, [])
    const files = Object.entries(listed.files)
    const total = files.reduce((sum, [, digest]) => sum + digest.bytes, 0)
    ensureRoom(options.snapshots, total + raw.length)
    const signatureUrl = new URL(`${id}/${SIGNATURE_FILE}`, origin)
    const signature = await fetchWhole(signatureUrl, MAX_SIGNATURE_BYTES, timeout, limits.signal, true)
    if (options.verifyKey !== undefined) verified(raw, signature, options.verifyKey, describeUrl(origin))
    const staging = stagingDir(options.snapshots, id)
    let done = 0
    progress(done, total)
    for (const [name, digest] of files) {
      await downloadFile(
        new URL(`${id}/${encodeURIComponent(name)}`, origin),
        join(staging, name),
        digest,
        timeout,
        limits,
        (bytes) => {
          done += bytes
          progress(done, total)
        },
      )
    }
    await writeSynced(join(staging, MANIFEST_FILE), async (write) => write(raw))
    if (signature !== undefined) await writeSynced(join(staging, SIGNATURE_FILE), async (write) => write(signature))
    // Built elsewhere, by code that may not check what it writes: every answer is read before it can be served.
    await verifySnapshot(staging, id, Infinity)
    publish(options.snapshots, id)
    return report('published', total, prune(options.snapshots, options.keep ?? DEFAULT_KEEP))
  })
}

/**
 * The deadline of a pull and the minimum rate of its downloads: either one passed aborts
 * `signal` with a `download_too_slow` BuildError as its reason, which the download's
 * failure then is.
 */
class DownloadLimits {
  private readonly controller = new AbortController()
  private readonly deadline: NodeJS.Timeout

  constructor(
    deadlineMs: number,
    private readonly minRate: number,
  ) {
    this.deadline = setTimeout(
      () => this.give(`the pull ran past its deadline of ${Math.round(deadlineMs / 1000)} s`),
      deadlineMs,
    )
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** Watches one download's bytes (`count` each piece) against the minimum rate until `stop`. */
  watch(where: string): { count(bytes: number): void; stop(): void } {
    const started = Date.now()
    let bytes = 0
    const timer = setInterval(() => {
      const seconds = (Date.now() - started) / 1000
      if (this.minRate > 0 && seconds * 1000 >= MIN_RATE_AFTER_MS && bytes / seconds < this.minRate)
        this.give(`${where} came at ${Math.round(bytes / seconds)} bytes/s, below the minimum rate of ${this.minRate}`)
    }, 1000)
    return { count: (n) => void (bytes += n), stop: () => clearInterval(timer) }
  }

  end(): void {
    clearTimeout(this.deadline)
  }

  private give(why: string): void {
    this.controller.abort(new BuildError('download_too_slow', `${why}; nothing was published`))
  }
}

/** The limit an aborted download passed, if that is why it failed. */
function passedLimit(signal: AbortSignal): BuildError | undefined {
  return signal.aborted && signal.reason instanceof BuildError ? signal.reason : undefined
}

/** The other host's current manifest.json, as it was sent and as read. */
async function fetchManifest(
  url: URL,
  timeout: number,
  deadline: AbortSignal,
): Promise<{ readonly raw: Buffer; readonly listed: ListedFiles }> {
  const where = describeUrl(url)
  const raw = (await fetchWhole(url, MAX_MANIFEST_BYTES, timeout, deadline, false))!
  let listed: ListedFiles
  try {
    listed = parseListedFiles(raw.toString('utf8'), where)
  } catch (error) {
    throw new BuildError('invalid_manifest', messageOf(error))
  }
  // The id names a local folder and a path on the other host.
  if (!BUILD_ID_PATTERN.test(listed.build_id))
    throw new BuildError(
      'invalid_manifest',
      `${where} names build ${JSON.stringify(listed.build_id)}, which is not a build id`,
    )
  return { raw, listed }
}

/** Throws, as a BuildError of the same code, unless `signature` is `key`'s of the manifest `raw`. */
function verified(raw: Buffer, signature: Buffer | undefined, key: KeyObject, where: string): void {
  try {
    verifySignature(raw, signature?.toString('utf8'), key, where)
  } catch (error) {
    throw error instanceof SnapshotError && (error.code === 'unsigned' || error.code === 'bad_signature')
      ? new BuildError(error.code, error.message)
      : error
  }
}

/**
 * A small file of the other host, whole, as it was sent: `limit` bytes at most, all of it within `timeout`. Undefined
 * when the host has no such file and `absentOk`; else that fails as any other answer but success.
 */
async function fetchWhole(
  url: URL,
  limit: number,
  timeout: number,
  deadline: AbortSignal,
  absentOk: boolean,
): Promise<Buffer | undefined> {
  const signal = AbortSignal.any([AbortSignal.timeout(timeout), deadline])
  const options = { headersTimeout: timeout, bodyTimeout: timeout, signal }
  const download = absentOk ? await httpGetIfPresent(url, options) : await httpGet(url, options)
  if (download === undefined) return undefined
  const parts: Buffer[] = []
  await receive(download.body, describeUrl(url), limit, signal, (chunk) => parts.push(chunk))
  return Buffer.concat(parts)
}

/** Downloads one file of the snapshot to `path`, failing unless it has the size and SHA-256 the manifest lists. */
async function downloadFile(
  url: URL,
  path: string,
  digest: FileDigest,
  timeout: number,
  limits: DownloadLimits,
  onBytes: (bytes: number) => void,
): Promise<void> {
  const where = describeUrl(url)
  const hash = createHash('sha256')
  let bytes = 0
  const rate = limits.watch(where)
  try {
    await writeSynced(path, async (write) => {
      const signal = limits.signal
      const { body } = await httpGet(url, { headersTimeout: timeout, bodyTimeout: timeout, signal })
      await receive(body, where, digest.bytes, signal, (chunk) => {
        write(chunk)
        hash.update(chunk)
        bytes += chunk.length
        rate.count(chunk.length)
        onBytes(chunk.length)
      })
    })
  } finally {
    rate.stop()
  }
  if (bytes !== digest.bytes)
    throw new BuildError('download_incomplete', `${where} ended after ${bytes} of its ${digest.bytes} bytes`)
  if (hash.digest('hex') !== digest.sha256)
    throw new BuildError('digest_mismatch', `${where} does not match the SHA-256 ${MANIFEST_FILE} lists for it`)
}

/**
 * Reads a response body to its end, handing each piece to `take` as it arrives; fails
 * clearly once the body passes `limit` bytes or breaks off, or when `take` throws.
 *
 * `take` works synchronously on a body in flowing mode, so the body never holds back
 * undici's HTTP parser: undici 7 ends the process with an assertion, which cannot be
 * caught, when a server closes the connection (as an HTTP/1.0 server does after every
 * response) while the parser is held back. The socket is not read while `take` runs, so
 * TCP slows the server down instead, and one piece at a time is held in memory.
 */
async function receive(
  body: Readable,
  where: string,
  limit: number,
  signal: AbortSignal,
  take: (chunk: Buffer) => void,
): Promise<void> {
  let bytes = 0
  let failure: unknown
  body.on('data', (chunk: Buffer) => {
    if (failure !== undefined) return
    try {
      bytes += chunk.length
      if (bytes > limit)
        throw new BuildError('download_too_long', `${where} is longer than the ${limit} bytes expected`)
      take(chunk)
    } catch (error) {
      failure = error
      body.destroy()
    }
  })
  try {
    await finished(body)
  } catch (error) {
    failure ??=
      passedLimit(signal) ?? new BuildError('download_failed', `downloading ${where} failed: ${messageOf(error)}`)
  }
  if (failure !== undefined) throw failure
}

/** Fails at once when the download cannot fit, rather than once the disk is full. */
function ensureRoom(snapshots: string, bytes: number): void {
  const { bavail, bsize } = statfsSync(snapshots)
  if (bavail * bsize < bytes)
    throw new BuildError('no_room', `${snapshots} has ${bavail * bsize} bytes free; the snapshot needs ${bytes}`)
}

/**
 * Creates the file `path`, has `fill` write it, and waits until it is on the disk: the
 * folder is renamed into place next, and a rename may reach the disk before data that
 * was not synced.
 */
async function writeSynced(path: string, fill: (write: (chunk: Buffer) => void) => Promise<void>): Promise<void> {
  const fd = writing(path, () => openSync(path, 'wx'))
  try {
    await fill((chunk) =>
      writing(path, () => {
        for (let at = 0; at < chunk.length;) at += writeSync(fd, chunk, at)
      }),
    )
    writing(path, () => fsyncSync(fd))
  } finally {
    closeSync(fd)
  }
}

/** Runs a write to `path`, its failure (such as a full disk) told in one line. */
function writing<T>(path: string, write: () => T): T {
  try {
    return write()
  } catch (error) {
    throw new BuildError('write_failed', `cannot write ${path}: ${messageOf(error)}`)
  }
}
