import { DEMO_QUOTA } from '../query/prices.js'

/**
 * What a runtime does unless told otherwise: the limits per client address, the HTTP timeouts and the pace of mail. Apart from the
 * runtime, so that the command line can show them without loading it.
 */
export const DEFAULTS = {
  rateLimit: 120,
  ipv6Prefix: 64,
  demoQuota: DEMO_QUOTA,
  timeouts: { headers: 10_000, request: 30_000, keepAlive: 5_000 },
  /** A message the relay did not take is tried again after this, then after twice as long each time. */
  mailRetryAfterSeconds: 30,
  /** A message is given up this long after it was queued: a day for a relay's outage to be mended. */
  mailGiveUpAfterSeconds: 86_400,
} as const
