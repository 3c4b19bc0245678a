import { closeSync, fsyncSync, openSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import {
  ANSWERS_OPTIONS,
  COLUMNS_DB,
  MANIFEST_FILE,
  META_DB,
  OPERATIONS,
  SCHEMA_VERSION,
  SNAPSHOT_FILE,
  answerKey,
  statKey,
  type AnswerKey,
  type Manifest,
  type NameIndex,
  type Operation,
} from '../format/schema.js'
import { StoredAnswer } from '../format/rendered.js'
import { BuildError } from './build-error.js'
import type { RenderedKey } from './parallel-statistics.js'

/**
 * Writes a snapshot into `dir` (a staging folder nobody serves yet), waits for it to
 * reach the disk, and returns its manifest. Puts are asynchronous: lmdb-js writes them
 * on its own thread, so the B-tree work overlaps the computing of the next keys. The
 * folder is only published after verifySnapshot, so how the writes are split into
 * transactions does not matter.
 */
export async function writeSnapshot(
  dir: string,
  keys: AsyncIterable<RenderedKey>,
  totalKeys: number,
  names: NameIndex,
  manifestOf: (keysWritten: number) => Manifest,
  onProgress: (done: number, total: number) => void,
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
    for await (const key of keys) {
      OPERATIONS.forEach((operation, i) => void answers.put(answerKey(key.target, key.year, operation), key.answers[i]!))
      if (key.columns !== undefined) void columns.put(statKey(key.target, key.year), key.columns)
      if (++written % 256 === 0) onProgress(written, totalKeys)
    }
    manifest = manifestOf(written)
    void meta.put('names', names)
    const done = meta.put('manifest', manifest)
    onProgress(written, totalKeys)
    if (!(await done)) throw new BuildError('the snapshot manifest was not written')
  } finally {
    await root.close()
  }
  syncToDisk(file)
  writeFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`)
  return manifest
}

/**
 * Re-opens a written snapshot read-only, as the runtime will, and checks it: the
 * manifest and the name index decode, every key has its five answers, and the answers
 * spread over the whole key range hold JSON in every variant.
 */
export async function verifySnapshot(dir: string, expected: Manifest): Promise<void> {
  const root = open({ path: join(dir, SNAPSHOT_FILE), maxDbs: 4, readOnly: true })
  try {
    const meta = root.openDB({ name: META_DB })
    const manifest = meta.get('manifest') as Manifest | undefined
    if (manifest?.build_id !== expected.build_id || manifest.schema_version !== SCHEMA_VERSION) {
      throw new BuildError('the written snapshot does not carry its manifest')
    }
    if (typeof meta.get('names') !== 'object') throw new BuildError('the written snapshot has no name index')
    const answers = root.openDB(ANSWERS_OPTIONS)
    const count = answers.getKeysCount()
    if (count !== expected.counts.keys_written * OPERATIONS.length) {
      throw new BuildError(`the written snapshot holds ${count} answers, expected ${expected.counts.keys_written * OPERATIONS.length}`)
    }
    const step = Math.max(1, Math.floor(count / 1000))
    const stored = new StoredAnswer()
    let at = 0
    for (const key of answers.getKeys()) {
      if (at++ % step !== 0) continue
      if (!readable(stored, answers.getBinary(key), (key as AnswerKey)[4])) throw new BuildError('the written snapshot holds an unreadable answer')
    }
  } finally {
    await root.close()
  }
}

/** Whether a stored answer's every variant reads as the JSON its operation stores. */
function readable(stored: StoredAnswer, bytes: Buffer | undefined, operation: Operation): boolean {
  if (bytes === undefined || !stored.reset(bytes) || stored.count === 0) return false
  try {
    for (let i = 0; i < stored.count; i++) {
      const text = stored.text(i)
      JSON.parse(operation === 'price-history' ? `[${text}]` : `{${text}}`)
    }
    return true
  } catch {
    return false
  }
}

function syncToDisk(file: string): void {
  const fd = openSync(file, 'r+')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
