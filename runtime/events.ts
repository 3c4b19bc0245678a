/**
 * An event an operator should see (a refused snapshot, an unexpected error, a worker
 * that died), as one JSON line on stderr: stdout carries only the request log.
 */
export function logEvent(level: 'info' | 'warn' | 'error', message: string, fields: Readonly<Record<string, unknown>> = {}): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`)
}
