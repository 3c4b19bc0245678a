/**
 * Embedding a snapshot: open it read-only and ask the five market questions with the
 * same code the HTTP runtime runs.
 */
export { Snapshot } from './snapshot.js'
export { SnapshotError, type SnapshotErrorCode } from '../format/snapshot-error.js'
export { LIQUIDITY_NOTE } from '../format/rendered.js'
export { ApiError, ERROR_STATUS, type ErrorCode } from './api-error.js'
export type { MatchType, Resolution } from './name-resolver.js'
export * from './answers.js'
export * from './params.js'
export { MAX_MILEAGE, MIN_YEAR } from '../format/bounds.js'
export { REQUEST_VALUES, type Vocabulary } from './value-aliases.js'
export { answer, answerJson, marketRequest, OPERATION_SPECS, type MarketRequest } from './operations.js'
export type { Manifest, Quartiles, FactorEntry, RegionEntry } from '../format/schema.js'
