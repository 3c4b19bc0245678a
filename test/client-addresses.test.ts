import t from 'tap'
import { clientKey } from '../runtime/client-ip.js'
import { ACCOUNTS_PER_CLIENT_PER_DAY } from '../runtime/registration.js'
import { awayFromMinuteEnd, build, rows, serve, toCsv } from './support.js'

/**
 * A client owns at least an IPv6 /64: every limit counted per client address (the rate
 * limit, the demo quota, the signup limits) counts an IPv6 client by its /64 (the prefix
 * length an option), an IPv4 one by its address, and IPv4-mapped IPv6 as IPv4.
 */

const GOLF = '/v1/market/valuation?make=VW&model=Golf&year=2017'
/** Addresses of one /64, and one beside it. */
const SAME_64 = ['2001:db8:7:1::1', '2001:db8:7:1:ffff:ffff:ffff:fffe', '2001:DB8:7:1:0:0:0:9', '2001:db8:7:1:abcd::']
const NEXT_64 = '2001:db8:7:2::1'

async function served(t: Parameters<typeof build>[0], options: { ipv6Prefix?: number } = {}) {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  return serve(t, { snapshots, demoQuota: 3, rateLimit: 5, trustedProxies: ['127.0.0.1'], ...options })
}
const from = (address: string) => ({ headers: { 'x-forwarded-for': address } })

t.test('the demo quota counts one IPv6 /64 as one client', async (t) => {
  const { get } = await served(t)
  const statuses: number[] = []
  for (const address of SAME_64) statuses.push((await get(GOLF, from(address))).status)
  t.same(statuses, [200, 200, 200, 429], 'three demo calls for the whole /64')
  t.equal((await get(GOLF, from(NEXT_64))).status, 200, 'the next /64 is another client')
})

t.test('the rate limit counts one IPv6 /64 as one client, IPv4-mapped IPv6 as IPv4', async (t) => {
  const { get } = await served(t)
  const livez = async (address: string) => (await get('/livez', from(address))).status
  await awayFromMinuteEnd(5)
  const statuses: number[] = []
  for (let i = 0; i < 6; i++) statuses.push(await livez(`2001:db8:9:9:${i}::${i + 1}`))
  t.same(statuses, [200, 200, 200, 200, 200, 429], 'five requests a minute for the whole /64')
  for (let i = 0; i < 5; i++) await livez(i % 2 === 0 ? '198.51.100.7' : '::ffff:198.51.100.7')
  t.equal(await livez('::ffff:c633:6407'), 429, 'written as hex, the same IPv4 address')
  t.equal(await livez('198.51.100.8'), 200, 'another IPv4 address')
})

t.test('the signup limit counts one IPv6 /64 as one client', async (t) => {
  const { post } = await served(t)
  const asked: number[] = []
  for (let i = 0; i < ACCOUNTS_PER_CLIENT_PER_DAY + 3; i++) {
    const reply = await post('/v1/auth/register', { email: `n${i}@example.com` }, from(`2001:db8:5:5::${i + 1}`))
    asked.push(reply.status)
  }
  t.ok(asked.includes(429), `the /64 is refused codes past its limit (${asked.join(', ')})`)
})

t.test('--ipv6-prefix sets how much of an IPv6 address a client owns', async (t) => {
  const { get } = await served(t, { ipv6Prefix: 128 })
  const statuses: number[] = []
  for (const address of SAME_64) statuses.push((await get(GOLF, from(address))).status)
  t.same(statuses, [200, 200, 200, 200], 'every address its own client at /128')
})

t.test('client keys: IPv6 by prefix in one spelling, IPv4 by address', async (t) => {
  t.equal(clientKey('2001:DB8:0:0:1::1', 64), '2001:db8::/64')
  t.equal(clientKey('2001:db8::1:0:0:1', 64), '2001:db8::/64', 'the same /64 however it is written')
  t.equal(clientKey('2001:db8:aaaa:bbbb:cccc::1', 48), '2001:db8:aaaa::/48')
  t.equal(clientKey('2001:db8:aaaa:bbbb:cccc::1', 56), '2001:db8:aaaa:bb00::/56', 'a prefix inside a group')
  t.equal(clientKey('2001:db8::1', 128), '2001:db8::1/128')
  t.equal(clientKey('fe80::1%eth0', 64), 'fe80::/64', 'a zone is no part of the client')
  t.equal(clientKey('::ffff:192.0.2.1', 64), '192.0.2.1')
  t.equal(clientKey('64:ff9b::192.0.2.1', 96), '64:ff9b::/96', 'an embedded IPv4 address read as its groups')
  t.equal(clientKey('192.0.2.1', 64), '192.0.2.1')
  t.equal(clientKey('unknown', 64), 'unknown')
})
