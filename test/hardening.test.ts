import { connect } from 'node:net'
import t from 'tap'
import { Agent, request } from 'undici'
import { DRAIN_MS } from '../runtime/server.js'
import { build, freshDir, rows, serve, spawnServe, toCsv } from './support.js'

const data = toCsv(rows(12, (i) => ({ price: 30_000 + i })))

/** Writes raw bytes on a fresh connection; resolves with all the server sent back and when it closed. */
function raw(port: number, bytes: string): Promise<{ reply: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    let reply = ''
    socket.on('data', (chunk) => (reply += chunk.toString()))
    socket.on('close', () => resolve({ reply, closedAfterMs: Date.now() - started }))
    socket.on('error', reject)
  })
}

t.test('a client sending its headers slowly is cut off; oversized headers are refused', async (t) => {
  const { snapshots } = await build(t, data)
  const timeouts = { headers: 1_000, request: 2_000, keepAlive: 500 }
  const { runtime } = await serve(t, { snapshots, demoQuota: 100, timeouts })
  const port = runtime.address().port
  const slow = await raw(port, 'GET /livez HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n')
  t.match(slow.reply, /^HTTP\/1\.1 408/, 'the server answers 408 Request Timeout')
  t.ok(slow.closedAfterMs < 5_000, `and closes the connection (${slow.closedAfterMs} ms)`)
  const big = await raw(port, `GET /livez HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
  t.match(big.reply, /^HTTP\/1\.1 431/, 'headers over 16 KiB: 431')
  const idle = await raw(port, 'GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n')
  t.match(idle.reply, /^HTTP\/1\.1 200/)
  t.ok(idle.closedAfterMs < 5_000, `an idle keep-alive connection is closed (${idle.closedAfterMs} ms)`)
})

t.test('a request that arrived while the process was busy past the keep-alive timeout is answered', async (t) => {
  const { snapshots } = await build(t, data)
  const timeouts = { headers: 1_000, request: 2_000, keepAlive: 500 }
  const { runtime } = await serve(t, { snapshots, timeouts })
  const call = 'GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n'
  // The second request goes out on the kept-alive connection at once; then the process is
  // blocked (a long GC pause, a starved CPU) for longer than the idle connection may last.
  // The server's idle timer and the request are both due when it wakes.
  const outcome = await new Promise<{ answers: number; error?: string }>((resolve) => {
    const socket = connect(runtime.address().port, '127.0.0.1', () => socket.write(call))
    let reply = ''
    const answers = () => reply.split('"alive":true').length - 1
    socket.on('data', (chunk) => {
      const before = answers()
      reply += chunk.toString()
      if (before === 0 && answers() === 1) {
        socket.write(call)
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, timeouts.keepAlive * 5)
      }
      if (answers() === 2) socket.end()
    })
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ answers: answers(), error: error.code }))
    socket.on('close', () => resolve({ answers: answers() }))
  })
  t.same(outcome, { answers: 2 }, 'both requests are answered, none is cut off')
})

t.test('SIGTERM: stop accepting, finish the request in flight, exit cleanly', async (t) => {
  const { snapshots } = await build(t, data)
  const { child, port, log } = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    freshDir(t),
    '--rate-limit',
    '0',
  ])
  // A request whose headers are still arriving when the signal comes is in flight.
  const inFlight = new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('GET /v1/market/valuation?make=VW&model=Golf&year=2017 HTTP/1.1\r\nHost: localhost\r\n')
      setTimeout(() => {
        child.kill('SIGTERM')
        setTimeout(() => socket.write('Connection: close\r\n\r\n'), 300)
      }, 100)
    })
    let reply = ''
    socket.on('data', (chunk) => (reply += chunk.toString()))
    socket.on('close', () => resolve(reply))
    socket.on('error', reject)
  })
  const reply = await inFlight
  t.match(reply, /^HTTP\/1\.1 200/, 'the request in flight is answered')
  t.match(reply, /"status":"success"/)
  const code = await new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
  )
  t.equal(code, 0, 'the process exits cleanly')
  t.match(log(), /stopping/)
  await t.rejects(request(`http://127.0.0.1:${port}/livez`), 'nothing listens any more')
})

/** Four clients calling in a loop on keep-alive connections until told to stop. */
function busyClients(port: number) {
  const dispatcher = new Agent({ connections: 4 })
  let stopped = false
  const loops = Array.from({ length: 4 }, async () => {
    while (!stopped) {
      try {
        const response = await request(`http://127.0.0.1:${port}/v1/market/valuation?make=VW&model=Golf&year=2017`, {
          dispatcher,
        })
        await response.body.dump()
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  })
  return async () => {
    stopped = true
    await Promise.all(loops)
    await dispatcher.destroy()
  }
}

/** Sends SIGTERM; resolves with the exit code and the milliseconds it took. */
async function terminate(
  child: import('node:child_process').ChildProcess,
): Promise<{ code: number | null; took: number }> {
  const started = Date.now()
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const code = await exited
  return { code, took: Date.now() - started }
}

t.test(
  'SIGTERM with busy keep-alive connections: each answer closes its connection, so stopping does not wait for the clients',
  async (t) => {
    const { snapshots } = await build(t, data)
    const { child, port } = await spawnServe(t, [
      '--snapshots',
      snapshots,
      '--ledger',
      freshDir(t),
      '--rate-limit',
      '0',
      '--demo-quota',
      '1000000',
    ])
    const stopClients = busyClients(port)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const { code, took } = await terminate(child)
    await stopClients()
    t.equal(code, 0, 'the process exits cleanly')
    t.ok(took < DRAIN_MS / 2, `it ended ${took} ms after SIGTERM, long before the drain's end (${DRAIN_MS} ms)`)
  },
)

t.test('SIGTERM with a request whose body never ends: cut at the end of the drain', async (t) => {
  const { snapshots } = await build(t, data)
  const { child, port } = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    freshDir(t),
    '--rate-limit',
    '0',
    '--demo-quota',
    '1000000',
  ])
  const stopClients = busyClients(port)
  const slow = connect(port, '127.0.0.1', () =>
    slow.write(
      'POST /v1/auth/register HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"em',
    ),
  )
  slow.on('error', () => {})
  slow.resume()
  await new Promise((resolve) => setTimeout(resolve, 500))
  const { code, took } = await terminate(child)
  await stopClients()
  t.equal(code, 0, 'the process exits cleanly')
  t.ok(
    took >= DRAIN_MS - 500 && took < DRAIN_MS + 3_000,
    `it ended ${took} ms after SIGTERM (the drain is ${DRAIN_MS} ms)`,
  )
  t.ok(slow.destroyed || slow.readableEnded, 'the never-ending request was cut')
})
