import cluster, { type Worker } from 'node:cluster'
import type { AddressInfo } from 'node:net'
import { logEvent } from './events.js'
import { mergeSamples, type MetricsSample } from './metrics.js'
import { DRAIN_MS } from './server.js'

/**
 * `carmarket serve --workers N`: N processes under node:cluster share the listening
 * socket, the snapshot's pages (the file is mapped, not copied) and the LMDB ledger and
 * counters, whose transactions LMDB serialises across processes, so balances, quotas
 * and rate limits stay exact whichever worker answers. The primary serves nothing: it
 * starts and replaces workers, passes SIGHUP on as a snapshot reload, stops them on
 * SIGTERM, and sums their counts for /metrics.
 */

/** How long the primary waits for every worker's counts before answering /metrics with those it has. */
const GATHER_MS = 2_000
/** Crashes allowed in a minute: beyond them a crash loop is stopped rather than fed. */
const MAX_CRASHES_PER_MINUTE = 10
/**
 * Deaths by these signals are faults of the code or the machine (a crash). SIGKILL,
 * SIGTERM and the like come from outside (an operator, the OOM killer): the worker is
 * replaced, but that is no loop to stop.
 */
const CRASH_SIGNALS: ReadonlySet<string> = new Set([
  'SIGSEGV',
  'SIGBUS',
  'SIGABRT',
  'SIGILL',
  'SIGFPE',
  'SIGSYS',
  'SIGTRAP',
])
/**
 * How long a worker that has left the cluster (its IPC channel closed) may take to end.
 * One that hangs while ending, with a ledger write of its own unfinished, would hold
 * LMDB's writer lock against its siblings; killed, it releases every lock it held.
 */
const EXIT_GRACE_MS = 5_000
/**
 * The exit code of a process whose ledger or counters engine is broken for it (a fatal
 * LMDB error, see ledger/lmdb-writes.ts): it stopped to be replaced, which is no crash
 * (EX_TEMPFAIL of sysexits.h). A single-process service leaves that to its supervisor.
 */
export const STORAGE_BROKEN_EXIT = 75

type Message =
  | { readonly carmarket: 'gather'; readonly id: number }
  | { readonly carmarket: 'gathered'; readonly id: number; readonly sample: MetricsSample }
  | { readonly carmarket: 'sample?'; readonly id: number }
  | { readonly carmarket: 'sample'; readonly id: number; readonly sample: MetricsSample }
  | { readonly carmarket: 'reload' }
  | { readonly carmarket: 'stop' }
  | { readonly carmarket: 'failed'; readonly failure: StartFailure }
  | { readonly carmarket: 'listening'; readonly address: string; readonly port: number }

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && 'carmarket' in value
}

/** Why a worker could not start, as the command tells it (one line), and the exit code it chose. */
export interface StartFailure {
  readonly text: string
  readonly code: number
}

/** How the workers ended: the exit code, and why they could not start when one could not. */
export interface Stopped {
  readonly code: number
  readonly failure?: StartFailure
}

/**
 * The primary: forks `count` workers (each runs this same command) and keeps them
 * running. Resolves once every worker has stopped. A worker that cannot start tells the
 * primary why, and the others are stopped: the reason is told once, by the caller,
 * rather than by every worker and among the primary's own events.
 */
export function runPrimary(count: number, onListening: (address: string, port: number) => void): Promise<Stopped> {
  // Workers accept connections on the shared socket themselves. Under node's default
  // (the primary accepts and hands each connection over), a connection being handed to a
  // worker at the moment it dies is held by the primary and never answered nor closed:
  // its client hangs until its own timeout. Accepted by the kernel for a worker, it is
  // closed at once when that worker dies. The cost: the kernel, not a strict rotation,
  // spreads connections, and a busy worker accepts fewer.
  cluster.schedulingPolicy = cluster.SCHED_NONE
  let stopping = false
  let announced = false
  const started = new Set<Worker>()
  let crashes: number[] = []
  let failure: StartFailure | undefined
  /**
   * /metrics requests being summed: the asking worker, its own id for the request, the counts so far and the workers
   * not heard from.
   */
  const gathers = new Map<
    number,
    {
      readonly from: Worker
      readonly replyTo: number
      readonly samples: MetricsSample[]
      readonly waiting: Set<Worker>
      readonly timer: NodeJS.Timeout
    }
  >()
  let nextGather = 0

  const live = () => [...started].filter((w) => w.isConnected())
  const fork = () => {
    const worker = cluster.fork()
    // A message to a worker that has just died fails (EPIPE); its exit is handled on its
    // own, and an 'error' nobody listens for would end the primary, and the service.
    worker.on('error', (error) =>
      logEvent('warn', 'a message to a worker was lost', { pid: worker.process.pid, reason: error.message }),
    )
    started.add(worker)
  }
  const finish = (id: number) => {
    const gather = gathers.get(id)
    if (gather === undefined) return
    gathers.delete(id)
    clearTimeout(gather.timer)
    if (gather.from.isConnected())
      gather.from.send({
        carmarket: 'gathered',
        id: gather.replyTo,
        sample: mergeSamples(gather.samples),
      } satisfies Message)
  }

  /**
   * Workers that answer: each says so once its runtime is made and it hears orders,
   * which is after node has it listening (its links name the port, known only then).
   */
  const listening = new Set<Worker>()
  cluster.on('disconnect', (worker) => {
    const timer = setTimeout(() => {
      if (worker.process.exitCode !== null || worker.process.signalCode !== null) return
      logEvent('error', 'a worker that left did not end; killing it', { pid: worker.process.pid })
      worker.process.kill('SIGKILL')
    }, EXIT_GRACE_MS)
    worker.process.once('exit', () => clearTimeout(timer))
  })
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message)) return
    if (message.carmarket === 'listening') {
      listening.add(worker)
      if (announced || listening.size < count) return
      announced = true
      onListening(message.address, message.port)
    } else if (message.carmarket === 'gather') {
      const id = nextGather++
      // A worker still starting cannot answer yet: waiting for it would stall /metrics.
      const workers = live().filter((w) => listening.has(w))
      gathers.set(id, {
        from: worker,
        replyTo: message.id,
        samples: [],
        waiting: new Set(workers),
        timer: setTimeout(() => finish(id), GATHER_MS),
      })
      for (const w of workers) w.send({ carmarket: 'sample?', id } satisfies Message)
    } else if (message.carmarket === 'failed') {
      failure ??= message.failure
    } else if (message.carmarket === 'sample') {
      const gather = gathers.get(message.id)
      if (gather === undefined) return
      gather.samples.push(message.sample)
      gather.waiting.delete(worker)
      if (gather.waiting.size === 0) finish(message.id)
    }
  })

  return new Promise<Stopped>((resolve) => {
    let code = 0
    const done = () => resolve(failure === undefined ? { code } : { code: failure.code, failure })
    const stop = () => {
      if (!stopping) {
        if (failure === undefined)
          process.stderr.write('carmarket: stopping the workers (each finishes its requests in flight)\n')
        // A worker that outlives its own drain is ended, so stopping is bounded.
        setTimeout(() => {
          for (const worker of started) worker.process.kill('SIGKILL')
        }, DRAIN_MS + EXIT_GRACE_MS).unref()
      }
      stopping = true
      // One still starting has nothing in flight, and hears no orders until it listens.
      for (const worker of live()) {
        if (listening.has(worker)) worker.send({ carmarket: 'stop' } satisfies Message)
        else worker.process.kill('SIGTERM')
      }
      if (started.size === 0) done()
    }
    const ended = (worker: Worker, exitCode: number, signal: string | null) => {
      started.delete(worker)
      for (const [id, gather] of gathers) if (gather.waiting.delete(worker) && gather.waiting.size === 0) finish(id)
      // Why it could not start is told once, when every worker has stopped.
      if (failure !== undefined && !stopping) stop()
      if (!stopping) {
        logEvent('error', 'worker stopped', { pid: worker.process.pid, code: exitCode, signal })
        const now = Date.now()
        const crashed = signal === null ? exitCode !== 0 && exitCode !== STORAGE_BROKEN_EXIT : CRASH_SIGNALS.has(signal)
        if (crashed) crashes = [...crashes.filter((at) => at > now - 60_000), now]
        // A worker that crashed before it listened failed to start (a bad option, the
        // port in use): its replacement would too.
        if ((crashed && !listening.has(worker)) || crashes.length > MAX_CRASHES_PER_MINUTE) {
          logEvent(
            'error',
            listening.has(worker) ? 'workers keep crashing; stopping' : 'a worker failed to start; stopping',
          )
          code = 1
          stop()
        } else {
          fork()
        }
      }
      listening.delete(worker)
      if (stopping && started.size === 0) done()
    }
    // A worker's last messages (why it could not start) are read by the time its channel
    // closes, which may be after its exit.
    cluster.on('exit', (worker, exitCode, signal) => {
      if (worker.isConnected()) worker.once('disconnect', () => ended(worker, exitCode, signal))
      else ended(worker, exitCode, signal)
    })
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
    process.on('SIGHUP', () => {
      for (const worker of live()) worker.send({ carmarket: 'reload' } satisfies Message)
    })
    for (let i = 0; i < count; i++) fork()
  })
}

/** What a worker does at the primary's request. */
interface WorkerOrders {
  readonly sample: () => Promise<MetricsSample>
  readonly reload: () => void
  readonly stop: () => void
}

/**
 * A worker's side: `gather` asks the primary for every worker's counts summed (the
 * runtime's gatherMetrics), serve() tells the primary this worker listens at `address`
 * and answers its requests for this worker's counts and its orders to reload the
 * snapshot or to stop, and fail() tells the primary why this worker could not start,
 * then ends it.
 */
export function workerLink(): {
  readonly gather: (own: MetricsSample) => Promise<MetricsSample>
  readonly serve: (worker: WorkerOrders, address: AddressInfo) => void
  readonly fail: (failure: StartFailure) => Promise<never>
} {
  const waiting = new Map<number, (sample: MetricsSample) => void>()
  let nextId = 0
  const gather = (own: MetricsSample) =>
    new Promise<MetricsSample>((resolve) => {
      const id = nextId++
      // Without an answer (the primary busy or gone) this worker's own counts are better than none.
      const timer = setTimeout(() => {
        waiting.delete(id)
        resolve(own)
      }, GATHER_MS * 2)
      waiting.set(id, (sample) => {
        clearTimeout(timer)
        waiting.delete(id)
        resolve(sample)
      })
      process.send!({ carmarket: 'gather', id } satisfies Message)
    })
  const serve = (worker: WorkerOrders, address: AddressInfo) => {
    process.on('message', (message: unknown) => {
      if (!isMessage(message)) return
      if (message.carmarket === 'sample?')
        // The channel may close while the counts are read: the primary then no longer waits for them.
        worker
          .sample()
          .then((sample) => {
            if (process.connected) process.send!({ carmarket: 'sample', id: message.id, sample } satisfies Message)
          })
          // Counts that could not be read or sent: the primary answers /metrics with the others' when it stops waiting.
          .catch(() => {})
      else if (message.carmarket === 'gathered') waiting.get(message.id)?.(message.sample)
      else if (message.carmarket === 'reload') worker.reload()
      else if (message.carmarket === 'stop') worker.stop()
    })
    process.send!({ carmarket: 'listening', address: address.address, port: address.port } satisfies Message)
  }
  // Settles never: the process ends once the message is sent.
  const fail = (failure: StartFailure) =>
    new Promise<never>(() =>
      process.send!({ carmarket: 'failed', failure } satisfies Message, () => process.exit(failure.code)),
    )
  return { gather, serve, fail }
}
