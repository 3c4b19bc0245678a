import type { WriteHealth } from '../ledger/types.js'
import { logEvent } from './events.js'

/** A store the runtime writes to: the ledger or the counters. */
export interface Store {
  readonly health: WriteHealth
  /** A write of nothing but itself, to learn whether writes commit again. */
  probe(): Promise<void>
}

/** A store whose last write failed this recently is failing: a probe would only say what traffic just did. */
const PROBE_AFTER_MS = 1_000

/**
 * Keeps an eye on the writes of the ledger and the counters: tells the operator on
 * stderr once when a store's writes start failing (with the engine's reason) and once
 * when they commit again, and says for /readyz which stores are failing. A store whose
 * writes have not failed for a second is probed with a write of its own first, so that
 * a service taken out of rotation (and sent no traffic) still learns when space returns.
 * A store whose engine is broken for this process (see WriteHealth.isBroken) is told
 * once, to `onBroken`, which has the process replaced.
 */
export class StorageWatch {
  private readonly told = new Map<string, number | undefined>()
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
      else logEvent('error', 'storage writes are failing: paid and keyless market calls are refused with 503 until they commit again', { store: name, reason: store.health.reason })
    }
    this.broken()
  }

  /** Whether a store's engine is broken for this process (asked of the engines now); the first time, `onBroken` is told. */
  broken(): boolean {
    const broken = Object.entries(this.stores).find(([, store]) => store.health.isBroken())
    if (broken === undefined) return false
    if (!this.brokenTold) {
      this.brokenTold = true
      logEvent('error', 'a storage engine had a fatal error; this process stops to be replaced', { store: broken[0], reason: broken[1].health.reason })
      this.onBroken()
    }
    return true
  }

  /** The names of the stores whose writes are failing (one probe at a time). */
  async failing(): Promise<string[]> {
    const failing = () => Object.entries(this.stores).filter(([, store]) => store.health.failingSince !== undefined)
    const quiet = failing().filter(([, store]) => Date.now() - (store.health.failedAt ?? 0) >= PROBE_AFTER_MS)
    this.probing ??= Promise.all(quiet.map(([, store]) => store.probe().catch(() => undefined))).finally(() => (this.probing = undefined))
    await this.probing
    this.note()
    return failing().map(([name]) => name)
  }
}
