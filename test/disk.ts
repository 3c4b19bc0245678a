import { execFileSync } from 'node:child_process'
import { closeSync, mkdirSync, openSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { freshDir } from './support.js'

/**
 * A small file system of its own (tmpfs, `bytes` large) mounted in a fresh folder of the
 * test and unmounted after it: a disk that really fills up. Mounting needs root, which
 * the test machines and CI run as; without it the test fails rather than skips.
 */
export function smallDisk(
  t: Test,
  bytes: number,
): { readonly dir: string; readonly fill: (leave?: number) => void; readonly free: () => void } {
  const dir = freshDir(t)
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', dir])
  t.teardown(() => {
    try {
      execFileSync('umount', ['-l', dir])
    } catch {
      // already unmounted
    }
  })
  const filler = join(dir, '.filler')
  return {
    dir,
    /** Writes a file until the disk has no byte left, then frees `leave` bytes of it. */
    fill(leave = 0) {
      mkdirSync(dir, { recursive: true })
      const fd = openSync(filler, 'a')
      const block = Buffer.alloc(64 * 1024, 1)
      try {
        for (;;) writeSync(fd, block)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      }
      try {
        for (;;) writeSync(fd, block, 0, 512)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      } finally {
        closeSync(fd)
      }
      if (leave > 0) truncateSync(filler, Math.max(0, statSync(filler).size - leave))
    },
    /** Space returns. */
    free() {
      rmSync(filler, { force: true })
    },
  }
}
