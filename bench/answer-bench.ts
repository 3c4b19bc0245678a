/**
 * Constant time: in-process market calls per second (name resolution, one snapshot
 * look-up, the answer's JSON) for each endpoint, on a 10-thousand and a 1.4-million
 * listing snapshot built from the same generator, measured in the same run. The ratio
 * of the two is what matters: a call must cost the same whatever the market's size
 * (the mileage window is bounded by the key's own listings).
 *
 *   npm run bench:answers
 */
import { OPERATIONS, type Operation } from '../format/schema.js'
import { ApiError } from '../query/api-error.js'
import { answerJson, marketRequest } from '../query/operations.js'
import { Snapshot } from '../query/snapshot.js'
import { benchSnapshots } from './bench-data.js'

const SECONDS = 1

async function snapshotOf(listings: number): Promise<Snapshot> {
  return Snapshot.open(await benchSnapshots(listings))
}

/** The answer's JSON, or the error envelope's when the data is too thin: both are answers. */
function respond(snapshot: Snapshot, request: ReturnType<typeof marketRequest>): string {
  try {
    return answerJson(snapshot, request)
  } catch (error) {
    if (error instanceof ApiError) return JSON.stringify(error.toJSON())
    throw error
  }
}

/** Calls per second of one question, repeated for about SECONDS, and whether it was answered with data. */
function rate(
  snapshot: Snapshot,
  operation: Operation,
  query: Record<string, string>,
): { perSecond: number; answered: boolean } {
  const request = marketRequest(operation, (name) => query[name], snapshot.maxYear)
  let calls = 0
  let sink = 0
  const started = performance.now()
  while (performance.now() - started < SECONDS * 1000) {
    for (let i = 0; i < 1000; i++) sink += respond(snapshot, request).length
    calls += 1000
  }
  if (sink === 0) throw new Error('no answer')
  return {
    perSecond: calls / ((performance.now() - started) / 1000),
    answered: !respond(snapshot, request).includes('INSUFFICIENT_DATA'),
  }
}

const small = await snapshotOf(10_000)
const large = await snapshotOf(1_400_000)
const golf = { make: 'VW', model: 'Golf', year: '2017' }
const cases: [string, Operation, Record<string, string>][] = [
  ...OPERATIONS.map((operation): [string, Operation, Record<string, string>] => [operation, operation, golf]),
  ['valuation, fuel and gearbox', 'valuation', { ...golf, fuel_type: 'petrol', gearbox: 'manual' }],
  ['valuation, mileage window', 'valuation', { ...golf, mileage: '150000' }],
]
const key = { ...golf, year: 2017, fuel_type: null, gearbox: null, mileage: null }
const lines = [
  `Volkswagen Golf 2017: ${small.valuation(key).sample_size} listings in the 10k snapshot, ${large.valuation(key).sample_size} in the 1.4M one (* = too few listings: an INSUFFICIENT_DATA answer).`,
  '| call | 10k snapshot | 1.4M snapshot | 1.4M / 10k |',
  '|---|---|---|---|',
]
const cell = (r: { perSecond: number; answered: boolean }) =>
  `${Math.round(r.perSecond).toLocaleString('en-US')}/s${r.answered ? '' : ' *'}`
for (const [label, operation, query] of cases) {
  const a = rate(small, operation, query)
  const b = rate(large, operation, query)
  lines.push(`| ${label} | ${cell(a)} | ${cell(b)} | ${(b.perSecond / a.perSecond).toFixed(2)} |`)
}
process.stdout.write(`node ${process.version}, ${SECONDS} s per cell\n${lines.join('\n')}\n`)
await small.close()
await large.close()
