import {
  AggregatorRegistry,
  Registry,
  collectDefaultMetrics,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client'

/** One process's default series, as prom-client gives them to be summed with other processes'. */
export type ProcessSeries = MetricObjectWithValues<MetricValue<string>>[]

/**
 * The series every Node.js exporter has (process_* for CPU, memory and file descriptors,
 * nodejs_* for the heap, the event loop, handles, garbage collection and the version),
 * kept by prom-client in a registry of their own beside the service's counts, which
 * keep their own exposition (metrics.ts). Collected when asked: nothing runs per request.
 */
const registry = new Registry()
collectDefaultMetrics({ register: registry })

/** This process's series, to cross the cluster's IPC channel with its counts. */
export function processSeries(): Promise<ProcessSeries> {
  return registry.getMetricsAsJSON() as Promise<ProcessSeries>
}

/**
 * Every serving process's series as one exposition: summed, or as prom-client's own
 * rule for a series says (the version given once, the oldest start time, and so on).
 */
export function renderProcessSeries(processes: readonly ProcessSeries[]): Promise<string> {
  return AggregatorRegistry.aggregate(processes as ProcessSeries[]).metrics()
}
