import { randomBytes } from 'node:crypto'
import { createClient } from '@redis/client'
import pg from 'pg'
import type { Test } from 'tap'

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
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys)
    } finally {
      client.destroy()
    }
  })
  return prefix
}
