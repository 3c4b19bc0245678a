import t from 'tap'
import { paymentReference } from '../ledger/payment-terms.js'
import type { PaidSession, PaymentReversal } from '../ledger/types.js'
import { ENGINES, balanceAddsUp, charge, openTestLedger } from './ledger-engines.js'

const GOLF = { endpoint: '/v1/market/valuation', make: 'VW', model: 'Golf', year: 2017 }

function session(id: string, fields: Partial<PaidSession> = {}): PaidSession {
  return {
    session_id: id,
    payment_intent: `pi_${id}`,
    credits: 5_000,
    amount: 4_900,
    currency: 'usd',
    account_id: null,
    email: 'buyer@example.pl',
    ...fields,
  }
}

for (const engine of ENGINES) {
  t.test(`${engine.name}: payments grant once per session, and refunds take back what is left`, async (t) => {
    const ledger = await openTestLedger(t, await engine.fresh(t))

    t.test('a new buyer gets an account with the credits, and a key to e-mail', async (t) => {
      const granted = await ledger.payments.grantPaid(session('cs_new', { email: 'New.Buyer@Example.PL' }))
      if (granted.outcome !== 'granted') throw new Error('not granted')
      t.match(granted.key, /^cm_/, 'a key, for the e-mail')
      t.same(
        [granted.account.email, granted.account.balance, granted.account.key_delivered],
        ['new.buyer@example.pl', 5_000, false],
      )
      t.same((await ledger.authenticate(granted.key!))?.id, granted.account.id, 'the key works')
      const [first] = await ledger.entries(granted.account.id, 10)
      t.same([first!.type, first!.credits, first!.reference], ['grant', 5_000, paymentReference('cs_new')])
      const again = await ledger.payments.grantPaid(session('cs_new', { email: 'new.buyer@example.pl' }))
      t.equal(again.outcome, 'already', 'the same session again grants nothing')
      t.equal((await ledger.account(granted.account.id))!.balance, 5_000)
      t.same(
        (await ledger.payments.grantsOf(again.payment)).map((e) => e.reference),
        [paymentReference('cs_new')],
      )
    })

    t.test('a session delivered ten times at once is granted once', async (t) => {
      const { account } = await ledger.createAccount('many@example.pl', 0, 'grant', null)
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () => ledger.payments.grantPaid(session('cs_many', { account_id: account.id }))),
      )
      t.same(outcomes.map((o) => o.outcome).sort(), [
        'already',
        'already',
        'already',
        'already',
        'already',
        'already',
        'already',
        'already',
        'already',
        'granted',
      ])
      await balanceAddsUp(t, ledger, account.id, 5_000)
    })

    t.test('a new buyer whose session is delivered ten times at once gets one account and one grant', async (t) => {
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () => ledger.payments.grantPaid(session('cs_race', { email: 'race@example.pl' }))),
      )
      t.equal(outcomes.filter((o) => o.outcome === 'granted').length, 1)
      const account = (await ledger.accountByEmail('race@example.pl'))!
      await balanceAddsUp(t, ledger, account.id, 5_000)
    })

    t.test('an existing customer buying by e-mail is topped up, with no new key', async (t) => {
      const { account } = await ledger.createAccount('known@example.pl', 50, 'signup_bonus', null)
      const granted = await ledger.payments.grantPaid(session('cs_known', { email: 'KNOWN@example.pl' }))
      t.same(granted.outcome === 'granted' && [granted.account.id, granted.key], [account.id, null])
      await balanceAddsUp(t, ledger, account.id, 5_050)
    })

    t.test('refunds and disputes take back in proportion, never below zero, the rest recorded', async (t) => {
      const { account } = await ledger.createAccount('refund@example.pl', 0, 'grant', null)
      await ledger.payments.grantPaid(session('cs_refund', { account_id: account.id }))
      for (let i = 0; i < 500; i++) await charge(ledger, account.id, 8, GOLF)
      // 5,000 - 4,000 spent = 1,000 left.
      const half = (await ledger.payments.reverse('pi_cs_refund', { refunded: 2_450 })) as PaymentReversal
      t.same([half!.taken, half!.unrecovered], [1_000, 1_500], 'half refunded: 2,500 due, 1,000 could be taken')
      t.equal((await ledger.account(account.id))!.balance, 0)
      const replay = (await ledger.payments.reverse('pi_cs_refund', { refunded: 2_450 })) as PaymentReversal
      t.same([replay!.taken, replay!.unrecovered], [0, 0], 'the same refund told again takes nothing')
      await ledger.grant(account.id, 300, 'support')
      const disputed = (await ledger.payments.reverse('pi_cs_refund', { disputed: 4_900 })) as PaymentReversal
      t.same([disputed!.taken, disputed!.unrecovered], [300, 2_200], 'a dispute of the whole: the rest is due')
      t.same(
        [
          disputed!.payment.reversed,
          disputed!.payment.unrecovered,
          disputed!.payment.refunded,
          disputed!.payment.disputed,
        ],
        [1_300, 3_700, 2_450, 4_900],
      )
      t.equal(await ledger.payments.reverse('pi_unknown', { refunded: 100 }), 'pending', 'a payment not granted (yet)')
      const entries = await ledger.entries(account.id, 1_000)
      t.same(
        entries.filter((e) => e.type === 'reversal').map((e) => e.credits),
        [-300, -1_000],
      )
      await balanceAddsUp(t, ledger, account.id, 0)
      const me = (await ledger.account(account.id))!
      t.equal(me.granted - me.used, me.balance, 'granted (net of reversals) less used is the balance')
    })

    t.test('a refund told before its grant is taken back in the grant, and told again, not twice', async (t) => {
      t.equal(await ledger.payments.reverse('pi_cs_early', { refunded: 4_900 }), 'pending')
      t.equal(
        await ledger.payments.reverse('pi_cs_early', { refunded: 2_000 }),
        'pending',
        'a lower total changes nothing',
      )
      const granted = await ledger.payments.grantPaid(session('cs_early', { email: 'early@example.pl' }))
      if (granted.outcome !== 'granted') throw new Error('not granted')
      t.same(
        [granted.account.balance, granted.payment.reversed, granted.payment.refunded],
        [0, 5_000, 4_900],
        'granted and taken back in one transaction',
      )
      const again = (await ledger.payments.reverse('pi_cs_early', { refunded: 4_900 })) as PaymentReversal
      t.same([again.taken, again.unrecovered], [0, 0])
      await balanceAddsUp(t, ledger, granted.account.id, 0)
    })

    t.test('payments are listed by the time of their grant', async (t) => {
      const all = await ledger.payments.list('2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z')
      t.same(
        all.map((p) => p.session_id),
        ['cs_new', 'cs_many', 'cs_race', 'cs_known', 'cs_refund', 'cs_early'],
      )
      t.same(await ledger.payments.list('2000-01-01T00:00:00.000Z', '2001-01-01T00:00:00.000Z'), [])
    })
  })
}
