import type { Operation } from '../format/schema.js'
import type { Account, Call } from '../ledger/types.js'
import { OPERATION_SPECS, answerJson, marketRequest } from '../query/operations.js'
import { canonicalQuery } from './canonical.js'
import type { MarketCall, MarketInput, MarketReply } from './exchange.js'
import { fingerprint, idempotencyKey } from './idempotency.js'
import { callOf, creditHeaders, withCredits, type Held, type Metering } from './metering.js'
import { parseQuery } from './query-string.js'
import { etagMatches, marketEtag } from './revalidation.js'

/**
 * Market answers may be kept by the caller, never by a shared cache, and are revalidated
 * before each use; a browser keeps one per key, since the credit fields are the account's.
 */
const CACHING = ['Cache-Control', 'private, no-cache', 'Vary', 'X-API-Key'] as const

/**
 * An answer given drawn (a chart) instead of as the operation's JSON: `draw` makes it
 * from the answer's JSON before anything is charged or counted, so that a drawing that
 * fails is a failed call; `version` names the drawing code, so that a new drawing of the
 * same answer has a new ETag.
 */
export interface Drawing {
  readonly draw: (json: string) => string
  readonly version: string
}

/**
 * Whether a request's If-None-Match makes its answer a 304: it names the answer's ETag,
 * or `*` when there is an answer (`lookUp` throws the 404 there is instead).
 */
function notModified(input: MarketInput, etag: string, lookUp: () => unknown): boolean {
  const matched = input.ifNoneMatch === undefined ? false : etagMatches(input.ifNoneMatch, etag)
  if (matched === 'any') lookUp()
  return matched !== false
}

/**
 * A market operation as a metered call, in the spec's order: authentication (401),
 * parameters (400), the balance (402) or the demo quota (429), data (404), then the
 * debit (or the demo count), and only then the answer, carrying the credit fields. A
 * keyed call that fails with 400, 404 or 500 is recorded as a zero-credit entry with its
 * code. A client gone before the debit is charged nothing (ClientGone).
 *
 * Beside that, the protocol of the answer: a weak ETag over the snapshot and the
 * canonical request, and a matching If-None-Match answered 304 once the parameters are
 * checked, charged and counted nothing; and, for a keyed call, an Idempotency-Key taken
 * up before the balance is looked at (a stored answer is given again, free), whose answer
 * is stored in the debit's own transaction.
 */
export function meteredCall(metering: Metering, operation: Operation, drawing?: Drawing): MarketCall {
  const { demo, served, refusals } = metering
  const spec = OPERATION_SPECS[operation]
  const known = new Set(spec.parameters)
  const tag = (buildId: string, path: string, canonical: string) =>
    marketEtag(buildId, drawing === undefined ? path : `${path}@${drawing.version}`, canonical)

  const keyless = async (input: MarketInput, params: Map<string, string>): Promise<MarketReply> => {
    let data: string
    let etag: string
    const generation = served.acquire()
    try {
      const request = marketRequest(operation, (name) => params.get(name), generation.snapshot.maxYear)
      etag = tag(generation.snapshot.manifest.build_id, input.path, canonicalQuery(params))
      if (notModified(input, etag, () => answerJson(generation.snapshot, request)))
        return { status: 304, data: '', headers: ['ETag', etag, ...CACHING] }
      await demo.check(input.ip)
      data = answerJson(generation.snapshot, request)
    } finally {
      served.release(generation)
    }
    const drawn = drawing?.draw(data)
    const used = await demo.use(input.ip, input.exchange.wanted)
    return {
      status: 200,
      data: drawn ?? withCredits(data, spec.credits),
      headers: ['ETag', etag, ...CACHING, ...demo.fields(used)],
    }
  }

  const keyed = async (input: MarketInput, account: Account): Promise<MarketReply> => {
    let call: Call = { endpoint: operation, make: null, model: null, year: null }
    let held: Held | undefined
    try {
      const key = idempotencyKey(input.idempotencyKey)
      const params = parseQuery(input.query, known)
      call = callOf(operation, (name) => params.get(name))
      const canonical = canonicalQuery(params)
      let data: string
      let etag: string
      const generation = served.acquire()
      try {
        const request = marketRequest(operation, (name) => params.get(name), generation.snapshot.maxYear)
        etag = tag(generation.snapshot.manifest.build_id, input.path, canonical)
        if (notModified(input, etag, () => answerJson(generation.snapshot, request)))
          return {
            status: 304,
            data: '',
            headers: ['ETag', etag, ...CACHING, ...creditHeaders(0, account.balance)],
          }
        if (key !== undefined) {
          const fingerprinted = { key, fingerprint: fingerprint(input.method, input.path, canonical) }
          const idempotency = await metering.idempotency(account, fingerprinted)
          if (idempotency.state === 'done') return replay(idempotency.answer)
          held = idempotency.held
        }
        if (account.balance < spec.credits) throw refusals.insufficientCredits(spec.credits, account.balance)
        data = answerJson(generation.snapshot, request)
      } finally {
        served.release(generation)
      }
      const drawn = drawing?.draw(data)
      const result = await metering.charge(account, {
        debits: [{ credits: spec.credits, call }],
        remember: held === undefined ? undefined : { ...held, parts: data },
        wanted: input.exchange.wanted,
      })
      if (!result.ok) {
        held = undefined
        return replay(result.answer)
      }
      const outcome = result.outcomes[0]!
      // Refused for want of credits (spent by a concurrent call): the key, if any, was let go in the same transaction.
      held = undefined
      if (!outcome.charged) throw refusals.insufficientCredits(spec.credits, outcome.balance)
      return {
        status: 200,
        data: drawn ?? withCredits(data, spec.credits, outcome.balance),
        headers: ['ETag', etag, ...CACHING, 'X-Credits-Used', spec.credits, 'X-Credits-Remaining', outcome.balance],
      }
    } catch (error) {
      await metering.failed(account, call, error, held)
      throw error
    }
  }

  /**
   * A stored answer given again: byte for byte what was answered, credit fields included, and charged nothing. No
   * ETag: the snapshot it was answered from may no longer be the one served.
   */
  const replay = ({ parts, outcomes }: { parts: string; outcomes: readonly { balance: number }[] }): MarketReply => {
    const balance = outcomes[0]!.balance
    return {
      status: 200,
      data: drawing === undefined ? withCredits(parts, spec.credits, balance) : drawing.draw(parts),
      headers: [...CACHING, ...creditHeaders(spec.credits, balance, true)],
    }
  }

  return async (input) => {
    const account = await metering.account(input.key, input.exchange)
    if (account !== undefined) return keyed(input, account)
    return keyless(input, parseQuery(input.query, known))
  }
}
