import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

/**
 * A look at an LMDB data file before it is mapped. LMDB trusts the file it maps: an
 * empty, foreign or cut-short file crashes the process (SIGSEGV, SIGBUS) instead of
 * failing to open, so a snapshot is looked at first. Offsets are those of lmdb-js's
 * LMDB (data version 2, 64-bit): after a 24-byte page header, the meta page holds
 * mm_magic, mm_version, mm_address, mm_mapsize, two 48-byte MDB_db records (the first
 * one's md_pad is the page size), mm_last_pg and mm_txnid (liblmdb/mdb.c, MDB_meta).
 */

const MAGIC = 0xbeefc0de
const DATA_VERSION = 2
const META = { magic: 24, version: 28, pageSize: 48, lastPage: 144, txnid: 152, end: 160 } as const

/** The bytes a valid file spans (its last used page included), or a sentence saying what is wrong with it. */
export function lmdbExtent(
  path: string,
): { readonly extent: number; readonly size: number } | { readonly problem: string } {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const first = Buffer.alloc(META.end)
    if (readSync(fd, first, 0, META.end, 0) < META.end) return { problem: `${size} bytes: empty or cut short` }
    if (first.readUInt32LE(META.magic) !== MAGIC) return { problem: 'not an LMDB file' }
    if ((first.readUInt32LE(META.version) & 0xffff) !== DATA_VERSION)
      return { problem: `LMDB data version ${first.readUInt32LE(META.version) & 0xffff}, not ${DATA_VERSION}` }
    const pageSize = first.readUInt32LE(META.pageSize)
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0)
      return { problem: `page size ${pageSize}: not an LMDB file` }
    const second = Buffer.alloc(META.end)
    if (readSync(fd, second, 0, META.end, pageSize) < META.end || second.readUInt32LE(META.magic) !== MAGIC)
      return { problem: 'its second meta page is missing' }
    // The meta page of the newest transaction describes the file.
    const meta = second.readBigUInt64LE(META.txnid) > first.readBigUInt64LE(META.txnid) ? second : first
    const extent = (Number(meta.readBigUInt64LE(META.lastPage)) + 1) * pageSize
    return { extent, size }
  } finally {
    closeSync(fd)
  }
}

/** What is wrong with an LMDB data file, or undefined when it can be mapped safely. */
export function lmdbFileProblem(path: string): string | undefined {
  const look = lmdbExtent(path)
  if ('problem' in look) return look.problem
  return look.size < look.extent ? `cut short: ${look.size} bytes of ${look.extent}` : undefined
}
