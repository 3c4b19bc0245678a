import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import {
  ANSWERS_DB,
  COLUMNS_DB,
  MANIFEST_FILE,
  META_DB,
  OPERATIONS,
  SCHEMA_VERSION,
  SNAPSHOT_FILE,
  answerKey,
  statKey,
  type Manifest,
  type NameIndex,
} from '../format/schema.js'
import { BuildError } from './build-error.js'
import type { KeyStatistics } from './statistics.js'

/**
 * Writes a snapshot into `dir` (a staging folder nobody serves yet) in one LMDB write
 * transaction, waits for it to reach the disk, and returns the counts written.
 */
export async function writeSnapshot(
  dir: string,
  keys: Iterable<KeyStatistics>,
  totalKeys: number,
  names: NameIndex,
  manifestOf: (keysWritten: number) => Manifest,
  onProgress: (done: number, total: number) => void,
): Promise<Manifest> {
  const root = open({ path: join(dir, SNAPSHOT_FILE), maxDbs: 4 })
  try {
    const meta = root.openDB({ name: META_DB })
    const answers = root.openDB({ name: ANSWERS_DB })
    const columns = root.openDB({ name: COLUMNS_DB, encoding: 'binary' })
    let written = 0
    let manifest: Manifest | undefined
    root.transactionSync(() => {
      for (const key of keys) {
        for (const operation of OPERATIONS) answers.putSync(answerKey(key.target, key.year, operation), key.records[operation])
        if (key.columns !== undefined) columns.putSync(statKey(key.target, key.year), key.columns)
        if (++written % 256 === 0) onProgress(written, totalKeys)
      }
      manifest = manifestOf(written)
      meta.putSync('names', names)
      meta.putSync('manifest', manifest)
    })
    onProgress(written, totalKeys)
    await root.flushed
    writeFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`)
    return manifest!
  } finally {
    await root.close()
  }
}

/**
 * Re-opens a written snapshot read-only, as the runtime will, and checks it whole:
 * the manifest, and that every answer and column record decodes and is there.
 */
export async function verifySnapshot(dir: string, expected: Manifest): Promise<void> {
  const root = open({ path: join(dir, SNAPSHOT_FILE), maxDbs: 4, readOnly: true })
  try {
    const manifest = root.openDB({ name: META_DB }).get('manifest') as Manifest | undefined
    if (manifest?.build_id !== expected.build_id || manifest.schema_version !== SCHEMA_VERSION) {
      throw new BuildError('the written snapshot does not carry its manifest')
    }
    let answers = 0
    for (const { value } of root.openDB({ name: ANSWERS_DB }).getRange()) {
      if (typeof value !== 'object' || value === null) throw new BuildError('the written snapshot holds an unreadable record')
      answers++
    }
    if (answers !== expected.counts.keys_written * OPERATIONS.length) {
      throw new BuildError(`the written snapshot holds ${answers} answers, expected ${expected.counts.keys_written * OPERATIONS.length}`)
    }
  } finally {
    await root.close()
  }
}
