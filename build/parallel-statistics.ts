import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { StoredAnswer, renderAnswer } from '../format/rendered.js'
import { KEY_OPERATIONS, type AnswerRecords, type Operation, type Target } from '../format/schema.js'
import { answerProblem } from '../query/answer-consistency.js'
import { BuildError, type BuildErrorCode } from './build-error.js'
import { StatisticsBuilder, type GroupedRows, type KeyStatistics, type YearMedian } from './statistics.js'

/**
 * One key to compute: a model or family, the canonical models it pools (each of the body
 * in `bodies` alone where that is not UNKNOWN: a body variant's base), a production year.
 */
export interface KeyJob {
  readonly target: Target
  readonly models: readonly number[]
  readonly bodies: readonly number[]
  readonly year: number
}

/** A key as the snapshot stores it: its answers rendered (in KEY_OPERATIONS order), its columns and its medians. */
export interface RenderedKey {
  readonly target: Target
  readonly year: number
  readonly answers: readonly Uint8Array[]
  readonly columns: Uint8Array | undefined
  /** For its model's or family's depreciation, which the writer assembles once every year is in. */
  readonly medians: readonly YearMedian[]
}

/** What a statistics worker is started with. */
export interface StatisticsWorkerSetup {
  readonly rows: GroupedRows
  readonly jobs: readonly KeyJob[]
}
/** Statistics worker to main thread. */
export type StatisticsMessage =
  | { readonly kind: 'keys'; readonly keys: readonly RenderedKey[] }
  | { readonly kind: 'done' }
  | {
      readonly kind: 'failed'
      readonly message: string
      readonly stack: string | undefined
      /** The code of a BuildError (an expected failure); undefined for any other error. */
      readonly code: BuildErrorCode | undefined
    }

/** Keys a worker sends at a time: few messages, and the main thread never waits long for one. */
export const BATCH_KEYS = 128
const WORKER = new URL('./statistics-worker.js', import.meta.url)
/** Below this many keys a second thread costs more to start than it saves. */
const MIN_PARALLEL_KEYS = 2000

export function renderKey(key: KeyStatistics): RenderedKey {
  return {
    target: key.target,
    year: key.year,
    answers: KEY_OPERATIONS.map((operation) => checkedAnswer(operation, key.records[operation], key.target, key.year)),
    columns: key.columns,
    medians: key.medians,
  }
}

const checker = new StoredAnswer()

/**
 * An operation's record rendered and read back as the runtime will read it (contract 2:
 * every answer is checked as it is written, not a sample): JSON in every variant, finite
 * numbers only, figures that agree with each other. A figure gone wrong fails the build
 * here, naming its key, and nothing is published.
 */
export function checkedAnswer<O extends Operation>(
  operation: O,
  record: AnswerRecords[O],
  target: Target,
  year: number,
): Buffer {
  const bytes = renderAnswer(operation, record)
  const problem = answerProblem(checker, bytes, operation)
  if (problem !== undefined) {
    const key = `${target.make} ${target.name}${year === 0 ? '' : ` ${year}`}`
    throw new BuildError('unsound_snapshot', `the ${operation} answer of ${key} would be wrong: ${problem}`)
  }
  return bytes
}

/**
 * Every key's statistics, rendered, on two threads: this one computes every other key
 * and a worker the rest, from the same grouped rows in shared memory. Keys come out in
 * no particular order (the snapshot's B-tree orders them).
 */
export async function* renderedKeys(rows: GroupedRows, jobs: readonly KeyJob[]): AsyncGenerator<RenderedKey> {
  const builder = new StatisticsBuilder(rows)
  const compute = (job: KeyJob) => renderKey(builder.key(job.target, job.models, job.bodies, job.year))
  if (availableParallelism() < 2 || jobs.length < MIN_PARALLEL_KEYS) {
    for (const job of jobs) yield compute(job)
    return
  }
  const theirs = jobs.filter((_, i) => i % 2 === 1)
  const mine = jobs.filter((_, i) => i % 2 === 0)
  const inbox: (readonly RenderedKey[])[] = []
  let done = false
  let failure: Error | undefined
  let wake: (() => void) | undefined
  const worker = new Worker(WORKER, {
    workerData: { rows, jobs: theirs } satisfies StatisticsWorkerSetup,
    execArgv: [],
  })
  worker.on('message', (message: StatisticsMessage) => {
    if (message.kind === 'keys') inbox.push(message.keys)
    else if (message.kind === 'done') done = true
    else
      failure = new BuildError(
        message.code ?? 'statistics_failed',
        message.code === undefined ? `computing the statistics failed: ${message.message}` : message.message,
      )
    wake?.()
  })
  worker.on('error', (error) => {
    failure = error
    wake?.()
  })
  worker.on('exit', () => {
    if (!done && failure === undefined)
      failure = new BuildError('statistics_failed', 'the statistics worker stopped before it finished')
    wake?.()
  })
  try {
    for (let i = 0; i < mine.length; i++) {
      yield compute(mine[i]!)
      if (i % BATCH_KEYS === BATCH_KEYS - 1) {
        // Lets the worker's messages in: they arrive as tasks, after this turn.
        await new Promise<void>((resolve) => setImmediate(resolve))
        if (failure !== undefined) throw failure
        while (inbox.length > 0) yield* inbox.shift()!
      }
    }
    for (;;) {
      while (inbox.length > 0) yield* inbox.shift()!
      if (failure !== undefined) throw failure
      if (done) return
      await new Promise<void>((resolve) => (wake = resolve))
    }
  } finally {
    await worker.terminate()
  }
}
