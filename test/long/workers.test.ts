import t from 'tap'
import { Agent, request } from 'undici'
import { LmdbLedger } from '../../ledger/lmdb-ledger.js'
import { account, build, children, freshDir, metric, rows, spawnServe, toCsv } from '../support.js'

const data = toCsv(rows(12, (i) => ({ price: 30_000 + i })))
const valuation = '/v1/market/valuation?make=VW&model=Golf&year=2017'

t.test('serve --workers 2: balances, the demo quota and the rate limit stay exact across workers', async (t) => {
  const { snapshots } = await build(t, data)
  const ledgerDir = freshDir(t)
  const { id, key } = await account(ledgerDir, 'flota@example.pl', 37 * 8 + 7)
  const server = await spawnServe(
    t,
    ['--workers', '2', '--snapshots', snapshots, '--ledger', ledgerDir, '--rate-limit', '0', '--demo-quota', '5'],
    { stdout: true },
  )
  t.match(server.log(), /\(2 workers\)/)
  const dispatcher = new Agent({ connections: 40 })
  t.teardown(() => dispatcher.close())
  const call = async (path: string, headers: Record<string, string> = {}) => {
    const response = await request(`http://127.0.0.1:${server.port}${path}`, { headers, dispatcher })
    return {
      status: response.statusCode,
      body: (await response.body.json()) as { data?: { credits_remaining: number } },
    }
  }

  const keyed = await Promise.all(Array.from({ length: 300 }, () => call(valuation, { 'x-api-key': key })))
  t.equal(keyed.filter((r) => r.status === 200).length, 37, 'exactly the calls the balance pays for succeed')
  t.equal(keyed.filter((r) => r.status === 402).length, 263)
  t.equal(
    new Set(keyed.map((r) => r.body.data?.credits_remaining).filter((n) => n !== undefined)).size,
    37,
    'each success saw its own debit',
  )
  const me = await call('/v1/account/me', { 'x-api-key': key })
  t.equal(me.body.data?.credits_remaining, 7, 'the final balance is exact')

  const keyless = await Promise.all(Array.from({ length: 40 }, () => call(valuation)))
  t.equal(keyless.filter((r) => r.status === 200).length, 5, 'five keyless calls a day, whichever worker answers')
  t.equal(keyless.filter((r) => r.status === 429).length, 35)

  // Both workers answer: the request log names the process of each line. The kernel,
  // not a rotation, spreads connections (SCHED_NONE), so bursts of new ones are sent until
  // both have taken some.
  const pids = () =>
    new Set(
      server
        .stdout()
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    )
  for (let burst = 0; burst < 50 && pids().size < 2; burst++) {
    const fresh = new Agent({ connections: 40 })
    await Promise.all(
      Array.from({ length: 40 }, async () =>
        (await request(`http://127.0.0.1:${server.port}/livez`, { dispatcher: fresh })).body.dump(),
      ),
    )
    await fresh.close()
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  t.equal(pids().size, 2, 'requests were spread over the two workers')

  // /metrics sums both workers, whichever of them is asked.
  const text = await (await request(`http://127.0.0.1:${server.port}/metrics`)).body.text()
  t.equal(metric(text, 'carmarket_processes'), 2)
  t.equal(metric(text, 'carmarket_http_requests_total{route="/v1/market/valuation",status="200"}'), 42)
  t.equal(metric(text, 'carmarket_http_requests_total{route="/v1/market/valuation",status="402"}'), 263)
  t.equal(metric(text, 'carmarket_http_requests_total{route="/v1/market/valuation",status="429"}'), 35)
  t.equal(metric(text, 'carmarket_http_request_duration_seconds_count{route="/v1/market/valuation"}'), 340)
  t.equal(metric(text, 'carmarket_errors_total{code="DEMO_LIMIT_REACHED"}'), 35)
  t.equal(metric(text, 'carmarket_ledger_commits_total{kind="charge"}')! >= 37, true, 'every debit is a ledger commit')

  const ledger = LmdbLedger.open(ledgerDir)
  t.teardown(() => ledger.close())
  t.equal((await ledger.account(id))!.balance, 7)
})

t.test('serve --workers 2: the rate limit is exact across workers', async (t) => {
  const { snapshots } = await build(t, data)
  const server = await spawnServe(t, [
    '--workers',
    '2',
    '--snapshots',
    snapshots,
    '--ledger',
    freshDir(t),
    '--rate-limit',
    '50',
  ])
  const dispatcher = new Agent({ connections: 20 })
  t.teardown(() => dispatcher.close())
  const statuses = await Promise.all(
    Array.from({ length: 80 }, async () => {
      const response = await request(`http://127.0.0.1:${server.port}/livez`, { dispatcher })
      await response.body.dump()
      return response.statusCode
    }),
  )
  t.equal(statuses.filter((s) => s === 200).length, 50, 'the 50 of the minute, no more')
  t.equal(statuses.filter((s) => s === 429).length, 30)
})

t.test('a worker that dies is replaced; SIGTERM stops them all', async (t) => {
  const { snapshots } = await build(t, data)
  const server = await spawnServe(
    t,
    ['--workers', '2', '--snapshots', snapshots, '--ledger', freshDir(t), '--rate-limit', '0'],
    { stdout: true },
  )
  const get = async (path: string) => {
    const response = await request(`http://127.0.0.1:${server.port}${path}`, {
      reset: true,
      headersTimeout: 2_000,
      bodyTimeout: 2_000,
    })
    return { status: response.statusCode, text: await response.body.text() }
  }
  for (let i = 0; i < 10; i++) await get('/livez')
  await new Promise((resolve) => setTimeout(resolve, 300))
  const pids = [
    ...new Set(
      server
        .stdout()
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    ),
  ]
  t.equal(pids.length, 2)
  process.kill(pids[0]!, 'SIGKILL')
  // A connection handed to the killed worker before the primary saw it die is lost;
  // then the other worker answers everything while the replacement starts, and it joins.
  let processes = 0
  for (let i = 0; i < 100 && processes !== 2; i++) {
    processes = await get('/metrics').then(
      (r) => metric(r.text, 'carmarket_processes') ?? 0,
      () => 0,
    )
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(processes, 2, 'two workers again')
  const after = await Promise.all(Array.from({ length: 20 }, () => get('/livez')))
  t.ok(
    after.every((r) => r.status === 200),
    'and every request is answered',
  )
  t.match(server.log(), /"message":"worker stopped"/)

  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)))
  server.child.kill('SIGTERM')
  t.equal(await exited, 0, 'the primary exits cleanly once its workers have stopped')
})

t.test(
  'workers that crash more than 10 times a minute stop the service; kills from outside do not count',
  async (t) => {
    const { snapshots } = await build(t, data)
    const server = await spawnServe(t, [
      '--workers',
      '2',
      '--snapshots',
      snapshots,
      '--ledger',
      freshDir(t),
      '--rate-limit',
      '0',
    ])
    const primary = server.child.pid!
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)))
    const listening = async () => {
      for (let i = 0; i < 200; i++) {
        const text = await request(`http://127.0.0.1:${server.port}/metrics`, { reset: true }).then(
          (r) => r.body.text(),
          () => '',
        )
        if (metric(text, 'carmarket_processes') === 2 && children(primary).length === 2) return children(primary)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error('no two workers listening')
    }
    for (let i = 0; i < 12; i++) process.kill((await listening())[0]!, 'SIGKILL')
    t.equal(server.child.exitCode, null, '12 SIGKILLs in a few seconds: still serving')

    let crashes = 0
    while (server.child.exitCode === null && crashes < 12) {
      const workers = await listening().catch(() => [])
      if (workers.length > 0) {
        process.kill(workers[0]!, 'SIGABRT')
        crashes++
        // Each crash is of a worker that was alive: the next is looked for once this one is gone.
        while (server.child.exitCode === null && children(primary).includes(workers[0]!))
          await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    t.equal(await exited, 1, 'the service stopped with exit code 1')
    t.equal(crashes, 11, 'at the eleventh crash in a minute')
    t.match(server.log(), /workers keep crashing; stopping/)
  },
)
