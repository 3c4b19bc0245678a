import { invalidParameter } from '../query/api-error.js'

/** /v1/account/usage?limit= (interface spec, "Limits"). */
export const USAGE_LIMIT = { min: 1, max: 200, default: 50 } as const

export function usageLimit(raw: string | undefined): number {
  if (raw === undefined) return USAGE_LIMIT.default
  if (!/^[0-9]{1,3}$/.test(raw) || Number(raw) < USAGE_LIMIT.min || Number(raw) > USAGE_LIMIT.max) {
    throw invalidParameter('limit', `limit must be an integer from ${USAGE_LIMIT.min} to ${USAGE_LIMIT.max}`)
  }
  return Number(raw)
}
