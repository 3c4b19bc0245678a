import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import type { Mail } from '../ledger/types.js'
import { ENGINES, openTestLedger } from './ledger-engines.js'

const KEY_MAIL: Mail = {
  kind: 'key',
  to: 'anna@example.pl',
  subject: 'Your carmarket API key',
  text: 'Your API key is cm_SECRETSECRETSECRETSECRETSECRETSECRETSECRET1',
}

for (const engine of ENGINES) {
  /**
   * That no row holds the key mail's text. Only PostgreSQL's rows are read one by one: LMDB's file keeps the bytes of
   * a record deleted in its free pages until they are written again, as a database's dead rows until a vacuum.
   */
  const keptNot = async (t: Test, location: string, message: string) => {
    if (engine.name === 'postgresql') t.notOk((await engine.stored(location)).includes('SECRETSECRET'), message)
  }

  t.test(`${engine.name}: the mail queue`, async (t) => {
    const location = await engine.fresh(t)
    const ledger = await openTestLedger(t, location)
    const queue = ledger.mail
    const later = Date.now() + 60_000

    t.test('a message is taken by one sender at a time, until its lease ends', async (t) => {
      const id = await queue.enqueue(KEY_MAIL, later)
      const [a, b] = await Promise.all([queue.claim('a', 1_000, 10), queue.claim('b', 1_000, 10)])
      t.same(
        [...a!, ...b!].map((m) => m.id),
        [id],
        'two senders asking at once: one of them gets it',
      )
      const taken = [...a!, ...b!][0]!
      t.same(
        { kind: taken.kind, to: taken.to, subject: taken.subject, text: taken.text, attempts: taken.attempts },
        { ...KEY_MAIL, attempts: 0 },
      )
      t.equal(taken.give_up_at, later)
      t.same(await queue.claim('c', 1_000, 10), [], 'nobody else while the lease runs')
      await sleep(1_100)
      const again = await queue.claim('c', 1_000, 10)
      t.same(
        again.map((m) => m.id),
        [id],
        'a lease that ended (its sender died) lets another take it',
      )
      const holder = a!.length > 0 ? 'a' : 'b'
      await queue.sent(id, holder)
      t.equal((await queue.depth()).queued, 1, 'the sender that lost its lease cannot settle it')
      await queue.sent(id, 'c')
      t.same(await queue.depth(), { queued: 0, failed: 0 }, 'the holder can: sent, it leaves the queue')
      t.same(await queue.list(false, 10), [], 'and nothing of it is listed')
      await keptNot(t, location, 'and no row keeps its text')
    })

    t.test('a failed attempt waits its turn; a message given up keeps no text', async (t) => {
      const id = await queue.enqueue(KEY_MAIL, later)
      await queue.claim('a', 60_000, 10)
      await queue.failed(id, 'a', '421 try later', 400)
      t.same(await queue.claim('b', 60_000, 10), [], 'not due before its wait is over')
      const listed = await queue.list(false, 10)
      t.same(
        listed.map((m) => [m.state, m.kind, m.to, m.attempts, m.last_error]),
        [['queued', 'key', 'anna@example.pl', 1, '421 try later']],
      )
      await sleep(500)
      const [retry] = await queue.claim('b', 60_000, 10)
      t.equal(retry?.attempts, 1, 'then taken again, its attempts counted')
      await queue.failed(id, 'b', '550 no such user', undefined)
      t.same(await queue.claim('c', 0, 10), [], 'given up: never taken again')
      const failed = await queue.list(true, 10)
      t.same(
        failed.map((m) => [m.id, m.state, m.attempts, m.last_error]),
        [[id, 'failed', 2, '550 no such user']],
      )
      t.same(await queue.depth(), { queued: 0, failed: 1 })
      await keptNot(t, location, 'its text is gone')
    })

    t.test('a claim takes at most its limit, the oldest first', async (t) => {
      const ids = []
      for (let i = 0; i < 5; i++)
        ids.push(await queue.enqueue({ ...KEY_MAIL, kind: 'code', to: `u${i}@example.pl` }, later))
      const first = await queue.claim('a', 60_000, 3)
      t.same(
        first.map((m) => m.id),
        ids.slice(0, 3),
      )
      const rest = await queue.claim('b', 60_000, 3)
      t.same(
        rest.map((m) => m.id),
        ids.slice(3),
      )
      t.same(
        (await queue.list(false, 100)).filter((m) => m.state === 'queued').map((m) => m.id),
        [...ids].reverse(),
        'listed newest first',
      )
    })
  })
}
