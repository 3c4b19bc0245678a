import t from 'tap'
import { openCounters } from '../cli/engines.js'
import { COUNTER_WINDOW_MS } from '../ledger/types.js'
import { ENGINES } from './ledger-engines.js'

for (const engine of ENGINES) {
  t.test(`${engine.name} counters`, async (t) => {
    const counters = await openCounters(await engine.fresh(t))
    t.teardown(() => counters.close())

    t.test('counts up to a limit, each who and window on its own', async (t) => {
      t.equal(await counters.count('demo', 7, '198.51.100.1'), 0)
      t.same(
        [
          await counters.countUpTo('demo', 7, '198.51.100.1', 2),
          await counters.countUpTo('demo', 7, '198.51.100.1', 2),
          await counters.countUpTo('demo', 7, '198.51.100.1', 2),
        ],
        [1, 2, 'limit'],
      )
      t.equal(await counters.count('demo', 7, '198.51.100.1'), 2, 'a refusal counts nothing')
      t.equal(await counters.countUpTo('demo', 8, '198.51.100.1', 2), 1, 'another window')
      t.equal(await counters.countUpTo('rate', 7, '198.51.100.1', 2), 1, 'another kind')
      t.equal(await counters.countUpTo('demo', 7, '198.51.100.2', 2), 1, 'another client')
      t.equal(await counters.countUpTo('demo', 9, '198.51.100.1', 0), 'limit', 'a limit of 0 counts nothing')
      t.equal(await counters.count('demo', 9, '198.51.100.1'), 0)
    })

    t.test('a count no longer wanted is not made', async (t) => {
      t.equal(await counters.countUpTo('signup-ip', 3, '203.0.113.5', 5, () => false), 'unwanted')
      t.equal(await counters.count('signup-ip', 3, '203.0.113.5'), 0)
    })

    t.test('concurrent counts never pass the limit', async (t) => {
      const counted = await Promise.all(Array.from({ length: 200 }, () => counters.countUpTo('rate', 11, '192.0.2.9', 37)))
      t.same(
        counted.filter((c) => c !== 'limit').sort((a, b) => Number(a) - Number(b)),
        Array.from({ length: 37 }, (_, i) => i + 1),
        'exactly 37 counted, each number once',
      )
      t.equal(await counters.count('rate', 11, '192.0.2.9'), 37)
    })

    t.test('a sweep drops the windows that have passed, and only those', async (t) => {
      const now = Date.UTC(2026, 10, 25, 12, 30)
      const minute = Math.floor(now / COUNTER_WINDOW_MS.rate)
      const day = Math.floor(now / COUNTER_WINDOW_MS.demo)
      await counters.countUpTo('rate', minute - 1, 'old', 10)
      await counters.countUpTo('rate', minute, 'current', 10)
      await counters.countUpTo('demo', day - 1, 'old', 10)
      await counters.countUpTo('demo', day, 'current', 10)
      await counters.probe()
      await counters.sweep(now)
      t.same(
        [await counters.count('rate', minute - 1, 'old'), await counters.count('rate', minute, 'current'), await counters.count('demo', day - 1, 'old'), await counters.count('demo', day, 'current')],
        [0, 1, 0, 1],
      )
      t.equal(counters.health.failingSince, undefined)
    })
  })
}
