import { isIPv6 } from 'node:net'

/**
 * The address links name when no public URL is given: where the service listens, as
 * this machine reaches it. A host that stands for every interface is reached at the
 * loopback; an IPv6 address is bracketed, without its zone (a URL has no place for one).
 */
export function listenedUrl(host: string, port: number): string {
  const everywhere = host === '' || host === '0.0.0.0' || (isIPv6(host) && /^[0:]+$/.test(host))
  const name = everywhere ? '127.0.0.1' : isIPv6(host) ? `[${host.replace(/%.*/, '')}]` : host
  return `http://${name}:${port}`
}
