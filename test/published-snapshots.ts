import type { ChildProcess } from 'node:child_process'
import { lstatSync, readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { Snapshot } from '../query/snapshot.js'
import { reference, rows, toCsv, vehicle } from './support.js'

/** What the tests of publishing look at in a snapshots folder, and the small export they build. */

export const BUILD_ID = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/

const PRICES = Array.from({ length: 12 }, (_, i) => 40_000 + i * 1_250)
export const SMALL = toCsv(rows(PRICES.length, (i) => ({ price: PRICES[i]! })))
const GOLF = vehicle('Volkswagen', 'Golf', 2017)

export function published(snapshots: string): string[] {
  return readdirSync(snapshots)
    .filter((e) => BUILD_ID.test(e))
    .sort()
}

export function staging(snapshots: string): string[] {
  return readdirSync(snapshots).filter((e) => e.startsWith('.building-'))
}

/** `current` is a symlink naming `id`, and the snapshot it leads to answers with the figures of SMALL. */
export async function assertCurrent(t: Test, snapshots: string, id: string, what: string) {
  const link = join(snapshots, 'current')
  t.ok(lstatSync(link).isSymbolicLink(), `${what}: current is a symlink`)
  t.equal(readlinkSync(link), id, `${what}: current names ${id}`)
  const snapshot = Snapshot.open(snapshots)
  try {
    t.equal(snapshot.manifest.build_id, id, `${what}: the manifest behind current is ${id}`)
    const answer = snapshot.valuation(GOLF)
    t.equal(answer.sample_size, PRICES.length, `${what}: it answers`)
    t.strictSame(answer.valuation, reference.quartiles(PRICES), `${what}: with the right figures`)
  } finally {
    await snapshot.close()
  }
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

export function exited(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode })
    else child.once('exit', (code, signal) => resolve({ code, signal }))
  })
}
