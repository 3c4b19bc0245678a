import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

/** An IPv4 address written as IPv4-mapped IPv6 (::ffff:1.2.3.4) is that IPv4 address. */
export function canonicalIp(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return mapped === null ? address.toLowerCase() : mapped[1]!
}

/**
 * The client's address for limits and quotas: the socket's, unless the socket is one
 * of the operator's proxies; then X-Forwarded-For is read from the right, skipping
 * proxies, and the first address that is not one is the client. A header from anyone
 * else is ignored, so a caller cannot choose its own address.
 */
export function clientIp(req: IncomingMessage, trustedProxies: ReadonlySet<string>): string {
  const socket = canonicalIp(req.socket.remoteAddress ?? 'unknown')
  if (!trustedProxies.has(socket)) return socket
  const header = req.headers['x-forwarded-for']
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((a) => a.trim())
  for (let i = forwarded.length - 1; i >= 0; i--) {
    const address = forwarded[i]!
    if (isIP(address) === 0) return socket
    const ip = canonicalIp(address)
    if (!trustedProxies.has(ip)) return ip
  }
  return socket
}
