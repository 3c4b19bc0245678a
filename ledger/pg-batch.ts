/** Batches on their way to the server at once, each on a pooled connection of its own. */
const BATCHES_IN_FLIGHT = 4
/** Items in one batch at most. */
const BATCH_SIZE = 500

interface Waiting<T, R> {
  readonly item: T
  readonly resolve: (result: R | PromiseLike<R>) => void
  readonly reject: (error: unknown) => void
}

/**
 * Work for the server that shares round trips and commits. An item waits for the batches
 * in flight (at most BATCHES_IN_FLIGHT) and then goes with every item that waited beside
 * it, in one call of `send`: however many requests want the same kind of work at once,
 * the server sees a few statements at a time, never one awaited round trip per request
 * in series. An item that finds nothing in flight goes at the end of the event loop's
 * turn, with whatever else that turn added.
 *
 * A batch may answer an item later, with a promise of its result (a batch of debits that
 * lost its answer and asks what it did): that no longer holds a place in flight, so the
 * items after it are not held up by it.
 */
export class Batches<T, R> {
  private readonly waiting: Waiting<T, R>[] = []
  private inFlight = 0
  private scheduled = false

  constructor(
    /** Does a batch's work: one result (or a promise of it) per item, in their order; a rejection is every item's. */
    private readonly send: (items: readonly T[]) => Promise<readonly (R | PromiseLike<R>)[]>,
  ) {}

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject })
      this.schedule()
    })
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= BATCHES_IN_FLIGHT || this.waiting.length === 0) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      while (this.inFlight < BATCHES_IN_FLIGHT && this.waiting.length > 0) void this.settle(this.waiting.splice(0, BATCH_SIZE))
    })
  }

  private async settle(batch: readonly Waiting<T, R>[]): Promise<void> {
    this.inFlight++
    try {
      const results = await this.send(batch.map(({ item }) => item))
      batch.forEach(({ resolve }, i) => resolve(results[i]!))
    } catch (error) {
      for (const { reject } of batch) reject(error)
    } finally {
      this.inFlight--
      this.schedule()
    }
  }
}
