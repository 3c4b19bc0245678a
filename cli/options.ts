import type { KeyObject } from 'node:crypto'
import { readSigningKey, readVerifyKey } from '../format/manifest-signature.js'
import { messageOf } from '../format/message-of.js'
import type { CorsOrigins } from '../runtime/cors.js'
import { parseEmail } from '../ledger/mailbox.js'
import { UsageError } from './handle-error.js'

/** Guards for command-line option values: each returns a typed value or throws a UsageError. */

export function positiveInteger(value: string, option: string, min = 1): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${option} must be an integer of at least ${min}, not ${JSON.stringify(value)}`)
  }
  return Number(value)
}

/**
 * How many leading bits of an IPv6 address make one client: a prefix length from 32 (a
 * whole site) to 128 (each address).
 */
export function prefixLength(value: string, option: string): number {
  const bits = positiveInteger(value, option, 32)
  if (bits > 128) throw new UsageError(`${option} must be a prefix length from 32 to 128, not ${value}`)
  return bits
}

/** A TCP port to listen on; 0 asks for any free one. */
export function tcpPort(value: string, option: string): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`${option} must be a port from 0 to 65535 (0 picks a free one), not ${JSON.stringify(value)}`)
  }
  return Number(value)
}

export function share(value: string, option: string): number {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new UsageError(`${option} must be a number from 0 to 1`)
  return n
}

/** `EUR=4.31` (repeatable, or comma-separated): exchange rates to PLN. */
export function exchangeRates(values: readonly string[]): Map<string, number> {
  const rates = new Map<string, number>()
  for (const pair of values.flatMap((v) => v.split(','))) {
    const m = /^\s*([A-Za-z]{3})\s*=\s*([0-9]+(?:\.[0-9]+)?)\s*$/.exec(pair)
    if (m === null || Number(m[2]) <= 0)
      throw new UsageError(`--fx takes CODE=RATE such as EUR=4.31, not ${JSON.stringify(pair)}`)
    rates.set(m[1]!.toUpperCase(), Number(m[2]))
  }
  return rates
}

/** Collects a repeatable option's values. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value]
}

export const DEFAULT_SNAPSHOTS = process.env.CARMARKET_SNAPSHOTS ?? 'snapshots'

/** An http or https address without query or fragment, such as an API root. */
export function httpUrl(value: string, option: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new UsageError(
      `${option} must be an http or https address such as http://127.0.0.1:8080, not ${JSON.stringify(value)}`,
    )
  }
  return value
}

/**
 * The web origins that may call the API from a browser: `*` (any), `none`, or a
 * comma-separated list of origins such as https://app.example.com (scheme, host and port,
 * nothing more).
 */
export function corsOrigins(value: string, option: string): CorsOrigins {
  const text = value.trim()
  if (text === '*' || text === 'none') return text
  const origins = text.split(',').map((o) => o.trim())
  for (const origin of origins) {
    const url = URL.canParse(origin) ? new URL(origin) : undefined
    if (url === undefined || !/^https?:$/.test(url.protocol) || url.origin !== origin)
      throw new UsageError(
        `${option} takes *, none or origins such as https://app.example.com,http://localhost:3000 (scheme, host and port only), not ${JSON.stringify(origin)}`,
      )
  }
  return origins
}

/** An SMTP relay's address: smtp:// (STARTTLS when the relay offers it) or smtps://, user and password in it if needed. */
export function smtpUrl(value: string, option: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '')
    throw new UsageError(
      `${option} must be an SMTP relay's address such as smtp://user:password@mail.example.com:587 or smtps://…:465`,
    )
  return url
}

/**
 * A From header: `Name <address>` or an address. The address is checked as any other; the name may not hold what would
 * end or split a header.
 */
export function mailFrom(value: string, option: string): string {
  const match = /^\s*(?:([^<>"\r\n]*?)\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(value)
  const address = match?.[2] ?? match?.[3]
  const parsed = address === undefined ? undefined : parseEmail(address)
  if (parsed === undefined || !parsed.ok)
    throw new UsageError(
      `${option} must be an address, or a name and an address such as "carmarket <noreply@example.com>"`,
    )
  const name = match?.[1]?.trim() ?? ''
  return name === '' ? parsed.address : `${name} <${parsed.address}>`
}

/** An e-mail address, in its delivery form. */
export function emailAddress(value: string, option: string): string {
  const parsed = parseEmail(value)
  if (!parsed.ok)
    throw new UsageError(`${option} must be an e-mail address such as support@example.com: ${parsed.message}`)
  return parsed.address
}

/** The Ed25519 private key in the PEM file `path`, that snapshots are signed with. */
export function signingKey(path: string, option: string): KeyObject {
  return keyOption(() => readSigningKey(path), option)
}

/** The Ed25519 public key in the PEM file `path`, that snapshots must be signed with. */
export function verifyKey(path: string, option: string): KeyObject {
  return keyOption(() => readVerifyKey(path), option)
}

function keyOption(read: () => KeyObject, option: string): KeyObject {
  try {
    return read()
  } catch (error) {
    throw new UsageError(`${option}: ${messageOf(error)}`)
  }
}
