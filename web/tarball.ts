import { gzipSync } from 'node:zlib'

/** A file of a tarball: its path inside it, its text and whether it is a program. */
export interface TarFile {
  readonly path: string
  readonly text: string
  readonly executable?: boolean
}

const BLOCK = 512

/**
 * A gzip-compressed POSIX ustar archive of `files`, as npm packs a package (every path
 * under `package/`): a 512-byte header a file, its bytes padded to a block, two empty
 * blocks at the end. Owner and time are fixed, so the same files make the same bytes.
 */
export function tarball(files: readonly TarFile[], mtime: Date): Buffer {
  const blocks: Buffer[] = []
  for (const file of files) {
    const body = Buffer.from(file.text, 'utf8')
    blocks.push(header(file, body.length, mtime), body, Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK))
  }
  blocks.push(Buffer.alloc(2 * BLOCK))
  return gzipSync(Buffer.concat(blocks), { level: 9 })
}

function header(file: TarFile, size: number, mtime: Date): Buffer {
  const name = Buffer.from(file.path, 'utf8')
  if (name.length > 100) throw new Error(`tarball: the path ${file.path} is longer than a ustar name`)
  const block = Buffer.alloc(BLOCK)
  const put = (offset: number, text: string) => block.write(text, offset, 'ascii')
  const octal = (offset: number, width: number, value: number) =>
    put(offset, `${value.toString(8).padStart(width - 1, '0')}\0`)
  name.copy(block, 0)
  octal(100, 8, file.executable === true ? 0o755 : 0o644)
  octal(108, 8, 0)
  octal(116, 8, 0)
  octal(124, 12, size)
  octal(136, 12, Math.floor(mtime.getTime() / 1000))
  put(148, ' '.repeat(8))
  put(156, '0')
  put(257, 'ustar\u000000')
  let sum = 0
  for (const byte of block) sum += byte
  put(148, `${sum.toString(8).padStart(6, '0')}\0 `)
  return block
}
