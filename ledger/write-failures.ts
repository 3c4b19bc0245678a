import type { WriteHealth } from './types.js'

/**
 * The write health of an engine that reaches its storage over the network: writes fail
 * while the server is unreachable and commit again once it answers, so the engine is
 * never broken for the process (a restart would not bring the server back sooner).
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
