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

/**
 * The client a request is counted as by every limit per client (the rate limit, the demo
 * quota, the signup limits): an IPv4 address as itself, IPv4-mapped IPv6 as that IPv4
 * address, and an IPv6 address by its first `ipv6Prefix` bits, since a client is given a
 * whole /64 (RFC 6177) and could otherwise take a new address for every call. Written
 * one way whatever the spelling (`2001:db8::/64`), so that spellings of one prefix count
 * together.
 */
export function clientKey(address: string, ipv6Prefix: number): string {
  const groups = ipv6Groups(address)
  if (groups === undefined) return address
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.')
  const kept = groups.map((group, i) => {
    const bits = Math.min(16, Math.max(0, ipv6Prefix - i * 16))
    return bits === 16 ? group : group & ((0xffff << (16 - bits)) & 0xffff)
  })
  return `${compressed(kept)}/${ipv6Prefix}`
}

/** The eight 16-bit groups of an IPv6 address (a zone and an embedded IPv4 tail allowed), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  const bare = address.replace(/%.*$/, '')
  if (isIP(bare) !== 6) return undefined
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined]
  const words = (part: string | undefined) =>
    part === undefined || part === ''
      ? []
      : part.split(':').flatMap((w) => {
          if (!w.includes('.')) return [parseInt(w, 16)]
          const [a, b, c, d] = w.split('.').map(Number) as [number, number, number, number]
          return [(a << 8) | b, (c << 8) | d]
        })
  const front = words(head)
  const back = words(tail)
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back]
}

/** RFC 5952's text of eight groups: lower case, the longest run of two or more zero groups as `::`. */
function compressed(groups: readonly number[]): string {
  let best = -1
  let length = 1
  for (let i = 0; i < 8;) {
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > length) [best, length] = [i, j - i]
    i = j === i ? i + 1 : j
  }
  const hex = groups.map((g) => g.toString(16))
  return best < 0 ? hex.join(':') : `${hex.slice(0, best).join(':')}::${hex.slice(best + length).join(':')}`
}
