/**
 * Constant time: in-process calls per second of CPU time (name resolution, one snapshot
 * look-up, the answer's JSON) for each market operation and the catalogue, on a
 * 10-thousand and a 1.4-million listing snapshot built from the same generator, measured
 * in the same run. The ratio of the two is what matters: a call must cost the same whatever the
 * market's size (what an asking price or a mileage window computes at request time is
 * bounded by the key's own listings).
 *
 *   npm run bench:answers
 */
import { KEY_OPERATIONS, type Operation } from '../format/schema.js'
import { ApiError } from '../query/api-error.js'
import { answerJson, marketRequest } from '../query/operations.js'
import { Snapshot } from '../query/snapshot.js'
import { benchSnapshots } from './bench-data.js'

/** CPU seconds per cell, in SLICES slices that alternate between the two snapshots. */
const SECONDS = 1
const SLICES = 5

async function snapshotOf(listings: number): Promise<Snapshot> {
  return Snapshot.open(await benchSnapshots(listings))
}

/** The answer's JSON, or the error envelope's when the data is too thin: both are answers. */
function respond(call: () => string): string {
  try {
    return call()
  } catch (error) {
    if (error instanceof ApiError) return JSON.stringify(error.toJSON())
    throw error
  }
}

/** CPU seconds this process has used: a busy machine's descheduling does not count. */
function cpuSeconds(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}

/** Calls of one question repeated for `seconds` of CPU time, and the CPU time they took. */
function slice(call: () => string, seconds: number): { calls: number; cpu: number } {
  let calls = 0
  let sink = 0
  const started = cpuSeconds()
  while (cpuSeconds() - started < seconds) {
    for (let i = 0; i < 1000; i++) sink += respond(call).length
    calls += 1000
  }
  if (sink === 0) throw new Error('no answer')
  return { calls, cpu: cpuSeconds() - started }
}

interface Rate {
  perSecond: number
  answered: boolean
}

/**
 * Calls per CPU second of one question on each snapshot, measured in alternating slices
 * so that both meet the same moments of the machine, and whether each was answered with data.
 */
function rates(a: () => string, b: () => string): [Rate, Rate] {
  const calls = [0, 0]
  const cpu = [0, 0]
  for (let i = 0; i < SLICES; i++) {
    for (const [at, call] of [a, b].entries()) {
      const measured = slice(call, SECONDS / SLICES)
      calls[at]! += measured.calls
      cpu[at]! += measured.cpu
    }
  }
  const rate = (call: () => string, at: number): Rate => ({
    perSecond: calls[at]! / cpu[at]!,
    answered: !respond(call).includes('INSUFFICIENT_DATA'),
  })
  return [rate(a, 0), rate(b, 1)]
}

/** A question, asked of a given snapshot. */
type Question = (snapshot: Snapshot) => () => string

/** A market question, its parameters guarded once, as the runtime guards them before answering. */
function market(operation: Operation, query: Record<string, string>): Question {
  return (snapshot) => {
    const request = marketRequest(operation, (name) => query[name], snapshot.maxYear)
    return () => answerJson(snapshot, request)
  }
}

const small = await snapshotOf(10_000)
const large = await snapshotOf(1_400_000)
const golf = { make: 'VW', model: 'Golf', year: '2017' }
const filters = { fuel_type: 'petrol', gearbox: 'manual' }
const window = { mileage: '150000' }
// Near the key's median on both snapshots, so the verdict is fair and both searches run to the middle.
const asking = { asking_price: '55000' }
const cases: [string, Question][] = [
  ...KEY_OPERATIONS.map((operation): [string, Question] => [operation, market(operation, golf)]),
  ['valuation, fuel and gearbox', market('valuation', { ...golf, ...filters })],
  ['valuation, mileage window', market('valuation', { ...golf, ...window })],
  ['valuation, asking price', market('valuation', { ...golf, ...asking })],
  ['valuation, asking price, fuel and gearbox', market('valuation', { ...golf, ...asking, ...filters })],
  ['valuation, asking price, mileage window', market('valuation', { ...golf, ...asking, ...window })],
  ['depreciation', market('depreciation', { make: 'VW', model: 'Golf' })],
  ['depreciation, fuel', market('depreciation', { make: 'VW', model: 'Golf', fuel_type: 'diesel' })],
  ['catalogue makes', (snapshot) => () => snapshot.catalogMakesJson()],
  ['catalogue models (VW)', (snapshot) => () => snapshot.catalogModelsJson('VW')],
]
const key = { ...golf, year: 2017, fuel_type: null, gearbox: null, mileage: null }
const years = (snapshot: Snapshot) => snapshot.depreciation({ make: 'VW', model: 'Golf' }).curve.length
const lines = [
  `Volkswagen Golf 2017: ${small.valuation(key).sample_size} listings in the 10k snapshot, ${large.valuation(key).sample_size} in the 1.4M one; ` +
    `its depreciation curve: ${years(small)} and ${years(large)} production years (* = too few listings: an INSUFFICIENT_DATA answer).`,
  '| call | 10k snapshot | 1.4M snapshot | 1.4M / 10k |',
  '|---|---|---|---|',
]
const cell = (r: Rate) => `${Math.round(r.perSecond).toLocaleString('en-US')}/s${r.answered ? '' : ' *'}`
for (const [label, question] of cases) {
  const [a, b] = rates(question(small), question(large))
  lines.push(`| ${label} | ${cell(a)} | ${cell(b)} | ${(b.perSecond / a.perSecond).toFixed(2)} |`)
}
process.stdout.write(
  `node ${process.version}, calls per second of CPU time, ${SECONDS} s of it per cell in ${SLICES} slices alternating between the snapshots\n${lines.join('\n')}\n`,
)
await small.close()
await large.close()
