import type { WriteHealth } from '../ledger/types.js'
import { logEvent } from './events.js'

/** A store the runtime writes to: the ledger or the counters. */
export interface Store {
  readonly health: WriteHealth
  /** A write of nothing but itself, to learn whether writes commit and the storage has room for more. */
  probe(): Promise<void>
}

/** How long a probe's verdict stands: /readyz writes at most this often, however often it is asked. */
const PROBE_EVERY_MS = 1_000

/**
 * Keeps an eye on the writes of the ledger and the counters: tells the operator on
 * stderr once when a store's writes start failing (with the engine's reason) and once
 * when they commit again, and says for /readyz which stores are failing.
 *
 * Readiness is a probe of each store (a write of its own and room for more, at most once
 * a second), not only what this process's traffic met: a process that had no traffic
 * (out of rotation, or a sibling worker took it) learns of a full disk, and of space
 * returning, all the same. A write of traffic that fails after the probe passed makes
 * the store failing until the next probe.
 *
 * A store whose engine is broken for this process (see WriteHealth.isBroken) is told
 * once, to `onBroken`, which has the process replaced.
 */
export class StorageWatch {
  private readonly told = new Map<string, number | undefined>()
  /** Each store's latest probe: when it ended and whether it passed. */
  private readonly probed = new Map<string, { readonly at: number; readonly passed: boolean }>()
  private probing: Promise<unknown> | undefined
  private brokenTold = false

  constructor(
    private readonly stores: Readonly<Record<string, Store>>,
    private readonly onBroken: () => void,
  ) {}

  /** Logs the stores whose state changed since it was last told. */
  note(): void {
    for (const [name, store] of Object.entries(this.stores)) {
      const since = store.health.failingSince
      if (since === (this.told.get(name) ?? undefined)) continue
      this.told.set(name, since)
      if (since === undefined) logEvent('info', 'storage writes commit again', { store: name })
      else
        logEvent(
          'error',
          'storage writes are failing: paid and keyless market calls are refused with 503 until they commit again',
          { store: name, reason: store.health.reason },
        )
    }
    this.broken()
  }

  /**
   * Whether a store's engine is broken for this process (asked of the engines now); the first time, `onBroken` is told.
   */
  broken(): boolean {
    const broken = Object.entries(this.stores).find(([, store]) => store.health.isBroken())
    if (broken === undefined) return false
    if (!this.brokenTold) {
      this.brokenTold = true
      logEvent('error', 'a storage engine had a fatal error; this process stops to be replaced', {
        store: broken[0],
        reason: broken[1].health.reason,
      })
      this.onBroken()
    }
    return true
  }

  /**
   * The names of the stores that are failing, each probed first unless its last probe is under a second old (one round
   * of probes at a time).
   */
  async failing(): Promise<string[]> {
    const now = Date.now()
    const due = Object.entries(this.stores).filter(
      ([name]) => now - (this.probed.get(name)?.at ?? -Infinity) >= PROBE_EVERY_MS,
    )
    this.probing ??= Promise.all(
      due.map(async ([name, store]) => {
        const passed = await store.probe().then(
          () => true,
          () => false,
        )
        this.probed.set(name, { at: Date.now(), passed })
      }),
    ).finally(() => (this.probing = undefined))
    await this.probing
    this.note()
    return Object.entries(this.stores)
      .filter(([name, store]) => {
        const probe = this.probed.get(name)
        return probe === undefined || !probe.passed || (store.health.failedAt ?? -Infinity) > probe.at
      })
      .map(([name]) => name)
  }
}
