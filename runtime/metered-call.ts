import type { Operation } from '../format/schema.js'
import { LedgerError } from '../ledger/ledger-error.js'
import type { Call, Ledger } from '../ledger/types.js'
import { ApiError } from '../query/api-error.js'
import { OPERATION_SPECS, answerJson, marketRequest } from '../query/operations.js'
import { accountDisabled, authenticate } from './authenticate.js'
import { ClientGone } from './client-gone.js'
import type { DataCall } from './exchange.js'
import type { DemoQuota } from './limits.js'
import { parseQuery } from './query-string.js'
import type { ServedSnapshot } from './served-snapshot.js'

/** What a metered market call uses. */
export interface MeteringParts {
  readonly ledger: Ledger
  readonly demo: DemoQuota
  readonly served: ServedSnapshot
  /** Where a caller short of credits buys more (INSUFFICIENT_CREDITS's top_up_url). */
  readonly topUpUrl: string
  /** Told when a refund record could not be written (the ledger is failing). */
  readonly onLedgerFailure: () => void
}

/** Failures of a keyed call that get a zero-credit entry with their code: the automatic refund. */
const RECORDED: ReadonlySet<string> = new Set(['INVALID_PARAMETER', 'INSUFFICIENT_DATA', 'INTERNAL_ERROR'])

/**
 * A market operation as a metered call, in the spec's order: authentication (401),
 * parameters (400), the balance (402) or the demo quota (429), data (404), then the
 * debit (or the demo count), and only then the answer, carrying the credit fields. A
 * keyed call that fails with 400, 404 or 500 is recorded as a zero-credit entry with its
 * code. A client gone before the debit is charged nothing (ClientGone).
 */
export function meteredCall(parts: MeteringParts, operation: Operation): DataCall {
  const { ledger, demo, served } = parts
  const spec = OPERATION_SPECS[operation]
  const known = new Set(spec.parameters)
  const insufficient = (balance: number) =>
    new ApiError('INSUFFICIENT_CREDITS', `This call costs ${spec.credits} credits; the balance is ${balance}.`, {
      top_up_url: parts.topUpUrl,
    })
  /**
   * The answer from the snapshot served now, held while it is read so a swap never
   * closes it under the request: the parameters are checked (400), then `admit` (the
   * balance, or the demo quota, which is asked of the counters), then the answer is
   * looked up (404).
   */
  const answer = async (params: Map<string, string>, admit: () => Promise<void> | void): Promise<string> => {
    const generation = served.acquire()
    try {
      const request = marketRequest(operation, (name) => params.get(name), generation.snapshot.maxYear)
      await admit()
      return answerJson(generation.snapshot, request)
    } finally {
      served.release(generation)
    }
  }
  /** The refund record; when the ledger cannot take it the call keeps its own error: nothing was charged. */
  const recordFailure = async (accountId: string, call: Call, code: string) => {
    try {
      await ledger.recordFailure(accountId, call, code)
    } catch (error) {
      if (!(error instanceof LedgerError && error.code === 'unavailable')) throw error
      parts.onLedgerFailure()
    }
  }

  return async (query, key, ip, exchange) => {
    const account = await authenticate(ledger, key)
    exchange.account = account?.id ?? null
    if (account === undefined) {
      const data = await answer(parseQuery(query, known), () => demo.check(ip))
      await demo.use(ip, exchange.wanted)
      return withCredits(data, spec.credits)
    }
    let call: Call = { endpoint: operation, make: null, model: null, year: null }
    try {
      const params = parseQuery(query, known)
      call = {
        endpoint: operation,
        make: params.get('make') ?? null,
        model: params.get('model') ?? null,
        year: Number(params.get('year')) || null,
      }
      const data = await answer(params, () => {
        if (account.balance < spec.credits) throw insufficient(account.balance)
      })
      const charged = await ledger.charge(account.id, spec.credits, call, exchange.wanted)
      if (!charged.ok) {
        if (charged.reason === 'not_wanted') throw new ClientGone()
        throw charged.reason === 'insufficient_credits' ? insufficient(charged.balance) : accountDisabled()
      }
      return withCredits(data, spec.credits, charged.balance)
    } catch (error) {
      const code =
        error instanceof ApiError
          ? error.code
          : error instanceof LedgerError || error instanceof ClientGone
            ? undefined
            : 'INTERNAL_ERROR'
      if (code !== undefined && RECORDED.has(code)) await recordFailure(account.id, call, code)
      throw error
    }
  }
}

/** A market answer's JSON object with the credit fields appended. */
export function withCredits(data: string, used: number, remaining?: number): string {
  const credits =
    remaining === undefined ? `"credits_used":${used}` : `"credits_used":${used},"credits_remaining":${remaining}`
  return `${data.slice(0, -1)},${credits}}`
}
