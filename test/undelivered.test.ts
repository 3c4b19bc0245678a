import { connect } from 'node:net'
import t from 'tap'
import { request } from 'undici'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { account, build, demoCalls, freshDir, rows, spawnServe, toCsv } from './support.js'

const VALUATION = '/v1/market/valuation?make=VW&model=Golf&year=2017'

/** Sends a request on a new connection, then half-closes it (FIN) and reads what comes back. */
function halfClosed(port: number, head: string, body = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(`${head}\r\nHost: localhost\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
      socket.end()
    })
    let reply = ''
    socket.on('data', (chunk) => (reply += chunk.toString()))
    socket.on('close', () => resolve(reply))
    socket.on('error', reject)
  })
}

/** Sends a request on a new connection and resets it (RST) at once, before any answer. */
function resetAfterSending(port: number, head: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => {
      socket.write(`${head}\r\nHost: localhost\r\n\r\n`, () => {
        socket.resetAndDestroy()
        resolve()
      })
    })
    socket.on('error', reject)
  })
}

t.test('a client that half-closes after its request gets its answer, on every kind of route', async (t) => {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const ledgerDir = freshDir(t)
  const { id, key } = await account(ledgerDir, 'fin@example.pl', 100)
  const server = await spawnServe(t, [
    '--snapshots',
    snapshots,
    '--ledger',
    ledgerDir,
    '--outbox',
    freshDir(t),
    '--demo-quota',
    '5',
  ])
  const keyed = await halfClosed(server.port, `GET ${VALUATION} HTTP/1.1\r\nX-API-Key: ${key}`)
  t.match(
    keyed,
    /^HTTP\/1\.1 200 [^]*"credits_remaining":92/,
    'a paid call is answered, and charged since it was delivered',
  )
  t.match(
    await halfClosed(server.port, `GET ${VALUATION} HTTP/1.1`),
    /^HTTP\/1\.1 200 [^]*"credits_used":8/,
    'a keyless market call',
  )
  t.match(await halfClosed(server.port, 'GET /livez HTTP/1.1'), /^HTTP\/1\.1 200 [^]*"alive":true/, '/livez')
  t.match(
    await halfClosed(server.port, 'GET /v1/account/me HTTP/1.1\r\nX-API-Key: ' + key),
    /^HTTP\/1\.1 200 [^]*"credits_remaining":92/,
    'an account route',
  )
  t.match(
    await halfClosed(server.port, 'GET /v1/openapi.json HTTP/1.1'),
    /^HTTP\/1\.1 200 [^]*"openapi":"3\.1\.0"/,
    'the OpenAPI document',
  )
  t.match(await halfClosed(server.port, 'GET /nowhere HTTP/1.1'), /^HTTP\/1\.1 404 [^]*"NOT_FOUND"/, 'an unknown route')
  t.match(
    await halfClosed(
      server.port,
      'POST /v1/auth/register HTTP/1.1\r\nContent-Type: application/json',
      JSON.stringify({ email: 'fin-register@example.pl' }),
    ),
    /^HTTP\/1\.1 200 [^]*"code_sent":true/,
    'a POST with its body',
  )
  const ledger = LmdbLedger.open(ledgerDir)
  t.teardown(() => ledger.close())
  t.equal((await ledger.account(id))!.balance, 92)
})

t.test(
  'a request whose client reset the connection before the debit is not charged and uses no demo call',
  async (t) => {
    const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const ledgerDir = freshDir(t)
    const { id, key } = await account(ledgerDir, 'rst@example.pl', 1_000)
    const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', ledgerDir, '--demo-quota', '5'])
    for (let i = 0; i < 20; i++) await resetAfterSending(server.port, `GET ${VALUATION} HTTP/1.1\r\nX-API-Key: ${key}`)
    for (let i = 0; i < 20; i++) await resetAfterSending(server.port, `GET ${VALUATION} HTTP/1.1`)
    await new Promise((resolve) => setTimeout(resolve, 500))

    const me = await request(`http://127.0.0.1:${server.port}/v1/account/me`, { headers: { 'x-api-key': key } })
    t.equal(
      ((await me.body.json()) as { data: { credits_remaining: number } }).data.credits_remaining,
      1_000,
      'no paid call was charged',
    )
    const keyless = []
    for (let i = 0; i < 6; i++) {
      const response = await request(`http://127.0.0.1:${server.port}${VALUATION}`)
      await response.body.dump()
      keyless.push(response.statusCode)
    }
    t.same(keyless, [200, 200, 200, 200, 200, 429], 'the whole demo quota is left')
    // A reset connection may have lost its peer address before the count: no address at all may hold one.
    t.equal(demoCalls(t, ledgerDir), 5, 'only the five answered keyless calls were counted')
    const ledger = LmdbLedger.open(ledgerDir)
    t.teardown(() => ledger.close())
    t.same(
      (await ledger.entries(id, 100)).map((e) => e.type),
      ['grant'],
      'no charge entry was written',
    )
  },
)
