import { createHash } from 'node:crypto'
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { isCount, isObject } from './json-shape.js'
import type { KeyObject } from 'node:crypto'
import { verifySignature } from './manifest-signature.js'
import {
  MANIFEST_FILE,
  SIGNATURE_FILE,
  SNAPSHOT_FILE,
  SNAPSHOT_LOCK_FILE,
  type FileDigest,
  type PublishedManifest,
} from './schema.js'
import { SnapshotError } from './snapshot-error.js'
import { messageOf } from './message-of.js'

/**
 * The digests of a snapshot folder's files: taken by the build once the files are
 * complete, kept in manifest.json, and verified before a reader maps anything. A copy
 * changed after its build (a flipped byte, a file cut short or rewritten) is refused
 * rather than served, or mapped and crashed on.
 */

/** Read in pieces: a snapshot is large, and every worker verifies it while serving. */
const CHUNK = 1 << 20

/** The size and SHA-256 of a file. */
export function fileDigest(path: string): FileDigest {
  const hash = createHash('sha256')
  const chunk = Buffer.allocUnsafe(CHUNK)
  const fd = openSync(path, 'r')
  let bytes = 0
  try {
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      hash.update(chunk.subarray(0, read))
      bytes += read
    }
  } finally {
    closeSync(fd)
  }
  return { bytes, sha256: hash.digest('hex') }
}

/** The digests manifest.json lists: those of the named files of `dir`. */
export function fileDigests(dir: string, names: readonly string[]): Record<string, FileDigest> {
  return Object.fromEntries(names.map((name) => [name, fileDigest(join(dir, name))]))
}

/**
 * Checks the files of a snapshot folder against its manifest.json: with `verifyKey`, the
 * manifest is signed by that key (manifest.sig); every file but the manifest, its
 * signature and LMDB's lock file is listed, and every listed file is there with its size
 * and SHA-256 (all sizes first: they cost nothing). Returns the build id manifest.json
 * names; throws what is wrong, naming the file.
 */
export function verifyFiles(dir: string, verifyKey?: KeyObject): string {
  const listed = readManifest(dir, verifyKey)
  for (const name of readdirSync(dir)) {
    if (
      name !== MANIFEST_FILE &&
      name !== SIGNATURE_FILE &&
      name !== SNAPSHOT_LOCK_FILE &&
      !Object.hasOwn(listed.files, name)
    ) {
      throw new SnapshotError('unlisted_file', `${join(dir, name)} is not listed in ${MANIFEST_FILE}`)
    }
  }
  const files = Object.entries(listed.files).map(([name, digest]) => ({ path: join(dir, name), digest }))
  for (const { path, digest } of files) {
    const stat = statSync(path, { throwIfNoEntry: false })
    if (stat === undefined) throw new SnapshotError('missing_file', `${path} is missing`)
    if (!stat.isFile()) throw new SnapshotError('not_a_file', `${path} is not a file`)
    if (stat.size !== digest.bytes)
      throw new SnapshotError('size_mismatch', `${path} is ${stat.size} bytes; ${MANIFEST_FILE} says ${digest.bytes}`)
  }
  for (const { path, digest } of files) {
    if (fileDigest(path).sha256 !== digest.sha256)
      throw new SnapshotError(
        'digest_mismatch',
        `${path} does not match its SHA-256 in ${MANIFEST_FILE}: it was changed after the build`,
      )
  }
  return listed.build_id
}

/** What manifest.json says of a snapshot folder's files: the build they belong to and their digests. */
export type ListedFiles = Pick<PublishedManifest, 'build_id' | 'files'>

/**
 * The part of manifest.json the files are verified with, its shape checked (the file comes from outside), and its
 * signature by `verifyKey` when one is given.
 */
function readManifest(dir: string, verifyKey: KeyObject | undefined): ListedFiles {
  const path = join(dir, MANIFEST_FILE)
  if (!existsSync(path)) throw new SnapshotError('missing_file', `${path} is missing: a snapshot is published with it`)
  const bytes = readFileSync(path)
  if (verifyKey !== undefined) {
    const signature = join(dir, SIGNATURE_FILE)
    verifySignature(bytes, existsSync(signature) ? readFileSync(signature, 'utf8') : undefined, verifyKey, dir)
  }
  return parseListedFiles(bytes.toString('utf8'), path)
}

/**
 * The build id and file digests of the text of a manifest.json, found at `where` (a
 * path, or the address it was downloaded from), its shape checked. Throws what is wrong,
 * naming `where`.
 */
export function parseListedFiles(text: string, where: string): ListedFiles {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new SnapshotError('invalid_manifest', `${where} is not JSON: ${messageOf(error)}`)
  }
  if (!isObject(parsed) || typeof parsed.build_id !== 'string')
    throw new SnapshotError('invalid_manifest', `${where} is not a snapshot manifest`)
  if (parsed.files === undefined) {
    throw new SnapshotError(
      'no_digests',
      `${where} lists no digests of the snapshot's files: it was built by an older version; rebuild it (carmarket build)`,
    )
  }
  if (!isFileList(parsed.files))
    throw new SnapshotError(
      'invalid_manifest',
      `${where}: "files" must map the snapshot's own file, ${SNAPSHOT_FILE}, to its bytes and sha256, and list no other`,
    )
  return { build_id: parsed.build_id, files: parsed.files }
}

/**
 * The snapshot's own file and nothing else, with a size and a hex SHA-256: a manifest that lists more would have a pull
 * download, and a folder hold, files no build writes.
 */
function isFileList(value: unknown): value is Record<string, FileDigest> {
  return (
    isObject(value) &&
    Object.entries(value).every(
      ([name, digest]) =>
        name === SNAPSHOT_FILE &&
        isObject(digest) &&
        isCount(digest.bytes) &&
        typeof digest.sha256 === 'string' &&
        /^[0-9a-f]{64}$/.test(digest.sha256),
    )
  )
}
