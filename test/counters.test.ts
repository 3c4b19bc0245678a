import { createClient } from '@redis/client'
import t, { type Test } from 'tap'
import { LmdbCounters } from '../ledger/lmdb-counters.js'
import { PgCounters } from '../ledger/pg-counters.js'
import { EXPIRY_MARGIN_MS, RedisCounters } from '../ledger/redis-counters.js'
import { COUNTER_WINDOW_MS, type Counted, type CounterKind, type Counters } from '../ledger/types.js'
import { ENGINES as LEDGER_ENGINES } from './ledger-engines.js'
import { freshRedisPrefix, REDIS } from './services.js'
import { awayFromMinuteEnd, freshDir } from './support.js'

/** An engine's counters under test, on storage of the test's own. */
interface Opened {
  readonly counters: Counters
  /** The same storage opened again, as another process (or machine) of the deployment opens it. */
  again(): Promise<Counters>
  /**
   * For an engine whose counts expire by themselves: a count's time to live (ms), and how long past its window a count
   * may live. Absent for an engine that sweeps.
   */
  readonly expiry?: { ttl(kind: CounterKind, window: number, who: string): Promise<number>; readonly margin: number }
}

/** Every engine of the counters: each check below runs on each. */
const ENGINES: readonly { readonly name: string; open(t: Test): Promise<Opened> }[] = [
  { name: 'LMDB', open: lmdb },
  { name: 'Redis', open: redis },
  { name: 'PostgreSQL', open: postgres },
]

async function lmdb(t: Test): Promise<Opened> {
  const dir = freshDir(t)
  return { counters: closing(t, LmdbCounters.open(dir)), again: async () => closing(t, LmdbCounters.open(dir)) }
}

async function postgres(t: Test): Promise<Opened> {
  const url = await LEDGER_ENGINES.find((engine) => engine.name === 'postgresql')!.fresh(t)
  return { counters: closing(t, await PgCounters.open(url)), again: async () => closing(t, await PgCounters.open(url)) }
}

async function redis(t: Test): Promise<Opened> {
  const prefix = freshRedisPrefix(t)
  const url = new URL(REDIS)
  url.searchParams.set('prefix', prefix)
  const client = createClient({ url: REDIS })
  await client.connect()
  t.teardown(() => client.destroy())
  return {
    counters: closing(t, RedisCounters.open(url.toString())),
    again: async () => closing(t, RedisCounters.open(url.toString())),
    expiry: { ttl: (kind, window, who) => client.pTTL(`${prefix}${kind}:${window}:${who}`), margin: EXPIRY_MARGIN_MS },
  }
}

function closing(t: Test, counters: Counters): Counters {
  t.teardown(() => counters.close())
  return counters
}

function check(name: string, body: (t: Test, opened: Opened) => Promise<void>): void {
  for (const engine of ENGINES) t.test(`${engine.name}: ${name}`, async (t) => body(t, await engine.open(t)))
}

const KINDS = Object.keys(COUNTER_WINDOW_MS) as CounterKind[]
const windowOf = (kind: CounterKind, time = Date.now()) => Math.floor(time / COUNTER_WINDOW_MS[kind])

/** The numbers among what was counted, in order, and how many reached the limit. */
function tally(results: readonly Counted[]): { numbers: number[]; limit: number } {
  return {
    numbers: results.filter((r): r is number => typeof r === 'number').sort((a, b) => a - b),
    limit: results.filter((r) => r === 'limit').length,
  }
}

check('concurrent counts stop at the limit exactly', async (t, { counters }) => {
  const window = windowOf('demo')
  const results = await Promise.all(
    Array.from({ length: 200 }, () => counters.countUpTo('demo', window, '203.0.113.5', 5)),
  )
  t.same(
    tally(results),
    { numbers: [1, 2, 3, 4, 5], limit: 195 },
    'of 200 at once, five are counted, each with its own number',
  )
  t.equal(await counters.count('demo', window, '203.0.113.5'), 5)
  t.equal(await counters.countUpTo('demo', window, '203.0.113.5', 5), 'limit')
  t.equal(await counters.countUpTo('demo', window, '203.0.113.5', 6), 6, 'a higher limit counts on from there')
  t.equal(await counters.countUpTo('demo', window, '203.0.113.6', 0), 'limit', 'a limit of 0 counts nothing')
  t.equal(await counters.count('demo', window, '203.0.113.6'), 0)
})

check('every process of a deployment counts in the same counters', async (t, { counters, again }) => {
  const other = await again()
  const window = windowOf('rate')
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      (i % 2 === 0 ? counters : other).countUpTo('rate', window, '198.51.100.1', 7),
    ),
  )
  t.same(tally(results), { numbers: [1, 2, 3, 4, 5, 6, 7], limit: 93 })
  t.equal(await other.count('rate', window, '198.51.100.1'), 7)
})

check('kinds, windows and whos are counted apart', async (t, { counters }) => {
  // Client addresses and mailboxes may hold colons and look like a key's other parts.
  const whos = ['203.0.113.5', '2001:db8::5', 'jan.kowalski@example.pl', ':', 'rate:1:203.0.113.5']
  const cells = KINDS.flatMap((kind) =>
    [windowOf(kind), windowOf(kind) + 1].flatMap((window) => whos.map((who) => ({ kind, window, who }))),
  )
  const times = (i: number) => (i % 3) + 1
  await Promise.all(
    cells.map(async ({ kind, window, who }, i) => {
      for (let n = 0; n < times(i); n++) await counters.countUpTo(kind, window, who, 10)
    }),
  )
  const read = await Promise.all(cells.map(({ kind, window, who }) => counters.count(kind, window, who)))
  t.same(
    read,
    cells.map((_, i) => times(i)),
    `each of ${cells.length} counts reads back as made`,
  )
  t.equal(await counters.count('rate', windowOf('rate'), 'never counted'), 0)
})

check('a count no longer wanted is not made', async (t, { counters }) => {
  const window = windowOf('signup-email')
  let asked = 0
  const wanted = (answer: boolean) => () => (asked++, answer)
  t.equal(await counters.countUpTo('signup-email', window, 'jan@example.pl', 3, wanted(false)), 'unwanted')
  t.equal(await counters.count('signup-email', window, 'jan@example.pl'), 0)
  t.equal(await counters.countUpTo('signup-email', window, 'jan@example.pl', 3, wanted(true)), 1)
  t.equal(asked, 2, 'asked once a count')
})

check('old windows are dropped; the current ones are kept', async (t, { counters, expiry }) => {
  // The current minute must stay current from the counts to the checks.
  await awayFromMinuteEnd(5)
  const now = Date.now()
  for (const kind of KINDS) {
    await counters.countUpTo(kind, windowOf(kind) - 2, 'old', 10)
    await counters.countUpTo(kind, windowOf(kind), 'current', 10)
  }
  await counters.sweep(now)
  for (const kind of KINDS)
    t.equal(await counters.count(kind, windowOf(kind), 'current'), 1, `${kind}: the current window is kept`)
  if (expiry === undefined) {
    for (const kind of KINDS)
      t.equal(await counters.count(kind, windowOf(kind) - 2, 'old'), 0, `${kind}: a passed window is swept`)
    return
  }
  for (const kind of KINDS) {
    const length = COUNTER_WINDOW_MS[kind]
    const left = (windowOf(kind) + 1) * length - Date.now()
    const current = await expiry.ttl(kind, windowOf(kind), 'current')
    t.ok(
      current >= left && current <= length + expiry.margin,
      `${kind}: the current count expires after its window ends, within the margin (${current} ms)`,
    )
    const old = await expiry.ttl(kind, windowOf(kind) - 2, 'old')
    t.ok(old > 0 && old <= expiry.margin, `${kind}: a passed window's count expires within the margin (${old} ms)`)
  }
})

check('a probe writes', async (t, { counters }) => {
  await counters.probe()
  t.equal(counters.health.failingSince, undefined)
  t.notOk(counters.health.isBroken())
})
