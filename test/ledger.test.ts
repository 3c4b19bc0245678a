import t, { type Test } from 'tap'
import { keyHash } from '../ledger/keys.js'
import { FAILED_CALL_ENTRIES_PER_DAY, type Call, type Ledger } from '../ledger/types.js'
import { ENGINES, charge, openTestLedger } from './ledger-engines.js'
import { otherKey } from './support.js'

const call = (endpoint = 'valuation', year: number | null = 2017): Call => ({
  endpoint,
  make: 'Volkswagen',
  model: 'Golf',
  year,
})

/** The account's whole history, and whether it adds up: balance = sum of entries, entries = the entry count. */
async function history(ledger: Ledger, id: string) {
  const account = (await ledger.account(id))!
  const entries = await ledger.entries(id, 100_000)
  return { account, entries, sum: entries.reduce((sum, e) => sum + e.credits, 0) }
}

for (const engine of ENGINES) {
  t.test(`${engine.name} ledger`, async (t) => {
    const fresh = async (t: Test) => {
      const location = await engine.fresh(t)
      return { ledger: await openTestLedger(t, location), location }
    }

    t.test('an account: its key, its bonus, its history', async (t) => {
      const { ledger, location } = await fresh(t)
      const { account, key } = await ledger.createAccount('  Jan.Kowalski@Example.PL ', 50, 'signup_bonus', null)
      t.match(key, /^cm_[A-Za-z0-9_-]{43}$/)
      t.equal(account.email, 'jan.kowalski@example.pl')
      t.same(
        [account.status, account.balance, account.granted, account.used, account.key_prefix, account.entries],
        ['active', 50, 50, 0, key.slice(0, 10), 1],
      )
      t.same(await ledger.account(account.id), account, 'read back as created')
      t.same((await ledger.authenticate(key))?.id, account.id)
      t.equal(await ledger.authenticate(otherKey(key)), undefined)
      t.equal((await ledger.accountByEmail('JAN.kowalski@example.pl'))?.id, account.id)
      const [bonus] = await ledger.entries(account.id, 50)
      t.same(
        [bonus?.id, bonus?.type, bonus?.credits, bonus?.balance_after, bonus?.count],
        [`${account.id}-0`, 'signup_bonus', 50, 50, 1],
      )
      await t.rejects(ledger.createAccount('jan.kowalski@example.pl', 50, 'signup_bonus', null), {
        code: 'email_taken',
      })
      await t.rejects(ledger.createAccount('not an address', 50, 'signup_bonus', null), { code: 'invalid_email' })
      await t.rejects(ledger.createAccount('x@example.pl', -1, 'grant', null), { code: 'invalid_credits' })
      const stored = await engine.stored(location)
      t.ok(stored.includes(keyHash(key)), 'what is kept of the key is its hash')
      t.notOk(stored.includes(key), 'the key itself is never stored')
    })

    t.test('one account per mailbox, whatever the spelling', async (t) => {
      const { ledger } = await fresh(t)
      const { account } = await ledger.createAccount('Anna.Nowak+cars@GoogleMail.com', 10, 'grant', 'order-7')
      await t.rejects(ledger.createAccount('annanowak@gmail.com', 10, 'grant', null), { code: 'email_taken' })
      t.equal((await ledger.accountByEmail('a.n.n.a.nowak@gmail.com'))?.id, account.id)
      t.equal(await ledger.accountByEmail('someone.else@gmail.com'), undefined)
      t.equal(await ledger.accountByEmail('not an address'), undefined)
      t.equal(await ledger.account('acc_nope'), undefined)
      t.same(await ledger.entries('acc_nope', 10), [])
    })

    t.test('charges, refusals and failures keep balance = sum of entries', async (t) => {
      const { ledger } = await fresh(t)
      const { account } = await ledger.createAccount('a@example.pl', 20, 'grant', 'order-1')
      const first = await charge(ledger, account.id, 8, call())
      t.same(first.ok && [first.balance, first.entry.credits, first.entry.balance_after, first.entry.endpoint], [
        12,
        -8,
        12,
        'valuation',
      ])
      t.same(await charge(ledger, account.id, 12, call('valuation-factors')), {
        ok: true,
        balance: 0,
        entry: (await ledger.entries(account.id, 1))[0],
      })
      t.same(await charge(ledger, account.id, 6, call('liquidity')), {
        ok: false,
        reason: 'insufficient_credits',
        balance: 0,
      })
      await ledger.recordFailure(account.id, call(), 'INSUFFICIENT_DATA')
      const granted = await ledger.grant(account.id, 100, 'order-2')
      t.same([granted.type, granted.credits, granted.balance_after, granted.reference], ['grant', 100, 100, 'order-2'])
      t.same(granted, (await ledger.entries(account.id, 1))[0], 'the grant is the newest entry')
      const { account: now, entries, sum } = await history(ledger, account.id)
      t.same(
        entries.map((e) => [e.type, e.credits, e.status]),
        [
          ['grant', 100, 'success'],
          ['failed_call', 0, 'INSUFFICIENT_DATA'],
          ['charge', -12, 'success'],
          ['charge', -8, 'success'],
          ['grant', 20, 'success'],
        ],
        'newest first',
      )
      t.same(
        entries.map((e) => e.id),
        [4, 3, 2, 1, 0].map((seq) => `${account.id}-${seq}`),
      )
      t.equal((await ledger.entries(account.id, 2)).length, 2)
      t.equal(now.balance, sum, 'balance = sum of entries')
      t.same([now.granted, now.used, now.entries], [120, 20, 5])
      t.same(await charge(ledger, 'acc_nope', 8, call()), { ok: false, reason: 'unknown_account', balance: 0 })
      await t.rejects(ledger.grant('acc_nope', 5, 'x'), { code: 'unknown_account' })
      await t.rejects(ledger.grant(account.id, 0, 'x'), { code: 'invalid_credits' })
      await ledger.recordFailure('acc_nope', call(), 'INVALID_PARAMETER')
    })

    t.test(
      'a client gone before the debit is charged nothing; a refusal for another reason says so first',
      async (t) => {
        const { ledger } = await fresh(t)
        const { account } = await ledger.createAccount('gone@example.pl', 20, 'grant', null)
        t.same(await charge(ledger, account.id, 8, call(), () => false), {
          ok: false,
          reason: 'not_wanted',
          balance: 20,
        })
        t.same(await charge(ledger, account.id, 30, call(), () => false), {
          ok: false,
          reason: 'insufficient_credits',
          balance: 20,
        })
        await ledger.setStatus(account.id, 'disabled')
        t.same(await charge(ledger, account.id, 8, call(), () => false), { ok: false, reason: 'disabled', balance: 20 })
        const { account: now, entries } = await history(ledger, account.id)
        t.same([now.balance, now.used, entries.length], [20, 0, 1], 'nothing taken, nothing written')
      },
    )

    t.test('a disabled account and a replaced key are refused from the next call on', async (t) => {
      const { ledger } = await fresh(t)
      const { account, key } = await ledger.createAccount('b@example.pl', 50, 'signup_bonus', null)
      t.equal((await ledger.setStatus(account.id, 'disabled')).status, 'disabled')
      t.same(await charge(ledger, account.id, 8, call()), { ok: false, reason: 'disabled', balance: 50 })
      t.equal((await ledger.authenticate(key))?.status, 'disabled')
      await ledger.setStatus(account.id, 'active')
      t.equal((await charge(ledger, account.id, 8, call())).ok, true, 'enabled again: charged')
      const replacement = await ledger.issueKey(account.id)
      t.equal(await ledger.authenticate(key), undefined, 'the old key no longer works')
      t.equal((await ledger.authenticate(replacement))?.id, account.id)
      t.equal((await ledger.account(account.id))?.key_prefix, replacement.slice(0, 10))
      const third = await ledger.issueKey(account.id)
      t.equal(await ledger.authenticate(replacement), undefined, 'nor does the one before')
      t.equal((await ledger.authenticate(third))?.id, account.id)
      await t.rejects(ledger.setStatus('acc_nope', 'disabled'), { code: 'unknown_account' })
      await t.rejects(ledger.issueKey('acc_nope'), { code: 'unknown_account' })
    })

    t.test(
      'keys looked up at once, the same one twice among them, each find their own account, and replaced ones none',
      async (t) => {
        const { ledger } = await fresh(t)
        const created = await Promise.all(
          Array.from({ length: 20 }, (_, i) => ledger.createAccount(`keys${i}@example.pl`, i, 'grant', null)),
        )
        const replaced = await Promise.all(created.slice(0, 10).map(({ account }) => ledger.issueKey(account.id)))
        const asked = [...created.map(({ key }) => key), ...replaced, ...replaced, otherKey(replaced[0]!)]
        const found = await Promise.all(asked.map((key) => ledger.authenticate(key)))
        t.same(
          found.map((account) => account?.balance),
          [
            ...Array.from({ length: 10 }, () => undefined),
            ...Array.from({ length: 10 }, (_, i) => 10 + i),
            ...Array.from({ length: 20 }, (_, i) => i % 10),
            undefined,
          ],
        )
      },
    )

    t.test('key delivery: an account whose key is still to be e-mailed says so until it has been', async (t) => {
      const { ledger } = await fresh(t)
      const { account, key } = await ledger.createAccount('mail@example.pl', 50, 'signup_bonus', null, false)
      t.equal(account.key_delivered, false)
      t.equal((await ledger.authenticate(key))?.key_delivered, false)
      await ledger.keyDelivered(account.id)
      t.equal((await ledger.account(account.id))?.key_delivered, true)
      const undelivered = await ledger.issueKey(account.id, false)
      t.equal((await ledger.authenticate(undelivered))?.key_delivered, false, 'a new key not yet e-mailed')
      await ledger.issueKey(account.id)
      t.equal((await ledger.account(account.id))?.key_delivered, true)
      await t.rejects(ledger.keyDelivered('acc_nope'), { code: 'unknown_account' })
    })

    t.test('failures: the same one again is counted on its entry; past a day’s entries every one is', async (t) => {
      const { ledger } = await fresh(t)
      const { account } = await ledger.createAccount('fails@example.pl', 30, 'grant', null)
      for (let i = 0; i < 3; i++) await ledger.recordFailure(account.id, call(), 'INVALID_PARAMETER')
      await ledger.recordFailure(account.id, call(), 'INSUFFICIENT_DATA')
      await ledger.recordFailure(account.id, call('liquidity'), 'INSUFFICIENT_DATA')
      await ledger.recordFailure(account.id, call('liquidity'), 'INSUFFICIENT_DATA')
      await charge(ledger, account.id, 8, call())
      await ledger.recordFailure(account.id, call('liquidity'), 'INSUFFICIENT_DATA')
      const before = await history(ledger, account.id)
      t.same(
        before.entries.map((e) => [e.type, e.endpoint, e.status, e.count]),
        [
          ['failed_call', 'liquidity', 'INSUFFICIENT_DATA', 1],
          ['charge', 'valuation', 'success', 1],
          ['failed_call', 'liquidity', 'INSUFFICIENT_DATA', 2],
          ['failed_call', 'valuation', 'INSUFFICIENT_DATA', 1],
          ['failed_call', 'valuation', 'INVALID_PARAMETER', 3],
          ['grant', null, 'success', 1],
        ],
        'a failure repeating the entry before it is counted there; after another entry it has one of its own',
      )

      const stored = before.entries.filter((e) => e.type === 'failed_call')
      const counted = stored.reduce((sum, e) => sum + e.count, 0)
      for (let year = 1000; stored.length + year - 1000 < FAILED_CALL_ENTRIES_PER_DAY; year++)
        await ledger.recordFailure(account.id, call('regional', year), 'INVALID_PARAMETER')
      for (let year = 0; year < 25; year++)
        await ledger.recordFailure(account.id, call('regional', year), 'INVALID_PARAMETER')
      await ledger.recordFailure(account.id, call(), 'INVALID_PARAMETER')
      const after = await history(ledger, account.id)
      const failures = after.entries.filter((e) => e.type === 'failed_call')
      t.equal(failures.length, FAILED_CALL_ENTRIES_PER_DAY, 'no more failure entries than a day holds')
      t.equal(failures[0]!.count, 27, 'past them, every failure counts on the last one')
      t.equal(
        failures.reduce((sum, e) => sum + e.count, 0),
        counted + (FAILED_CALL_ENTRIES_PER_DAY - stored.length) + 26,
        'every failed call is counted once',
      )
      t.ok(
        failures.every((e) => e.credits === 0),
        'none moves the balance',
      )
      t.same([after.account.balance, after.sum, after.account.entries], [22, 22, after.entries.length])
    })

    t.test('a call’s text is recorded whatever it holds', async (t) => {
      const { ledger } = await fresh(t)
      const { account } = await ledger.createAccount('odd@example.pl', 30, 'grant', null)
      const odd: Call = { endpoint: 'valuation', make: 'V\u0000W', model: 'Gölf 🚗', year: 1e21 }
      t.equal((await charge(ledger, account.id, 8, odd)).ok, true)
      await ledger.recordFailure(account.id, odd, 'INVALID_PARAMETER')
      await ledger.recordFailure(account.id, odd, 'INVALID_PARAMETER')
      const [failure, charged] = await ledger.entries(account.id, 2)
      t.same(
        [failure?.model, failure?.year, failure?.count, charged?.model, charged?.year],
        ['Gölf 🚗', 1e21, 2, 'Gölf 🚗', 1e21],
      )
    })

    t.test('one-time codes: used up when right, counted when wrong, gone when exhausted or expired', async (t) => {
      const { ledger } = await fresh(t)
      const now = Date.now()
      const [right, wrong] = ['a'.repeat(64), 'b'.repeat(64)]
      t.equal(await ledger.checkCode('m1', right, now, 3), 'none')
      await ledger.putCode('m1', right, now + 60_000)
      t.equal(await ledger.checkCode('m1', wrong, now, 3), 'wrong')
      t.equal(await ledger.checkCode('m1', right, now, 3), 'ok')
      t.equal(await ledger.checkCode('m1', right, now, 3), 'none', 'a right code is used up')
      await ledger.putCode('m2', right, now + 60_000)
      t.equal(await ledger.checkCode('m2', wrong, now, 3), 'wrong')
      t.equal(await ledger.checkCode('m2', wrong, now, 3), 'wrong')
      t.equal(await ledger.checkCode('m2', wrong, now, 3), 'exhausted')
      t.equal(await ledger.checkCode('m2', right, now, 3), 'none', 'an exhausted code is gone')
      await ledger.putCode('m3', right, now + 60_000)
      t.equal(await ledger.checkCode('m3', wrong, now, 2), 'wrong')
      await ledger.putCode('m3', wrong, now + 60_000)
      t.equal(
        await ledger.checkCode('m3', right, now, 2),
        'wrong',
        'a new code replaces the old one, with its attempts afresh',
      )
      t.equal(await ledger.checkCode('m3', right, now, 2), 'exhausted')
      await ledger.putCode('m4', right, now + 60_000)
      t.equal(await ledger.checkCode('m4', right, now + 60_000, 3), 'expired')
      t.equal(await ledger.checkCode('m4', right, now, 3), 'none')
    })

    t.test('writes are counted once committed; a probe commits', async (t) => {
      const { ledger } = await fresh(t)
      await ledger.probe()
      const { account } = await ledger.createAccount('count@example.pl', 10, 'grant', null)
      await ledger.grant(account.id, 5, 'x')
      await charge(ledger, account.id, 8, call())
      await ledger.setStatus(account.id, 'active')
      t.same([ledger.commits.account, ledger.commits.grant, ledger.commits.status], [1, 1, 1])
      t.ok(ledger.commits.charge >= 1)
      t.equal(ledger.health.failingSince, undefined)
      t.equal(ledger.health.isBroken(), false)
    })

    t.test('concurrent charges never overspend: 300 at once, a balance for exactly 37', async (t) => {
      const { ledger } = await fresh(t)
      const { account } = await ledger.createAccount('c@example.pl', 37 * 8 + 5, 'grant', null)
      const results = await Promise.all(Array.from({ length: 300 }, () => charge(ledger, account.id, 8, call())))
      t.equal(results.filter((r) => r.ok).length, 37)
      t.equal(results.filter((r) => !r.ok && r.reason === 'insufficient_credits').length, 263)
      t.ok(
        results.every((r) => r.balance >= 0),
        'no balance seen below zero',
      )
      const { account: final, entries, sum } = await history(ledger, account.id)
      t.equal(final.balance, 5, 'the final balance is exact')
      t.equal(sum, 5, 'balance = sum of entries')
      t.same([final.used, final.entries, entries.length], [37 * 8, 38, 38])
      const balances = results.flatMap((r) => (r.ok ? [r.balance] : []))
      t.same(
        balances.sort((a, b) => a - b),
        Array.from({ length: 37 }, (_, i) => 5 + 8 * i),
        'each success saw its own balance',
      )
    })

    t.test('concurrent charges on many accounts at once, with grants and failures among them', async (t) => {
      const { ledger } = await fresh(t)
      const accounts = await Promise.all(
        Array.from(
          { length: 12 },
          async (_, i) => (await ledger.createAccount(`many${i}@example.pl`, 10 * 8, 'grant', null)).account.id,
        ),
      )
      const work = Array.from({ length: 600 }, (_, i) => {
        const id = accounts[i % accounts.length]!
        if (i % 50 === 7) return ledger.grant(id, 8, 'top-up').then(() => 'grant')
        if (i % 30 === 3)
          return ledger.recordFailure(id, call('regional', i), 'INVALID_PARAMETER').then(() => 'failure')
        return charge(ledger, id, 8, call()).then((r) => (r.ok ? 'charged' : r.reason))
      })
      const outcomes = await Promise.all(work)
      const charged = outcomes.filter((o) => o === 'charged').length
      const granted = accounts.length * 10 * 8 + outcomes.filter((o) => o === 'grant').length * 8
      let left = 0
      for (const id of accounts) {
        const { account, entries, sum } = await history(ledger, id)
        t.same(
          [account.balance >= 0, sum, account.entries],
          [true, account.balance, entries.length],
          `${id}: balance = sum of entries`,
        )
        left += account.balance
      }
      t.equal(charged * 8 + left, granted, 'every credit granted is spent or left, none twice')
      t.ok(left < accounts.length * 8, 'and what is left pays for no more calls')
    })
  })
}
