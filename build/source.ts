import { createReadStream, statSync } from 'node:fs'
import { Readable, Transform, pipeline } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { BuildError } from './build-error.js'
import { describeUrl, httpGet } from './http-get.js'
import { messageOf } from '../format/message-of.js'

/** An opened export: its bytes (decompressed when it was gzip) and what progress to show. */
export interface OpenedSource {
  readonly bytes: AsyncIterable<Buffer>
  /** Size of the raw input when known (a file, or a download with Content-Length). */
  readonly totalBytes: number | undefined
  /** Raw bytes consumed so far (compressed ones for gzip), for a progress bar. */
  bytesRead(): number
  /** The source as the manifest records it: a path, `stdin`, or a URL without credentials or query. */
  readonly description: string
}

const GZIP_MAGIC = [0x1f, 0x8b]
const CHUNK = 1 << 20

/**
 * Opens a file path, `-` for standard input, or an http(s) URL streamed while it
 * downloads. Compression is detected by the gzip magic bytes, never by the name.
 */
export async function openSource(src: string, stdin: Readable = process.stdin): Promise<OpenedSource> {
  const { raw, totalBytes } = await openRaw(src, stdin)
  const description = describeSource(src)
  let read = 0
  const counted = new Transform({
    highWaterMark: CHUNK,
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length
      done(null, chunk)
    },
  })
  pipeline(raw, counted, () => {})
  const head = await peek(counted, GZIP_MAGIC.length)
  const gzip = GZIP_MAGIC.every((byte, i) => head[i] === byte)
  let bytes: Readable = counted
  if (gzip) {
    const gunzip = createGunzip({ chunkSize: CHUNK })
    bytes = pipeline(counted, gunzip, () => {})
  }
  return { bytes: failingClearly(bytes, gzip), totalBytes, bytesRead: () => read, description }
}

/** The source as the manifest and the report record it: a path, `stdin`, or a URL without credentials or query. */
export function describeSource(src: string): string {
  if (src === '-') return 'stdin'
  return isUrl(src) && URL.canParse(src) ? describeUrl(new URL(src)) : src
}

function isUrl(src: string): boolean {
  return /^https?:\/\//i.test(src)
}

async function openRaw(src: string, stdin: Readable): Promise<{ raw: Readable; totalBytes: number | undefined }> {
  if (src === '-') return { raw: stdin, totalBytes: undefined }
  if (isUrl(src)) return openUrl(src)
  let size: number
  try {
    const stat = statSync(src)
    if (!stat.isFile()) throw new BuildError('unreadable_export', `${src} is not a file`)
    size = stat.size
  } catch (error) {
    if (error instanceof BuildError) throw error
    throw new BuildError(
      'unreadable_export',
      `cannot read the export ${src}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    )
  }
  return { raw: createReadStream(src, { highWaterMark: CHUNK }), totalBytes: size }
}

async function openUrl(src: string) {
  const url = new URL(src)
  const { body, length } = await httpGet(url, { headersTimeout: 60_000, bodyTimeout: 300_000 })
  return { raw: body, totalBytes: length }
}

/** Waits until `n` bytes (or the end) are buffered and returns them, leaving them unread. */
async function peek(stream: Readable, n: number): Promise<Buffer> {
  const parts: Buffer[] = []
  let length = 0
  for (;;) {
    const chunk = stream.read() as Buffer | null
    if (chunk !== null) {
      parts.push(chunk)
      length += chunk.length
      if (length >= n) break
      continue
    }
    if (stream.readableEnded || stream.destroyed) break
    const ended = await new Promise<boolean>((resolve) => {
      const done = (result: boolean) => {
        stream.off('readable', onReadable).off('end', onEnd).off('error', onEnd)
        resolve(result)
      }
      const onReadable = () => done(false)
      const onEnd = () => done(true)
      stream.once('readable', onReadable).once('end', onEnd).once('error', onEnd)
    })
    if (ended) break
  }
  const head = Buffer.concat(parts)
  if (head.length > 0) stream.unshift(head)
  return head
}

/** Turns stream failures into BuildErrors an operator can act on. */
async function* failingClearly(stream: Readable, gzip: boolean): AsyncIterable<Buffer> {
  try {
    for await (const chunk of stream) yield chunk as Buffer
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (gzip && (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR')) {
      throw new BuildError(
        'corrupt_gzip',
        `the export is not a valid gzip stream (${code === 'Z_BUF_ERROR' ? 'truncated' : 'corrupt'})`,
      )
    }
    throw new BuildError('unreadable_export', `reading the export failed: ${messageOf(error)}`)
  }
}
