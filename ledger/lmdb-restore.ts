import { copyFileSync, existsSync, linkSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { lacking, type Lacks } from './ledger-diff.js'
import { LedgerError } from './ledger-error.js'
import { LEDGER_FILE, LmdbLedger } from './lmdb-ledger.js'
import { privateDir } from './private-files.js'
import type { LedgerContents } from './types.js'

/** A backup made ready to take the place of the ledger in a folder, and what it would lack there. */
export interface RestorePlan {
  /** What the backup lacks of the current ledger; none when the folder has no ledger yet. */
  readonly lacks: Lacks | undefined
  /** Processes that have the current ledger open: a restore under them is refused. */
  readonly users: readonly number[]
  /**
   * Puts the backup in place, unless a process has the ledger open by then; the ledger it
   * replaces is kept beside it, under the name returned.
   */
  readonly apply: () => Promise<string | undefined>
  /** Forgets the copy made of the backup, changing nothing. */
  readonly discard: () => void
}

/**
 * Copies the backup `from` (a `ledger backup` folder, or its ledger.mdb) into the ledger
 * folder `dir` under a temporary name, opens the copy (which brings an older layout up
 * to date, as a server would) and compares it with the ledger there. Nothing of the
 * current ledger's records is changed until `apply` (opening it upgrades an older layout,
 * as every command that opens it does), which swaps the files by renaming, so a
 * restore cut short leaves the one or the other whole under the ledger's name.
 */
export async function planRestore(dir: string, from: string): Promise<RestorePlan> {
  const backup = existsSync(from) && statSync(from).isDirectory() ? join(from, LEDGER_FILE) : from
  if (!existsSync(backup)) throw new LedgerError('not_supported', `${backup}: no ledger backup there`)
  privateDir(dir)
  // A restore killed before it ended left its copy behind: it is no use to this one.
  for (const name of readdirSync(dir))
    if (name.startsWith(STAGING)) rmSync(join(dir, name), { recursive: true, force: true })
  const staging = mkdtempSync(join(dir, STAGING))
  const discard = () => rmSync(staging, { recursive: true, force: true })
  try {
    copyFileSync(backup, join(staging, LEDGER_FILE))
    const restored = await read(staging, backup)
    const file = join(dir, LEDGER_FILE)
    let lacks: Lacks | undefined
    let users: number[] = []
    if (existsSync(file)) {
      const current = LmdbLedger.open(dir)
      try {
        lacks = lacking(await current.contents(), restored)
        users = current.otherProcesses()
      } finally {
        await current.close()
      }
    }
    const apply = async () => {
      // Asked again at the last moment: a server started since the comparison must not lose its writes.
      const users = await usersOf(dir)
      if (users.length > 0) throw inUse(users)
      const kept = existsSync(file)
        ? `${LEDGER_FILE}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`
        : undefined
      // The ledger replaced is kept as a second name of its file, then the copy takes the
      // ledger's name in one rename: killed at any moment, the folder holds one whole ledger.
      if (kept !== undefined) linkSync(file, join(dir, kept))
      renameSync(join(staging, LEDGER_FILE), file)
      // The lock file describes the readers of the ledger replaced: a new one is made on the next open.
      rmSync(join(dir, `${LEDGER_FILE}-lock`), { force: true })
      discard()
      return kept
    }
    return { lacks, users, apply, discard }
  } catch (error) {
    discard()
    throw error
  }
}

const STAGING = '.restoring-'

/** The processes other than this one that have the ledger in `dir` open; none when there is no ledger yet. */
async function usersOf(dir: string): Promise<number[]> {
  if (!existsSync(join(dir, LEDGER_FILE))) return []
  const ledger = LmdbLedger.open(dir)
  try {
    return ledger.otherProcesses()
  } finally {
    await ledger.close()
  }
}

export function inUse(users: readonly number[]): LedgerError {
  return new LedgerError(
    'unavailable',
    `the ledger is open in process ${users.join(', ')}: stop the servers (and commands) that use it, then restore`,
  )
}

/**
 * The backup's contents. Only its accounts, keys and payments are compared (`lacking`
 * reads no entry of the backup), so what is returned outlives the ledger closed here.
 */
async function read(staging: string, backup: string): Promise<LedgerContents> {
  let ledger: LmdbLedger
  try {
    ledger = LmdbLedger.open(staging)
  } catch (error) {
    throw new LedgerError('not_supported', `${backup} is not a ledger backup (${String(error)})`, { cause: error })
  }
  try {
    return await ledger.contents()
  } finally {
    await ledger.close()
  }
}
