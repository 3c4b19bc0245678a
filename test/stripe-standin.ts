import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'
import type { Test } from 'tap'
import { request } from 'undici'

export const SECRET_KEY = 'sk_test_standin'
export const WEBHOOK_SECRET = 'whsec_standin'

/** A Checkout Session as the stand-in keeps it: Stripe's fields this service reads or sets. */
export type Session = Record<string, unknown> & {
  id: string
  url: string
  payment_status: 'unpaid' | 'paid'
  status: 'open' | 'complete'
  payment_intent: string | null
  amount_total: number
  currency: string
  created: number
  success_url: string
  cancel_url: string
  metadata: Record<string, string>
  allowed_payment_method_types: string[]
}

/**
 * A stand-in of the few Stripe endpoints the service uses, speaking Stripe's protocol
 * (form-encoded requests with bracketed keys, bearer secret keys, JSON objects and lists)
 * on 127.0.0.1: creating, retrieving and listing Checkout Sessions. Its payment page
 * (`/pay/<id>`, a form) marks a session paid and sends Stripe's event to the webhook,
 * signed with the official `stripe` package's own test helper, then goes on to the
 * session's success URL as Stripe's Checkout does.
 */
export class StripeStandIn {
  readonly sessions = new Map<string, Session>()
  /** Every request the service made, by method and path. */
  readonly calls: string[] = []
  /** Where events go: the service's webhook. */
  webhookUrl = ''
  /** Answer every API call with 500 (Stripe down) while true. */
  failing = false
  private readonly stripe = new Stripe(SECRET_KEY)
  private server!: Server
  origin = ''

  static async start(t: Test): Promise<StripeStandIn> {
    const standIn = new StripeStandIn()
    standIn.server = createServer((req, res) => void standIn.handle(req, res))
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve))
    standIn.origin = `http://127.0.0.1:${(standIn.server.address() as AddressInfo).port}`
    t.teardown(() => new Promise<void>((resolve) => standIn.server.close(() => resolve())))
    return standIn
  }

  /** Marks a session paid (a card) and delivers checkout.session.completed: the webhook's answer. */
  async pay(id: string, method: 'card' | 'delayed' = 'card'): Promise<{ status: number; body: any }> {
    const session = this.sessions.get(id)!
    session.status = 'complete'
    session.payment_intent = `pi_${id.slice(3)}`
    session.payment_status = method === 'card' ? 'paid' : 'unpaid'
    return this.deliver('checkout.session.completed', session)
  }

  /** Sends an event of `type` about `object`, signed as Stripe signs (or with another secret, or an old time). */
  async deliver(
    type: string,
    object: Record<string, unknown>,
    sign: { readonly secret?: string; readonly timestamp?: number; readonly id?: string } = {},
  ): Promise<{ status: number; body: any }> {
    const payload = this.eventPayload(type, object, sign.id)
    return this.post(payload, this.signature(payload, sign))
  }

  /** An event's JSON as Stripe sends it. */
  eventPayload(type: string, object: Record<string, unknown>, id = `evt_${randomBytes(12).toString('hex')}`): string {
    return JSON.stringify({
      id,
      object: 'event',
      api_version: '2026-01-01',
      created: Math.floor(Date.now() / 1000),
      type,
      data: { object },
      livemode: false,
      pending_webhooks: 1,
    })
  }

  signature(payload: string, sign: { readonly secret?: string; readonly timestamp?: number } = {}): string {
    return this.stripe.webhooks.generateTestHeaderString({
      payload,
      secret: sign.secret ?? WEBHOOK_SECRET,
      ...(sign.timestamp === undefined ? {} : { timestamp: sign.timestamp }),
    })
  }

  /** Posts an event's payload to the webhook with a Stripe-Signature header. */
  async post(payload: string, signature: string | undefined): Promise<{ status: number; body: any }> {
    const response = await request(this.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(signature === undefined ? {} : { 'stripe-signature': signature }),
      },
      body: payload,
    })
    return { status: response.statusCode, body: await response.body.json() }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin)
    const body = await new Promise<string>((resolve) => {
      let text = ''
      req.on('data', (chunk: Buffer) => (text += chunk.toString()))
      req.on('end', () => resolve(text))
    })
    this.calls.push(`${req.method} ${url.pathname}`)
    const pay = /^\/pay\/(cs_[A-Za-z0-9_]+)$/.exec(url.pathname)
    if (pay !== null) return this.payPage(req, res, pay[1]!)
    if (req.headers.authorization !== `Bearer ${SECRET_KEY}`)
      return json(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } })
    if (this.failing) return json(res, 500, { error: { type: 'api_error', message: 'stand-in told to fail' } })
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions')
      return json(res, 200, this.create(nested(body)))
    const one = /^\/v1\/checkout\/sessions\/(cs_[A-Za-z0-9_]+)$/.exec(url.pathname)
    if (req.method === 'GET' && one !== null) {
      const session = this.sessions.get(one[1]!)
      return session === undefined
        ? json(res, 404, { error: { type: 'invalid_request_error', message: 'No such checkout.session' } })
        : json(res, 200, session)
    }
    if (req.method === 'GET' && url.pathname === '/v1/checkout/sessions') return json(res, 200, this.list(url))
    json(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL ${url.pathname}` } })
  }

  private create(params: Record<string, any>): Session {
    const id = `cs_test_${randomBytes(12).toString('hex')}`
    const item = params.line_items[0]
    const session: Session = {
      id,
      object: 'checkout.session',
      mode: params.mode,
      url: `${this.origin}/pay/${id}`,
      created: Math.floor(Date.now() / 1000),
      expires_at: Math.floor(Date.now() / 1000) + 86_400,
      amount_total: Number(item.price_data.unit_amount) * Number(item.quantity),
      currency: item.price_data.currency,
      customer_email: params.customer_email ?? null,
      client_reference_id: params.client_reference_id ?? null,
      metadata: params.metadata ?? {},
      allowed_payment_method_types: Object.values(params.allowed_payment_method_types ?? {}),
      payment_status: 'unpaid',
      status: 'open',
      payment_intent: null,
      success_url: params.success_url,
      cancel_url: params.cancel_url,
    }
    this.sessions.set(id, session)
    return session
  }

  private list(url: URL): object {
    const gte = Number(url.searchParams.get('created[gte]') ?? 0)
    const lte = Number(url.searchParams.get('created[lte]') ?? Infinity)
    const limit = Number(url.searchParams.get('limit') ?? 10)
    const after = url.searchParams.get('starting_after')
    // Newest first, as Stripe lists.
    let all = [...this.sessions.values()].filter((s) => s.created >= gte && s.created <= lte).reverse()
    if (after !== null) all = all.slice(all.findIndex((s) => s.id === after) + 1)
    return { object: 'list', url: '/v1/checkout/sessions', data: all.slice(0, limit), has_more: all.length > limit }
  }

  /** Stripe's payment page, reduced to a form: paying sends the event, then the buyer back to the success URL. */
  private async payPage(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const session = this.sessions.get(id)
    if (session === undefined) return json(res, 404, {})
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(`<!doctype html><title>Pay</title><h1>Pay ${session.amount_total / 100} ${session.currency}</h1>
<form method="post"><button id="pay" type="submit">Pay</button></form>`)
      return
    }
    await this.pay(id)
    res.writeHead(303, { location: session.success_url.replace('{CHECKOUT_SESSION_ID}', id) })
    res.end()
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** A form body with Stripe's bracketed keys (`line_items[0][price_data][currency]=usd`) as nested objects. */
function nested(body: string): Record<string, any> {
  const root: Record<string, any> = {}
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[')
    let at = root
    path.slice(0, -1).forEach((part) => (at = at[part] ??= {}))
    at[path.at(-1)!] = value
  }
  if (root.line_items !== undefined) root.line_items = Object.values(root.line_items)
  return root
}
