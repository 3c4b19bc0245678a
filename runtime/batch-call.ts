import { OPERATIONS, type Operation } from '../format/schema.js'
import type { Account, Call, DebitOutcome } from '../ledger/types.js'
import { ApiError, invalidParameter } from '../query/api-error.js'
import { OPERATION_SPECS, answerJson, marketRequest } from '../query/operations.js'
import { fieldSource } from '../query/params.js'
import type { Snapshot } from '../query/snapshot.js'
import { canonicalJson } from './canonical.js'
import type { Exchange } from './exchange.js'
import { fingerprint, idempotencyKey } from './idempotency.js'
import { RECORDED, callOf, creditHeaders, withCredits, type Held, type Metering } from './metering.js'
import { logEvent } from './events.js'
import { parseQuery } from './query-string.js'
import type { HeaderList } from './send.js'
import { dataBody, errorBody } from './send.js'

const NO_PARAMETERS: ReadonlySet<string> = new Set()

/** How large a batch may be. */
export const BATCH = {
  /** Items at most (and at least 1). */
  maxItems: 50,
  /** The body's bytes at most: 50 items of every parameter at its longest fit with room to spare. */
  maxBodyBytes: 64 * 1024,
} as const

/** One item of a batch: a market operation and its parameters, as the body gave them. */
interface Item {
  readonly operation: Operation
  readonly fields: Readonly<Record<string, unknown>>
}

/** An item answered (its data, before the credit fields) or failed (its error envelope), as kept to render again. */
type Part = { readonly credits: number; readonly data: string } | { readonly error: string }

/** An item as answered: its part, the code of its error if it failed, and the call it is recorded as. */
export interface Answered {
  readonly part: Part
  readonly code: string | undefined
  readonly call: Call
}

/** A batch's request as the route gets it. */
export interface BatchInput {
  readonly path: string
  /** The query string: the route takes no parameters. */
  readonly query: string
  /** Reads the JSON body (415, 413, 400 as readJsonBody): once the caller is known, so a keyed refusal is recorded. */
  readonly body: () => Promise<Record<string, unknown>>
  readonly key: string | string[] | undefined
  readonly idempotencyKey: string | string[] | undefined
  readonly ip: string
  readonly exchange: Exchange
}

/** A batch's answer: its data (results and credit fields) and headers. */
export interface BatchReply {
  readonly data: string
  readonly headers: HeaderList
}

/**
 * POST /v1/market/batch: up to BATCH.maxItems market operations in one request, each
 * answered in its own envelope in the order asked. Each item is checked and answered as
 * its own call would be (400, 404 in its place, never charged). Keyed, the items
 * answered are charged in one transaction, in order, each at its operation's price, while
 * the balance lasts: an item it cannot pay gets 402 and a cheaper one after it may still
 * be charged; the failed items get their refund records in the same transaction, and an
 * Idempotency-Key's answer is stored there too. Keyless, each item answered counts
 * against the demo quota, and those past it get 429.
 *
 * A body that is not a batch (no `requests` array of 1 to 50 objects, each naming a
 * market operation) is refused whole with 400, naming the item at fault.
 */
export function batchCall(metering: Metering) {
  const { served, demo, refusals } = metering

  /** Each item's answer from the snapshot served now, or its error. */
  const answerAll = (items: readonly Item[]) => {
    const generation = served.acquire()
    try {
      return answerBatch(generation.snapshot, items)
    } finally {
      served.release(generation)
    }
  }

  const keyless = async (input: BatchInput, items: readonly Item[]): Promise<BatchReply> => {
    const answered = answerAll(items)
    const { counted, used } = await demo.useMany(
      input.ip,
      answered.filter((a) => 'data' in a.part).length,
      input.exchange.wanted,
    )
    return { data: keylessData(answered, counted, () => demo.reached()), headers: demo.fields(used) }
  }

  /** The answer of a keyed batch from its parts and how its debits went (now, or stored under its key). */
  const render = (
    parts: readonly Part[],
    outcomes: readonly Pick<DebitOutcome, 'charged' | 'balance'>[],
    balance: number,
    replayed: boolean,
  ): BatchReply => {
    let next = 0
    let used = 0
    const results = parts.map((part) => {
      if ('error' in part) return part.error
      const outcome = outcomes[next++]!
      if (!outcome.charged) return errorBody(refusals.insufficientCredits(part.credits, outcome.balance))
      used += part.credits
      return dataBody(withCredits(part.data, part.credits, outcome.balance))
    })
    return {
      data: `{"results":[${results.join(',')}],"credits_used":${used},"credits_remaining":${balance}}`,
      headers: creditHeaders(used, balance, replayed),
    }
  }
  const replay = (answer: { parts: string; outcomes: readonly { charged: boolean; balance: number }[] }) =>
    render(JSON.parse(answer.parts) as Part[], answer.outcomes, answer.outcomes.at(-1)!.balance, true)

  const keyed = async (input: BatchInput, account: Account): Promise<BatchReply> => {
    const call = { endpoint: 'batch', make: null, model: null, year: null }
    let held: Held | undefined
    try {
      const key = idempotencyKey(input.idempotencyKey)
      parseQuery(input.query, NO_PARAMETERS)
      const body = await input.body()
      const items = batchItems(body)
      if (key !== undefined) {
        const fingerprinted = { key, fingerprint: fingerprint('POST', input.path, canonicalJson(body)) }
        const idempotency = await metering.idempotency(account, fingerprinted)
        if (idempotency.state === 'done') return replay(idempotency.answer)
        held = idempotency.held
      }
      const answered = answerAll(items)
      const parts = answered.map((a) => a.part)
      const result = await metering.charge(account, {
        debits: answered.flatMap(({ part, call }) => ('data' in part ? [{ credits: part.credits, call }] : [])),
        failures: answered.flatMap(({ code, call }) =>
          code !== undefined && RECORDED.has(code) ? [{ call, code }] : [],
        ),
        remember: held === undefined ? undefined : { ...held, parts: JSON.stringify(parts) },
        wanted: input.exchange.wanted,
      })
      held = undefined
      if (!result.ok) return replay(result.answer)
      return render(parts, result.outcomes, result.balance, false)
    } catch (error) {
      await metering.failed(account, call, error, held)
      throw error
    }
  }

  return async (input: BatchInput): Promise<BatchReply> => {
    const account = await metering.account(input.key, input.exchange)
    if (account !== undefined) return keyed(input, account)
    parseQuery(input.query, NO_PARAMETERS)
    return keyless(input, batchItems(await input.body()))
  }
}

/** Each item of a batch answered from `snapshot`, in order. */
export function answerBatch(snapshot: Snapshot, items: readonly Item[]): Answered[] {
  return items.map((item) => answerItem(snapshot, item))
}

/**
 * The data of a keyless batch's answer: the first `granted` items answered given (with
 * what a keyed call would cost), those after them refused by `reached`.
 */
export function keylessData(answered: readonly Answered[], granted: number, reached: () => ApiError): string {
  let left = granted
  let used = 0
  const results = answered.map(({ part }) => {
    if ('error' in part) return part.error
    if (left === 0) return errorBody(reached())
    left--
    used += part.credits
    return dataBody(withCredits(part.data, part.credits))
  })
  return `{"results":[${results.join(',')}],"credits_used":${used}}`
}

/** The items of a batch's body, or 400 naming what is not a batch. */
export function batchItems(body: Record<string, unknown>): Item[] {
  for (const name of Object.keys(body))
    if (name !== 'requests')
      throw invalidParameter(
        name.slice(0, 50),
        `The body takes one member, requests; not ${JSON.stringify(name.slice(0, 50))}.`,
      )
  const { requests } = body
  if (!Array.isArray(requests) || requests.length === 0 || requests.length > BATCH.maxItems)
    throw invalidParameter(
      'requests',
      `requests must be an array of 1 to ${BATCH.maxItems} market requests, such as {"operation":"valuation","make":"VW","model":"Golf","year":2017}.`,
    )
  return requests.map((request: unknown, index): Item => {
    const at = `requests[${index}]`
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      throw invalidParameter(at, `${at} must be an object naming its operation and parameters.`)
    const { operation, ...fields } = request as Record<string, unknown>
    if (typeof operation !== 'string' || !(OPERATIONS as readonly string[]).includes(operation))
      throw invalidParameter(`${at}.operation`, `${at}.operation must be one of ${OPERATIONS.join(', ')}.`)
    return { operation: operation as Operation, fields }
  })
}

/**
 * An item answered as its own call would be, its parameters checked as a query string's
 * (numbers read as their digits, null as not given): its part, the code of its error if
 * it failed, and the call it is recorded as.
 */
function answerItem(snapshot: Snapshot, item: Item): Answered {
  const spec = OPERATION_SPECS[item.operation]
  const values = Object.fromEntries(
    Object.entries(item.fields).map(([name, value]) => [name, typeof value === 'number' ? String(value) : value]),
  )
  const call = callOf(item.operation, (name) => values[name])
  try {
    const request = marketRequest(item.operation, fieldSource(values, spec.parameters), snapshot.maxYear)
    const part: Part = { credits: spec.credits, data: answerJson(snapshot, request) }
    return { part, call, code: undefined }
  } catch (error) {
    const failure = error instanceof ApiError ? error : unexpected(error)
    const part: Part = { error: errorBody(failure) }
    return { part, call, code: failure.code }
  }
}

/** An item that failed for a reason of the server's own: logged, and answered as the 500 a call would get. */
function unexpected(error: unknown): ApiError {
  logEvent('error', 'unexpected error in a batch item', { error: String((error as Error)?.stack ?? error) })
  return new ApiError('INTERNAL_ERROR', 'The server failed to answer this item; it was not charged. Please retry.')
}
