import type { Socket } from 'node:net'

/**
 * The client of a request went away before its answer could be delivered: nothing was
 * charged or counted for it, and nothing is sent. Counted and logged as 499, the status
 * proxies use for a request its client closed.
 */
export class ClientGone extends Error {
  override name = 'ClientGone'
  constructor() {
    super('the client closed the connection before the answer')
  }
}

/** The status a request whose client went away is counted and logged with. */
export const CLIENT_CLOSED_REQUEST = 499

/**
 * Whether an answer can still reach the client of `socket`. A client that half-closed
 * (sent its request, then FIN) still reads; one that reset the connection, or whose
 * socket failed, does not.
 *
 * Linux reports a reset to a reader as a plain end of stream, like a FIN, so the
 * socket's own state cannot tell the two apart; the peer's address can: a reset
 * connection has none any more (getpeername fails with ENOTCONN), a half-closed one
 * still has it. Node caches `remoteAddress`, so the handle is asked afresh: one system
 * call, made only once the client's side has ended (a FIN or a reset was read): a
 * client whose side is open is there, and asking costs the main thread a system call
 * inside every debit's transaction. A client that closes its socket (FIN, no reset)
 * right after sending is still connected to the kernel's eyes until the answer is
 * written: it is answered and charged like a half-closed one.
 */
export function reachable(socket: Socket): boolean {
  if (socket.destroyed || !socket.writable) return false
  if (!socket.readableEnded) return true
  const handle: unknown = (socket as unknown as { _handle?: unknown })._handle
  return !hasPeerName(handle) || handle.getpeername({}) === 0
}

function hasPeerName(handle: unknown): handle is { getpeername(out: object): number } {
  return (
    typeof handle === 'object' &&
    handle !== null &&
    typeof (handle as { getpeername?: unknown }).getpeername === 'function'
  )
}
