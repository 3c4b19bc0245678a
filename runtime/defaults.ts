import { DEMO_QUOTA } from '../query/prices.js'

/**
 * What a runtime does unless told otherwise: the limits per client address and the HTTP timeouts. Apart from the
 * runtime, so that the command line can show them without loading it.
 */
export const DEFAULTS = {
  rateLimit: 120,
  ipv6Prefix: 64,
  demoQuota: DEMO_QUOTA,
  timeouts: { headers: 10_000, request: 30_000, keepAlive: 5_000 },
} as const
