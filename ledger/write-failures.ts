import type { WriteHealth } from './types.js'

/**
 * The write health of an engine, as its writes fail and commit again. An engine that
 * reaches its storage over the network is never broken for the process: its writes
 * commit again once the server answers, and a restart would not bring the server back
 * sooner. (LMDB's can be: see LmdbWrites.)
 */
export class WriteFailures implements WriteHealth {
  failingSince: number | undefined
  failedAt: number | undefined
  reason: string | undefined

  failed(reason: string): void {
    this.failedAt = Date.now()
    this.failingSince ??= this.failedAt
    this.reason = reason
  }

  committed(): void {
    this.failingSince = undefined
    this.reason = undefined
  }

  isBroken(): boolean {
    return false
  }
}
