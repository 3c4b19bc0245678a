import { LedgerError } from '../ledger/ledger-error.js'
import type { Account, Call, Charges, ChargesResult, IdempotentCall, Ledger, StoredAnswer } from '../ledger/types.js'
import { ApiError } from '../query/api-error.js'
import type { CountBusiness } from './metrics.js'
import { authenticate } from './authenticate.js'
import { ClientGone } from './client-gone.js'
import { idempotencyRefusal } from './idempotency.js'
import { MAX_VALUE_LENGTH } from './query-string.js'
import type { DemoQuota } from './limits.js'
import type { Refusals } from './refusals.js'
import type { ServedSnapshot } from './served-snapshot.js'

/** Failures of a keyed call that get a zero-credit entry with their code: the automatic refund. */
export const RECORDED: ReadonlySet<string> = new Set(['INVALID_PARAMETER', 'INSUFFICIENT_DATA', 'INTERNAL_ERROR'])

/** An Idempotency-Key this call holds, until its answer is stored or the key let go. */
export interface Held extends IdempotentCall {
  readonly token: string
}

/** What a paid call has found of its Idempotency-Key: an answer to give again, or the key held. */
export type Idempotency =
  { readonly state: 'done'; readonly answer: StoredAnswer } | { readonly state: 'held'; readonly held: Held }

/**
 * What the metered routes (a market operation, a batch) share: the ledger, the demo
 * quota, the snapshot served and the refusals, and the steps of a paid call around them.
 */
export class Metering {
  constructor(
    readonly ledger: Ledger,
    readonly demo: DemoQuota,
    readonly served: ServedSnapshot,
    readonly refusals: Refusals,
    /** Told when a write that only tidies up (a refund record, a key let go) could not be made: the ledger is failing. */
    private readonly onLedgerFailure: () => void,
    /** Told the credits each request's charges took, for /metrics. */
    private readonly count: CountBusiness = () => {},
  ) {}

  /** The account of an X-API-Key header (401 as authenticate), undefined without one; the exchange learns it. */
  async account(
    key: string | string[] | undefined,
    exchange: { account: string | null },
  ): Promise<Account | undefined> {
    const account = await authenticate(this.ledger, key, this.refusals)
    exchange.account = account?.id ?? null
    return account
  }

  /**
   * Takes up a request's Idempotency-Key: its stored answer when it was answered before,
   * else the key held by this call; 409 when a call in flight holds it, 422 when it came
   * with another request.
   */
  async idempotency(account: Account, call: IdempotentCall): Promise<Idempotency> {
    const start = await this.ledger.startIdempotent(account.id, call)
    if (start.state === 'done') return start
    if (start.state !== 'started') throw idempotencyRefusal(start.state)
    return { state: 'held', held: { ...call, token: start.token } }
  }

  /**
   * A request's charges committed: the result when they were made (or refused for want of
   * credits, debit by debit), or its stored answer when a call with the same key was
   * answered first; the rest are refusals thrown.
   */
  async charge(
    account: Account,
    charges: Charges,
  ): Promise<Extract<ChargesResult, { ok: true }> | { readonly ok: false; readonly answer: StoredAnswer }> {
    const result = await this.ledger.chargeAll(account.id, charges)
    if (result.ok) {
      let spent = 0
      for (const outcome of result.outcomes) if (outcome.charged) spent -= outcome.entry.credits
      this.count('credits_spent', spent)
      return result
    }
    switch (result.reason) {
      case 'replayed':
        return result
      case 'reused':
        throw idempotencyRefusal('reused')
      case 'not_wanted':
        throw new ClientGone()
      default:
        throw this.refusals.accountDisabled()
    }
  }

  /**
   * After a keyed call failed: its refund record when its code is one that gets one, and
   * its Idempotency-Key let go so that a retry runs again (a key whose answer a debit of
   * unknown outcome did store is kept: only a key still held is let go). When the ledger
   * cannot take these the call keeps its own error; a key not let go is let go by its lease.
   */
  async failed(account: Account, call: Call, error: unknown, held: Held | undefined): Promise<void> {
    const code =
      error instanceof ApiError
        ? error.code
        : error instanceof LedgerError || error instanceof ClientGone
          ? undefined
          : 'INTERNAL_ERROR'
    if (code !== undefined && RECORDED.has(code))
      await this.tidy(() => this.ledger.recordFailure(account.id, call, code))
    if (held !== undefined) await this.tidy(() => this.ledger.abandonIdempotent(account.id, held.key, held.token))
  }

  private async tidy(write: () => Promise<void>): Promise<void> {
    try {
      await write()
    } catch (error) {
      if (!(error instanceof LedgerError && error.code === 'unavailable')) throw error
      this.onLedgerFailure()
    }
  }
}

/**
 * The call a charge or a failure is recorded for, from a request's raw parameters. A value
 * is kept to the MAX_VALUE_LENGTH characters a query string may hold, whichever route
 * brought it (a batch's body could bring 64 KiB), so what a stream of failures stores is
 * bounded alike for every route.
 */
export function callOf(endpoint: string, get: (name: string) => unknown): Call {
  const text = (name: string) => {
    const value = get(name)
    return typeof value === 'string' || typeof value === 'number' ? recorded(String(value)) : null
  }
  return { endpoint, make: text('make'), model: text('model'), year: Number(text('year')) || null }
}

/** At most MAX_VALUE_LENGTH characters, a character never cut in half (code points, not UTF-16 units). */
function recorded(value: string): string {
  return value.length <= MAX_VALUE_LENGTH ? value : [...value].slice(0, MAX_VALUE_LENGTH).join('')
}

/** A market answer's JSON object with the credit fields appended. */
export function withCredits(data: string, used: number, remaining?: number): string {
  const credits =
    remaining === undefined ? `"credits_used":${used}` : `"credits_used":${used},"credits_remaining":${remaining}`
  return `${data.slice(0, -1)},${credits}}`
}

/** The headers of a keyed answer: the credits it used and the balance after it; a stored answer given again says so. */
export function creditHeaders(used: number, remaining: number, replayed = false): (string | number)[] {
  const headers: (string | number)[] = ['X-Credits-Used', used, 'X-Credits-Remaining', remaining]
  if (replayed) headers.push('Idempotent-Replayed', 'true')
  return headers
}
