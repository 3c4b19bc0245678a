import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { LEDGER_FILE, LmdbLedger } from '../ledger/lmdb-ledger.js'
import type { Call } from '../ledger/types.js'
import { freshDir, otherKey } from './support.js'

const call = (endpoint = 'valuation'): Call => ({ endpoint, make: 'Volkswagen', model: 'Golf', year: 2017 })

function openLedger(t: Test) {
  const dir = freshDir(t)
  const ledger = LmdbLedger.open(dir)
  t.teardown(() => ledger.close())
  return { ledger, dir }
}

t.test('an account: its key, its bonus, its history', async (t) => {
  const { ledger, dir } = openLedger(t)
  const { account, key } = await ledger.createAccount('  Jan.Kowalski@Example.PL ', 50, 'signup_bonus', null)
  t.match(key, /^cm_[A-Za-z0-9_-]{43}$/)
  t.equal(account.email, 'jan.kowalski@example.pl')
  t.same([account.status, account.balance, account.granted, account.used, account.key_prefix], ['active', 50, 50, 0, key.slice(0, 10)])
  t.same((await ledger.authenticate(key))?.id, account.id)
  t.equal(await ledger.authenticate(otherKey(key)), undefined)
  t.equal((await ledger.accountByEmail('JAN.kowalski@example.pl'))?.id, account.id)
  const [bonus] = await ledger.entries(account.id, 50)
  t.same([bonus?.type, bonus?.credits, bonus?.balance_after], ['signup_bonus', 50, 50])
  await t.rejects(ledger.createAccount('jan.kowalski@example.pl', 50, 'signup_bonus', null), { code: 'email_taken' })
  await t.rejects(ledger.createAccount('not an address', 50, 'signup_bonus', null), { code: 'invalid_email' })
  t.notOk(readFileSync(join(dir, LEDGER_FILE)).includes(key), 'the key itself is never stored')
})

t.test('charges, refusals and failures keep balance = sum of entries', async (t) => {
  const { ledger } = openLedger(t)
  const { account } = await ledger.createAccount('a@example.pl', 20, 'grant', 'order-1')
  const first = await ledger.charge(account.id, 8, call())
  t.same(first.ok && [first.balance, first.entry.credits, first.entry.balance_after, first.entry.endpoint], [12, -8, 12, 'valuation'])
  t.same(await ledger.charge(account.id, 12, call('valuation-factors')), { ok: true, balance: 0, entry: (await ledger.entries(account.id, 1))[0] })
  t.same(await ledger.charge(account.id, 6, call('liquidity')), { ok: false, reason: 'insufficient_credits', balance: 0 })
  await ledger.recordFailure(account.id, call(), 'INSUFFICIENT_DATA')
  const granted = await ledger.grant(account.id, 100, 'order-2')
  t.same([granted.type, granted.credits, granted.balance_after, granted.reference], ['grant', 100, 100, 'order-2'])
  const history = await ledger.entries(account.id, 200)
  t.same(
    history.map((e) => [e.type, e.credits, e.status]),
    [
      ['grant', 100, 'success'],
      ['failed_call', 0, 'INSUFFICIENT_DATA'],
      ['charge', -12, 'success'],
      ['charge', -8, 'success'],
      ['grant', 20, 'success'],
    ],
    'newest first',
  )
  t.equal((await ledger.entries(account.id, 2)).length, 2)
  const now = (await ledger.account(account.id))!
  t.equal(now.balance, history.reduce((sum, e) => sum + e.credits, 0), 'balance = sum of entries')
  t.same([now.granted, now.used], [120, 20])
})

t.test('a disabled account and a replaced key are refused from the next call on', async (t) => {
  const { ledger } = openLedger(t)
  const { account, key } = await ledger.createAccount('b@example.pl', 50, 'signup_bonus', null)
  await ledger.setStatus(account.id, 'disabled')
  t.same(await ledger.charge(account.id, 8, call()), { ok: false, reason: 'disabled', balance: 50 })
  t.equal((await ledger.authenticate(key))?.status, 'disabled')
  await ledger.setStatus(account.id, 'active')
  const replacement = await ledger.issueKey(account.id)
  t.equal(await ledger.authenticate(key), undefined, 'the old key no longer works')
  t.equal((await ledger.authenticate(replacement))?.id, account.id)
  t.equal((await ledger.account(account.id))?.key_prefix, replacement.slice(0, 10))
  await t.rejects(ledger.grant('acc_nope', 5, 'x'), { code: 'unknown_account' })
})

t.test('concurrent charges never overspend: a balance for exactly 37 calls', async (t) => {
  const { ledger } = openLedger(t)
  const { account } = await ledger.createAccount('c@example.pl', 37 * 8 + 5, 'grant', null)
  const results = await Promise.all(Array.from({ length: 200 }, () => ledger.charge(account.id, 8, call())))
  t.equal(results.filter((r) => r.ok).length, 37)
  t.equal(results.filter((r) => !r.ok && r.reason === 'insufficient_credits').length, 163)
  t.equal((await ledger.account(account.id))?.balance, 5)
  const history = await ledger.entries(account.id, 200)
  t.equal(history.reduce((sum, e) => sum + e.credits, 0), 5)
  t.same(new Set(results.filter((r) => r.ok).map((r) => (r.ok ? r.balance : -1))).size, 37, 'each success saw its own balance')
})
