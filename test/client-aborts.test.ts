import { connect } from 'node:net'
import t from 'tap'
import { request } from 'undici'
import { build, freshDir, metric, rows, spawnServe, toCsv } from './support.js'

/** Starts a POST whose body never arrives in full, then closes the connection. */
function cutBody(port: number, path: string, reset: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"email":"a`,
      )
      setTimeout(() => {
        if (reset) socket.resetAndDestroy()
        else socket.end()
      }, 50)
    })
    socket.resume()
    // The server answers or closes at once; a connection it keeps open would hang the test.
    socket.setTimeout(5_000, () => reject(new Error('the server kept the connection open')))
    socket.on('close', () => resolve())
    socket.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(error)))
  })
}

t.test('a body cut off by its client is a client abort, not a server error', async (t) => {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const server = await spawnServe(
    t,
    ['--snapshots', snapshots, '--ledger', freshDir(t), '--outbox', freshDir(t), '--rate-limit', '0'],
    { stdout: true },
  )
  for (let i = 0; i < 10; i++) await cutBody(server.port, '/v1/auth/register', i % 2 === 0)
  for (let i = 0; i < 4; i++) await cutBody(server.port, '/mcp', i % 2 === 0)
  await new Promise((resolve) => setTimeout(resolve, 300))
  const text = await (await request(`http://127.0.0.1:${server.port}/metrics`)).body.text()
  t.equal(
    metric(text, 'carmarket_http_requests_total{route="/v1/auth/register",status="499"}'),
    10,
    'counted as 499, the client closed the request',
  )
  t.equal(metric(text, 'carmarket_http_requests_total{route="/mcp",status="499"}'), 4)
  t.notMatch(text, /status="5\d\d"/, 'no 5xx is counted')
  t.equal(metric(text, 'carmarket_errors_total{code="INTERNAL_ERROR"}') ?? 0, 0)
  t.notMatch(server.log(), /unexpected error/, 'nothing unexpected is logged')
  await new Promise((resolve) => setTimeout(resolve, 300))
  const lines = server
    .stdout()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { status: number; route: string })
  t.equal(lines.filter((l) => l.status === 499).length, 14, 'the request log says 499 too')
})
