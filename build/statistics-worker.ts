/**
 * A worker thread that computes and renders its share of the keys (parallel-statistics.ts)
 * from the grouped rows the main thread shares, and posts them in batches.
 */
import { parentPort, workerData } from 'node:worker_threads'
import {
  BATCH_KEYS,
  renderKey,
  type RenderedKey,
  type StatisticsMessage,
  type StatisticsWorkerSetup,
} from './parallel-statistics.js'
import { StatisticsBuilder } from './statistics.js'
import { messageOf } from '../format/message-of.js'
import { BuildError } from './build-error.js'

const port = parentPort!
const post = (message: StatisticsMessage) => port.postMessage(message)
const { rows, jobs } = workerData as StatisticsWorkerSetup

try {
  const builder = new StatisticsBuilder(rows)
  let batch: RenderedKey[] = []
  for (const job of jobs) {
    batch.push(renderKey(builder.key(job.target, job.models, job.bodies, job.year)))
    if (batch.length === BATCH_KEYS) {
      post({ kind: 'keys', keys: batch })
      batch = []
    }
  }
  post({ kind: 'keys', keys: batch })
  post({ kind: 'done' })
} catch (error) {
  post({
    kind: 'failed',
    message: messageOf(error),
    stack: error instanceof Error ? error.stack : undefined,
    code: error instanceof BuildError ? error.code : undefined,
  })
}
