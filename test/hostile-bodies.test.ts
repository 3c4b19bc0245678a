import fc from 'fast-check'
import t from 'tap'
import { request } from 'undici'
import { PLANS } from '../query/prices.js'
import { StripeCheckout } from '../runtime/stripe-checkout.js'
import { SECRET_KEY, StripeStandIn, WEBHOOK_SECRET } from './stripe-standin.js'
import { account, build, freshDir, rows, serve, toCsv } from './support.js'

/** The routes that take a body, and the fields they know (the fuzz mixes known and unknown). */
const ROUTES = [
  '/v1/auth/register',
  '/v1/auth/verify',
  '/v1/account/keys/rotate',
  '/v1/billing/checkout',
  '/v1/billing/stripe-webhook',
] as const
const FIELDS = ['email', 'code', 'plan', 'id', 'type', 'data', 'object', '__proto__', 'constructor']

/** A JSON value of any shape, with the field names the routes read among the keys. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme', maxLength: 300 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(...PLANS.map((p) => p.credits), '5000', ' 5000 ', '5e3', 'a@b.pl', 'x@example.pl', '000000'),
  ),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 10 })), tie('node'), { maxKeys: 5 }),
  ),
})).node

/** A body as a caller could send it: JSON of any value, a form, bytes that are neither, with any content type. */
const body = fc.oneof(
  value.map((v) => ({ type: 'application/json', bytes: Buffer.from(JSON.stringify(v) ?? 'null') })),
  fc
    .dictionary(
      fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 8 })),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
    )
    .map((d) => ({
      type: 'application/x-www-form-urlencoded',
      bytes: Buffer.from(new URLSearchParams(d as Record<string, string>).toString()),
    })),
  fc.uint8Array({ maxLength: 200 }).map((b) => ({ type: 'application/json', bytes: Buffer.from(b) })),
  fc.record({
    type: fc.constantFrom(
      'text/plain',
      'application/json; charset=latin1',
      'multipart/form-data',
      '',
      'APPLICATION/JSON',
    ),
    bytes: fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b)),
  }),
)

t.test('no body sent to a POST route answers 500: every answer is the envelope with a code of the spec', async (t) => {
  const standIn = await StripeStandIn.start(t)
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const ledger = freshDir(t)
  const served = await serve(t, {
    snapshots,
    ledger,
    checkout: new StripeCheckout(SECRET_KEY, WEBHOOK_SECRET, new URL(standIn.origin)),
  })
  standIn.webhookUrl = `${served.base}/v1/billing/stripe-webhook`
  const { key } = await account(ledger, 'fuzz@example.pl', 100)
  const statuses = new Map<number, number>()
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ROUTES),
      body,
      fc.boolean(),
      fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
      async (route, { type, bytes }, keyed, signature) => {
        const headers: Record<string, string> = { 'content-type': type }
        if (keyed) headers['x-api-key'] = key
        if (signature !== undefined) headers['stripe-signature'] = signature
        const response = await request(`${served.base}${route}`, { method: 'POST', headers, body: bytes })
        const text = await response.body.text()
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
        if (response.statusCode >= 500 && response.statusCode !== 503) return false
        if (response.statusCode === 303) return typeof response.headers.location === 'string'
        const answer = JSON.parse(text) as { status: string; error?: { code: string } }
        return answer.status === 'success' || typeof answer.error?.code === 'string'
      },
    ),
    { numRuns: 600, seed: 20261127 },
  )
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.notOk(statuses.has(500), 'never 500')
  // Signed events of any content: Stripe's own signature over hostile JSON.
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        'checkout.session.completed',
        'checkout.session.async_payment_succeeded',
        'charge.refunded',
        'charge.dispute.created',
      ),
      fc.dictionary(
        fc.oneof(
          fc.constantFrom(
            'id',
            'payment_status',
            'amount_total',
            'currency',
            'metadata',
            'payment_intent',
            'amount',
            'amount_refunded',
            'customer_email',
          ),
          fc.string({ maxLength: 6 }),
        ),
        value,
        { maxKeys: 8 },
      ),
      async (type, object) => {
        const answer = await standIn.deliver(type, object)
        return answer.status === 200 || answer.status === 400 || answer.status === 503
      },
    ),
    { numRuns: 300, seed: 20261128 },
  )
})
