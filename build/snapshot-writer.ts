import type { KeyObject } from 'node:crypto'
import { closeSync, fsyncSync, openSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import {
  ANSWERS_OPTIONS,
  COLUMNS_DB,
  MANIFEST_FILE,
  SIGNATURE_FILE,
  ALL_YEARS,
  KEY_OPERATIONS,
  META_DB,
  SNAPSHOT_FILE,
  answerKey,
  statKey,
  type Manifest,
  type NameIndex,
  type PublishedManifest,
} from '../format/schema.js'
import { lmdbExtent } from '../format/lmdb-file.js'
import { signatureOf } from '../format/manifest-signature.js'
import { fileDigests } from '../format/snapshot-files.js'
import { Snapshot } from '../query/snapshot.js'
import { BuildError } from './build-error.js'
import { DepreciationCurves } from './depreciation.js'
import { checkedAnswer, type RenderedKey } from './parallel-statistics.js'
import { messageOf } from '../format/message-of.js'

/**
 * Writes a snapshot into `dir` (a staging folder nobody serves yet), waits for it to
 * reach the disk, writes manifest.json with the digest of the complete file, and returns
 * its manifest. Puts are asynchronous: lmdb-js writes them on its own thread, so the
 * B-tree work overlaps the computing of the next keys. The folder is only published
 * after verifySnapshot, so how the writes are split into transactions does not matter.
 */
export async function writeSnapshot(
  dir: string,
  keys: AsyncIterable<RenderedKey>,
  totalKeys: number,
  names: NameIndex,
  manifestOf: (keysWritten: number) => Manifest,
  onProgress: (done: number, total: number) => void,
  /** Signs manifest.json (manifest.sig beside it) when given. */
  signingKey: KeyObject | undefined,
): Promise<Manifest> {
  // No sync per commit: nobody reads the staging folder, so the file is synced to disk
  // once, when it is complete (syncToDisk), before it can be published.
  const file = join(dir, SNAPSHOT_FILE)
  const root = open({ path: file, maxDbs: 4, noSync: true })
  let manifest: Manifest
  try {
    const meta = root.openDB({ name: META_DB })
    const answers = root.openDB(ANSWERS_OPTIONS)
    const columns = root.openDB({ name: COLUMNS_DB, encoding: 'binary' })
    let written = 0
    const curves = new DepreciationCurves()
    for await (const key of keys) {
      KEY_OPERATIONS.forEach(
        (operation, i) => void answers.put(answerKey(key.target, key.year, operation), key.answers[i]!),
      )
      if (key.columns !== undefined) void columns.put(statKey(key.target, key.year), key.columns)
      curves.add(key.target, key.year, key.medians)
      if (++written % 256 === 0) onProgress(written, totalKeys)
    }
    for (const [target, record] of curves.records())
      void answers.put(
        answerKey(target, ALL_YEARS, 'depreciation'),
        checkedAnswer('depreciation', record, target, ALL_YEARS),
      )
    manifest = manifestOf(written)
    void meta.put('names', names)
    const done = meta.put('manifest', manifest)
    onProgress(written, totalKeys)
    if (!(await done)) throw new BuildError('unsound_snapshot', 'the snapshot manifest was not written')
  } finally {
    await root.close()
  }
  padToExtent(file)
  syncToDisk(file)
  const published: PublishedManifest = { ...manifest, files: fileDigests(dir, [SNAPSHOT_FILE]) }
  const manifestFile = join(dir, MANIFEST_FILE)
  const manifestBytes = Buffer.from(`${JSON.stringify(published, null, 2)}\n`)
  writeFileSync(manifestFile, manifestBytes)
  syncToDisk(manifestFile)
  if (signingKey !== undefined) {
    const signatureFile = join(dir, SIGNATURE_FILE)
    writeFileSync(signatureFile, signatureOf(manifestBytes, signingKey))
    syncToDisk(signatureFile)
  }
  return manifest
}

/**
 * Re-opens a written snapshot (built here, or pulled) read-only, through the reader the
 * runtime uses, and checks that it is of build `buildId` and as the runtime checks a
 * snapshot before serving it: the files match the digests of manifest.json, the
 * manifest and the name index decode, every key has its answers, and `samples` answers
 * spread over the whole key range (Infinity: every one) are consistent JSON in every
 * variant. A build checked each answer as it wrote it, so a sample tells whether the
 * file reads back as written; a snapshot pulled from elsewhere is read whole.
 */
export async function verifySnapshot(dir: string, buildId: string, samples: number): Promise<void> {
  let snapshot: Snapshot
  try {
    snapshot = Snapshot.open(dir)
  } catch (error) {
    throw new BuildError('unsound_snapshot', `the written snapshot cannot be opened: ${messageOf(error)}`)
  }
  try {
    if (snapshot.manifest.build_id !== buildId)
      throw new BuildError('unsound_snapshot', 'the written snapshot does not carry its manifest')
    snapshot.check(samples)
  } catch (error) {
    throw error instanceof BuildError
      ? error
      : new BuildError('unsound_snapshot', `the written snapshot is unreadable: ${messageOf(error)}`)
  } finally {
    await snapshot.close()
  }
}

/**
 * LMDB may leave the last pages it counts unwritten when they were freed; the reader's
 * check before mapping a snapshot (lmdbFileProblem) wants the file to span them all,
 * so they are written as zeros (free pages, never read).
 */
function padToExtent(file: string): void {
  const look = lmdbExtent(file)
  if ('problem' in look)
    throw new BuildError('unsound_snapshot', `the written snapshot is not a sound LMDB file: ${look.problem}`)
  if (look.size < look.extent) truncateSync(file, look.extent)
}

function syncToDisk(file: string): void {
  const fd = openSync(file, 'r+')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
