import { format } from 'node:util'

/**
 * An event an operator should see (a refused snapshot, an unexpected error, a worker
 * that died), as one JSON line on stderr: stdout carries only the request log.
 */
export function logEvent(
  level: 'info' | 'warn' | 'error',
  message: string,
  fields: Readonly<Record<string, unknown>> = {},
): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`)
}

/** Library messages let through a second; beyond them, one line says how many were dropped. */
const LIBRARY_LINES_PER_SECOND = 10

/**
 * Routes what libraries print with console.error and console.warn into the event log
 * as JSON lines (stderr stays one JSON object a line), at most LIBRARY_LINES_PER_SECOND
 * a second: a failing disk makes lmdb-js print a stack for every failed commit, which
 * the storage watch already reports once, with its cause.
 */
export function captureConsole(): void {
  let second = 0
  let lines = 0
  let dropped = 0
  const write =
    (level: 'warn' | 'error') =>
    (...args: unknown[]) => {
      const now = Math.floor(Date.now() / 1000)
      if (now !== second) {
        if (dropped > 0) logEvent('warn', 'library messages dropped', { dropped })
        second = now
        lines = 0
        dropped = 0
      }
      if (++lines > LIBRARY_LINES_PER_SECOND) dropped++
      else logEvent(level, 'library message', { text: format(...args) })
    }
  console.error = write('error')
  console.warn = write('warn')
}
