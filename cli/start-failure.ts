import { EnvironmentError, isSystemError } from './handle-error.js'

/** What `carmarket serve` was asked to use, for telling why it could not. */
export interface StartPlaces {
  readonly host: string
  readonly port: number
  readonly snapshots: string
}

/** The system calls of listening (`bind` is a cluster worker's) and of resolving the host. */
const LISTENING = new Set(['listen', 'bind', 'getaddrinfo'])

/**
 * Why the runtime could not start, told in one line with what to do, when the machine
 * refused it: the address could not be listened on, or the snapshots folder (the only
 * files the runtime itself opens while starting) could not be read. Anything else is
 * returned as it is.
 */
export function startFailure(error: unknown, { host, port, snapshots }: StartPlaces): unknown {
  if (!isSystemError(error)) return error
  if (!LISTENING.has(error.syscall ?? '')) {
    return new EnvironmentError(
      `the snapshots folder ${snapshots} cannot be read (${error.message}); give --snapshots (env CARMARKET_SNAPSHOTS) a folder this user can read, or create when it is missing`,
    )
  }
  const choosePort = 'choose another with --port (env PORT), 0 for any free one'
  const chooseHost = 'give --host (env HOST) one such as 127.0.0.1 (this machine alone) or 0.0.0.0 (every interface)'
  switch (error.code) {
    case 'EADDRINUSE':
      return new EnvironmentError(`port ${port} on ${host} is in use by another program: stop it, or ${choosePort}`)
    case 'EACCES':
      return new EnvironmentError(
        `port ${port} needs privileges this user lacks: choose one above 1023 with --port (env PORT)`,
      )
    case 'EADDRNOTAVAIL':
      return new EnvironmentError(
        `cannot listen on ${host}: no interface of this machine has that address; ${chooseHost}`,
      )
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new EnvironmentError(
        `cannot listen on ${host}: the name cannot be resolved (${error.code}); ${chooseHost}`,
      )
    default:
      return new EnvironmentError(`cannot listen on ${host} port ${port} (${error.message})`)
  }
}

/** The outbox folder could not be made ready: told with what to do, like the ledger's. */
export function outboxFailure(error: unknown, dir: string): unknown {
  if (!isSystemError(error)) return error
  return new EnvironmentError(
    `the outbox folder ${dir} cannot be created (${error.message}); give --outbox (env CARMARKET_OUTBOX) a folder this user can create and write`,
  )
}
