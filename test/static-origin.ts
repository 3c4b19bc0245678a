import { createReadStream, statSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import { join, resolve, sep } from 'node:path'
import type { Test } from 'tap'

/** Takes a request over before the files are looked at; true when it answered. */
export type Answer = (path: string, res: ServerResponse) => boolean

export interface StaticOrigin {
  /** The folder's address, with its trailing slash (as `snapshot pull --from` takes it). */
  readonly base: string
  /** The paths asked for, in order. */
  readonly requests: string[]
}

/**
 * The folder `root` served by a static file server on 127.0.0.1 that follows symlinks as
 * nginx does, 404 for what is no file. `answer` may stand in for it on any request.
 * Closed when the test ends.
 */
export async function staticOrigin(t: Test, root: string, answer: Answer = () => false): Promise<StaticOrigin> {
  const folder = resolve(root)
  const requests: string[] = []
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://origin').pathname)
    requests.push(path)
    if (answer(path, res)) return
    const file = join(folder, path)
    const stat = file.startsWith(folder + sep) ? statSync(file, { throwIfNoEntry: false }) : undefined
    if (stat === undefined || !stat.isFile()) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': stat.size })
    createReadStream(file).pipe(res)
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise<void>((done) => server.close(() => done()))
  })
  const { port } = server.address() as { port: number }
  return { base: `http://127.0.0.1:${port}/`, requests }
}
