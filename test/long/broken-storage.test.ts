import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { LmdbLedger } from '../../ledger/lmdb-ledger.js'
import { OPERATION_SPECS } from '../../query/operations.js'
import { STORAGE_BROKEN_EXIT } from '../../runtime/cluster.js'
import { account, build, children, freshDir, metric, rows, spawnServe, toCsv } from '../support.js'

/**
 * A fatal LMDB error, as a failing disk gives it: a library preloaded into the server
 * fails every write of an LMDB meta page (the first two pages of a file) with EIO in
 * the processes named by a file `<faults>/<pid>`. LMDB then marks the environment
 * fatally broken (MDB_PANIC) for that process only.
 */
const SHIM = `
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/types.h>
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
static int failing(off_t offset) {
  const char *dir = getenv("FAULTS");
  char path[4096];
  if (dir == NULL || offset >= 8192) return 0;
  snprintf(path, sizeof path, "%s/%d", dir, (int)getpid());
  return access(path, F_OK) == 0;
}
static ssize_t call(const char *name, int fd, const void *buf, size_t n, off_t offset) {
  if (failing(offset)) { errno = EIO; return -1; }
  return ((pwrite_fn)dlsym(RTLD_NEXT, name))(fd, buf, n, offset);
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset) { return call("pwrite", fd, buf, n, offset); }
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t offset) { return call("pwrite64", fd, buf, n, offset); }
`

const CREDITS = 1_000_000
const PRICE = OPERATION_SPECS.liquidity.credits
const ROUTE = '/v1/market/liquidity?make=VW&model=Golf&year=2017'

async function faultyServe(t: Test, workers: number) {
  const dir = freshDir(t)
  writeFileSync(join(dir, 'fault.c'), SHIM)
  execFileSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'fault.so'), join(dir, 'fault.c'), '-ldl'])
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const ledgerDir = freshDir(t)
  const { id, key } = await account(ledgerDir, 'broken@example.pl', CREDITS)
  const server = await spawnServe(
    t,
    ['--workers', String(workers), '--snapshots', snapshots, '--ledger', ledgerDir, '--rate-limit', '0'],
    {
      env: { ...process.env, LD_PRELOAD: join(dir, 'fault.so'), FAULTS: dir },
    },
  )
  return {
    server,
    snapshots,
    ledgerDir,
    id,
    key,
    url: `http://127.0.0.1:${server.port}`,
    breakProcess: (pid: number) => writeFileSync(join(dir, String(pid)), ''),
  }
}

/**
 * Paid calls by `clients` loops until `until` resolves: what each got, and the balances
 * acknowledged. With `spread`, each call on a connection of its own: workers accept
 * connections as the kernel hands them out (SCHED_NONE), which may leave every kept-alive
 * connection with one worker and a broken one with nothing to write, never finding out.
 */
async function load(url: string, key: string, clients: number, until: Promise<unknown>, spread = false) {
  const statuses = new Map<number | string, number>()
  const acknowledged = new Set<number>()
  let done = false
  void until.finally(() => (done = true))
  const dispatcher = new Agent({ connections: clients })
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!done) {
        let status: number | string
        try {
          const response = await request(`${url}${ROUTE}`, {
            headers: { 'x-api-key': key },
            dispatcher,
            headersTimeout: 30_000,
            reset: spread,
          })
          const body = (await response.body.json()) as {
            data?: { credits_remaining: number }
            error?: { code: string }
          }
          status = response.statusCode === 200 ? 200 : `${response.statusCode} ${body.error?.code}`
          if (response.statusCode === 200) acknowledged.add(body.data!.credits_remaining)
        } catch (error) {
          // Refused while no process listens, or cut as its process ends.
          status = (error as { code?: string }).code ?? 'error'
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }),
  )
  await dispatcher.close()
  return { statuses, acknowledged }
}

/** The ledger's own account: entries sum to the balance, and every acknowledged debit is among them. */
async function checkLedger(t: Test, ledgerDir: string, id: string, acknowledged: ReadonlySet<number>) {
  const ledger = LmdbLedger.open(ledgerDir)
  try {
    const entries = await ledger.entries(id, 10_000_000)
    const state = (await ledger.account(id))!
    t.equal(
      entries.reduce((sum, e) => sum + e.credits, 0),
      state.balance,
      'balance = sum of entries',
    )
    const charges = entries.filter((e) => e.type === 'charge')
    t.equal(state.balance, CREDITS - charges.length * PRICE, 'every charge is one call')
    const charged = new Set(charges.map((e) => e.balance_after))
    t.same(
      [...acknowledged].filter((balance) => !charged.has(balance)),
      [],
      `every acknowledged debit (${acknowledged.size}) is in the ledger`,
    )
  } finally {
    await ledger.close()
  }
}

const answered = (statuses: ReadonlyMap<number | string, number>) =>
  [...statuses.keys()].filter((s) => typeof s === 'number' || /^\d/.test(s)).sort()

t.test(
  'one process whose ledger has a fatal error stops to be replaced: 503 meanwhile, never 500, and the ledger is exact',
  async (t) => {
    const { server, snapshots, ledgerDir, id, key, url, breakProcess } = await faultyServe(t, 1)
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve))
    const before = await request(`${url}${ROUTE}`, { headers: { 'x-api-key': key } })
    t.equal(before.statusCode, 200)
    const first = ((await before.body.json()) as { data: { credits_remaining: number } }).data.credits_remaining

    breakProcess(server.child.pid!)
    const { statuses, acknowledged } = await load(url, key, 8, exited)
    t.equal(
      await exited,
      STORAGE_BROKEN_EXIT,
      'the process stopped with the code that asks its supervisor for a new one',
    )
    t.same(answered(statuses), ['503 SERVICE_UNAVAILABLE'], `answers while broken: ${JSON.stringify([...statuses])}`)
    t.match(server.log(), /fatal error; this process stops to be replaced/)
    t.notMatch(server.log(), /unexpected error|uncaught/)
    await checkLedger(t, ledgerDir, id, new Set([...acknowledged, first]))

    // A new process maps the ledger afresh and answers as before.
    const again = await spawnServe(t, ['--snapshots', snapshots, '--ledger', ledgerDir])
    const after = await request(`http://127.0.0.1:${again.port}${ROUTE}`, { headers: { 'x-api-key': key } })
    t.equal(after.statusCode, 200)
    t.equal(
      ((await after.body.json()) as { data: { credits_remaining: number } }).data.credits_remaining,
      CREDITS - 2 * PRICE,
      'one charge before, one after: nothing charged while broken',
    )
  },
)

t.test(
  'a worker whose ledger has a fatal error is replaced, the other keeps answering, and it is no crash loop',
  async (t) => {
    const { server, ledgerDir, id, key, url, breakProcess } = await faultyServe(t, 2)
    const primary = server.child.pid!
    const replaced = (async () => {
      // Three workers broken in turn, one after the other has been replaced: a crash loop would be counted from the
      // first.
      for (let round = 0; round < 3; round++) {
        const [victim] = children(primary)
        breakProcess(victim!)
        for (let i = 0; i < 400 && children(primary).includes(victim!); i++)
          await new Promise((resolve) => setTimeout(resolve, 50))
        for (let i = 0; i < 200; i++) {
          const text = await request(`${url}/metrics`).then(
            (r) => r.body.text(),
            () => '',
          )
          if (metric(text, 'carmarket_processes') === 2 && !children(primary).includes(victim!)) break
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 300))
    })()
    const { statuses, acknowledged } = await load(url, key, 16, replaced, true)
    await replaced

    t.same(answered(statuses), [200, '503 SERVICE_UNAVAILABLE'].sort(), `answers: ${JSON.stringify([...statuses])}`)
    t.ok(statuses.get(200)! > (statuses.get('503 SERVICE_UNAVAILABLE') ?? 0), 'the other worker kept answering')
    t.equal(server.child.exitCode, null, 'the service is up')
    t.equal(
      (server.log().match(/fatal error; this process stops to be replaced/g) ?? []).length,
      3,
      'each broken worker said so',
    )
    t.match(server.log(), new RegExp(`"code":${STORAGE_BROKEN_EXIT}`))
    t.notMatch(server.log(), /keep crashing|unexpected error|uncaught/)

    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve))
    server.child.kill('SIGTERM')
    t.equal(await exited, 0)
    await checkLedger(t, ledgerDir, id, acknowledged)
  },
)
