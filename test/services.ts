import { execFile, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { createClient } from '@redis/client'
import pg from 'pg'
import type { Test } from 'tap'
import { children } from './support.js'

/**
 * The PostgreSQL and Redis the tests run against: on this project's machines and in CI,
 * PostgreSQL on 127.0.0.1:5432 (trust authentication, user root, database test) and Redis
 * on 127.0.0.1:6379; elsewhere, set CARMARKET_TEST_POSTGRES and CARMARKET_TEST_REDIS.
 * Each test works in a database and under a key prefix of its own, removed at its end.
 */
export const POSTGRES = process.env.CARMARKET_TEST_POSTGRES ?? 'postgres://root@127.0.0.1:5432/test'
export const REDIS = process.env.CARMARKET_TEST_REDIS ?? 'redis://127.0.0.1:6379'

/** A database of the test's own, created now and dropped when the test ends: its URL. */
export async function freshDatabase(t: Test): Promise<string> {
  const name = `carmarket_test_${randomBytes(6).toString('hex')}`
  await admin((client) => client.query(`CREATE DATABASE ${name}`))
  t.teardown(() => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
  const url = new URL(POSTGRES)
  url.pathname = `/${name}`
  return url.toString()
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** A key prefix of the test's own in Redis; its keys are deleted when the test ends. */
export function freshRedisPrefix(t: Test): string {
  const prefix = `carmarket-test-${randomBytes(6).toString('hex')}:`
  t.teardown(async () => {
    const client = createClient({ url: REDIS })
    await client.connect()
    try {
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
        if (keys.length > 0) await client.del(keys)
    } finally {
      client.destroy()
    }
  })
  return prefix
}

/**
 * A PostgreSQL server of the test's own (a fresh cluster in a temporary folder, on a free
 * port), for tests that stop it, kill it or cut it off, which the shared one must never
 * be. Superuser `root`, trust authentication, database `postgres`. Stopped and removed
 * when the test ends.
 */
export interface PrivatePostgres {
  readonly url: string
  readonly stop: (mode: 'fast' | 'immediate') => Promise<void>
  readonly start: () => Promise<void>
  /**
   * Stops every process of the server (SIGSTOP), as a hung machine or a paused VM does: connections stay open and
   * new ones are accepted by the kernel, but nothing answers. Resolves once all are stopped.
   */
  readonly freeze: () => Promise<void>
  /** Lets a frozen server run on (SIGCONT). */
  readonly thaw: () => void
}

export async function privatePostgres(t: Test): Promise<PrivatePostgres> {
  const versions = readdirSync(PG_ROOT).sort((a, b) => Number(a) - Number(b))
  const bin = join(PG_ROOT, versions.at(-1)!, 'bin')
  const dir = mkdtempSync(join(tmpdir(), 'carmarket-pg-'))
  chownSync(dir, postgresUid(), postgresGid())
  const port = await freePort()
  // Without blocking the test's event loop, whose clients go on meanwhile.
  const asPostgres = async (command: string, args: readonly string[]) =>
    void (await run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]))
  await asPostgres('initdb', ['-D', dir, '-U', 'root', '-A', 'trust', '--no-sync'])
  const start = () =>
    asPostgres('pg_ctl', [
      '-D',
      dir,
      '-w',
      '-l',
      join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
      'start',
    ])
  const stop = (mode: 'fast' | 'immediate') => asPostgres('pg_ctl', ['-D', dir, '-w', '-m', mode, 'stop'])
  const processes = () => {
    const postmaster = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0])
    return [postmaster, ...children(postmaster)]
  }
  let frozen: number[] = []
  const freeze = async () => {
    // The postmaster first, so that it forks no backend meanwhile.
    frozen = processes()
    for (const pid of frozen) process.kill(pid, 'SIGSTOP')
    while (!frozen.every(stopped)) await sleep(5)
  }
  const thaw = () => {
    for (const pid of frozen) process.kill(pid, 'SIGCONT')
    frozen = []
  }
  await start()
  t.teardown(async () => {
    thaw()
    try {
      await stop('immediate')
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true })
  })
  return { url: `postgres://root@127.0.0.1:${port}/postgres`, stop, start, freeze, thaw }
}

const PG_ROOT = '/usr/lib/postgresql'

const run = promisify(execFile)

/** Whether process `pid` is stopped (or gone). */
function stopped(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; T is stopped.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat[stat.lastIndexOf(')') + 2] === 'T'
  } catch {
    return true
  }
}

function postgresUid(): number {
  return Number(execFileSync('id', ['-u', 'postgres']).toString())
}

function postgresGid(): number {
  return Number(execFileSync('id', ['-g', 'postgres']).toString())
}

/** A TCP port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}
