import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import type { Test } from 'tap'

/** When the proxy cuts the connection that carries a batch of debits. */
export type CutMoment =
  /** Instead of passing the call on: the server never sees it. */
  | 'before'
  /** Right after passing the call on: the server runs it, and its connection ends behind it. */
  | 'sent'
  /**
   * When the server starts answering the call, which for a small batch it does once the call has committed; the answer
   * never arrives.
   */
  | 'answer'

export interface PgProxy {
  /** The database's URL through the proxy. */
  readonly url: string
  /**
   * Cuts the connection that carries the next call of carmarket_charge_batch, at `moment`;
   * with `outage`, every other connection at the same time, and refuses new ones until
   * `restore` (PostgreSQL out of reach). Resolves once it has cut.
   */
  cutNextBatch(moment: CutMoment, outage?: boolean): Promise<void>
  /** Lets connections through again. */
  restore(): void
}

/**
 * A TCP proxy between the engine and the database at `url` (on 127.0.0.1, on a port of
 * its own), which can cut a connection at a chosen moment of a batch of debits: what a
 * killed server, a network cut or a shutdown does to the engine, while the server itself
 * goes on. Closed when the test ends.
 */
export async function pgProxy(t: Test, url: string): Promise<PgProxy> {
  const target = new URL(url)
  const links = new Set<Link>()
  let refusing = false
  let armed: { readonly moment: CutMoment; readonly outage: boolean; readonly done: () => void } | undefined

  const cut = (link: Link, outage: boolean) => {
    // The engine's side is reset, as a network cut does; the server's is closed after what it was sent.
    for (const { client, upstream } of outage ? [...links] : [link]) {
      client.resetAndDestroy()
      upstream.destroy()
    }
    if (outage) refusing = true
  }

  const server = createServer((client) => {
    if (refusing) return void client.resetAndDestroy()
    const upstream = connect(Number(target.port), target.hostname)
    const link = { client, upstream }
    links.add(link)
    for (const socket of [client, upstream]) {
      socket.on('error', () => {})
      socket.on('close', () => {
        links.delete(link)
        client.destroy()
        upstream.destroy()
      })
    }
    let sending: (() => void) | undefined
    let answering: (() => void) | undefined
    client.on('data', (chunk: Buffer) => {
      const trigger = armed !== undefined && chunk.includes('carmarket_charge_batch') ? armed : undefined
      if (trigger !== undefined) {
        armed = undefined
        const done = () => {
          cut(link, trigger.outage)
          trigger.done()
        }
        if (trigger.moment === 'before') return done()
        if (trigger.moment === 'answer') answering = done
        else sending = done
      }
      // The call's messages may come in several pieces; the last of them is its Sync. Cut
      // as sent, once that is with the server's side of the network.
      const sent = sending !== undefined && chunk.includes(SYNC) ? sending : undefined
      if (sent !== undefined) sending = undefined
      upstream.write(chunk, sent)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (answering === undefined) return void client.write(chunk)
      answering()
      answering = undefined
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const { client, upstream } of links) {
      client.destroy()
      upstream.destroy()
    }
    await new Promise((resolve) => server.close(resolve))
  })
  const proxied = new URL(url)
  proxied.hostname = '127.0.0.1'
  proxied.port = String((server.address() as AddressInfo).port)
  return {
    url: proxied.toString(),
    cutNextBatch: (moment, outage = false) => new Promise((done) => (armed = { moment, outage, done })),
    restore: () => {
      refusing = false
    },
  }
}

/** The protocol's Sync message, which ends an extended query. */
const SYNC = Buffer.from([0x53, 0, 0, 0, 4])

interface Link {
  readonly client: Socket
  readonly upstream: Socket
}
