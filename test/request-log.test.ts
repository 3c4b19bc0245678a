import t from 'tap'
import { request } from 'undici'
import { LmdbLedger } from '../ledger/lmdb-ledger.js'
import { RequestLog } from '../runtime/request-log.js'
import { build, freshDir, rows, serve, spawnServe, toCsv } from './support.js'

const data = toCsv(rows(12, (i) => ({ price: 30_000 + i })))
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

t.test('every answer carries X-Request-Id, echoed when sane, and one log line without the key', async (t) => {
  const { snapshots } = await build(t, data)
  const ledgerDir = freshDir(t)
  const ledger = LmdbLedger.open(ledgerDir)
  const { account, key } = await ledger.createAccount('log@example.pl', 100, 'grant', 'test')
  await ledger.close()
  const written: string[] = []
  const log = new RequestLog((text) => written.push(text))
  const { get } = await serve(t, { snapshots, ledger: ledgerDir, demoQuota: 10, requestLog: log })
  const call = async (path: string, headers: Record<string, string> = {}) => {
    const answer = await get(path, { headers })
    return { status: answer.status, id: answer.headers['x-request-id'] as string }
  }

  const keyed = await call('/v1/market/valuation?make=Volkswagen&model=Golf&year=2017', {
    'x-api-key': key,
    'x-request-id': 'trace-42.a:b',
  })
  t.equal(keyed.status, 200)
  t.equal(keyed.id, 'trace-42.a:b', 'a sane id is echoed')
  const keyless = await call('/v1/market/valuation?make=Volkswagen&model=Golf&year=2017')
  t.match(keyless.id, UUID, 'without one, an id is made')
  const odd = await call('/nowhere', { 'x-request-id': 'a b<script>' })
  t.equal(odd.status, 404)
  t.match(odd.id, UUID, 'an id with other characters is replaced, errors carry one too')
  const long = await call('/livez', { 'x-request-id': 'x'.repeat(129) })
  t.match(long.id, UUID, 'so is one longer than 128 characters')
  const bad = await call('/v1/market/valuation?make=Volkswagen&model=Golf&year=1800', { 'x-api-key': key })
  t.equal(bad.status, 400)

  log.flush()
  const lines = written
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  t.equal(lines.length, 5, 'one line per request')
  t.match(lines[0], {
    level: 'info',
    message: 'request',
    request_id: 'trace-42.a:b',
    method: 'GET',
    route: '/v1/market/valuation',
    status: 200,
    account_id: account.id,
    ip: '127.0.0.1',
  })
  t.ok(typeof lines[0]!.duration_ms === 'number' && (lines[0]!.duration_ms as number) >= 0, 'with its duration in ms')
  t.ok(!Number.isNaN(Date.parse(lines[0]!.time as string)), 'and its time')
  t.match(lines[1], { request_id: keyless.id, account_id: null, status: 200 })
  t.match(lines[2], { request_id: odd.id, route: null, status: 404 })
  t.match(lines[4], { request_id: bad.id, status: 400, account_id: account.id })
  t.notOk(written.join('').includes(key), 'the key is never logged')
  t.notOk(written.join('').includes('year=1800'), 'nor the query string')
})

t.test('lines are written in batches, and all of them when the server stops', async (t) => {
  const writes: string[] = []
  const log = new RequestLog(
    (text) => writes.push(text),
    () => Date.UTC(2026, 10, 22),
  )
  for (let i = 0; i < 300; i++)
    log.record({
      request_id: `r${i}`,
      method: 'GET',
      route: '/livez',
      status: 200,
      duration_ms: 0.1,
      account_id: null,
      ip: '::1',
    })
  t.equal(writes.length, 1, '256 lines make one write')
  t.equal(writes[0]!.split('\n').length - 1, 256)
  log.flush()
  t.equal(writes.length, 2)
  t.equal(writes.join('').split('\n').length - 1, 300, 'nothing is lost')
  t.match(JSON.parse(writes[1]!.split('\n')[0]!), { time: '2026-11-22T00:00:00.000Z', request_id: 'r256' })
  log.flush()
  t.equal(writes.length, 2, 'an empty flush writes nothing')
})

t.test('carmarket serve logs to stdout unless told not to', async (t) => {
  const { snapshots } = await build(t, data)
  const served = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t)], { stdout: true })
  const response = await request(`http://127.0.0.1:${served.port}/livez`, { headers: { 'x-request-id': 'from-cli' } })
  await response.body.text()
  served.child.kill('SIGTERM')
  await new Promise((resolve) => served.child.once('exit', resolve))
  t.match(served.stdout(), /"request_id":"from-cli".*"route":"\/livez","status":200/)
  const quiet = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t), '--no-request-log'], {
    stdout: true,
  })
  await (await request(`http://127.0.0.1:${quiet.port}/livez`)).body.text()
  quiet.child.kill('SIGTERM')
  await new Promise((resolve) => quiet.child.once('exit', resolve))
  t.equal(quiet.stdout(), '', 'with --no-request-log stdout stays empty')
})
