import { chmodSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The ledger, its counters, its backups and the outbox hold key hashes, balances, codes
 * and keys: only the service's own user may read them. Modes are set explicitly, since a
 * umask only takes permissions away and LMDB creates its files 0644 under the usual one.
 */

/** Creates `dir` (and its parents) if needed and makes it 0700. */
export function privateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  return dir
}

/** Makes every file in `dir` 0600 (run after an engine has created its files there). */
export function privateFiles(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isFile()) chmodSync(join(dir, entry.name), 0o600)
}
