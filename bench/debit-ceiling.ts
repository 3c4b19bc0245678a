/**
 * The ceiling of a keyed call on this machine: node:http doing nothing but one durable
 * lmdb-js debit per request (read the balance, write it and an entry in one
 * `db.transaction`, answer after the commit), with the ledger's own durability
 * (`overlappingSync: false`, a synced commit). Started by http-bench.ts; prints its port.
 */
import { createServer } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'

const db = open<unknown, string | [string, number]>({
  path: join(mkdtempSync(join(tmpdir(), 'carmarket-ceiling-')), 'ceiling.mdb'),
  overlappingSync: false,
})
await db.put('balance', 1_000_000_000)
const COST = 8
let entries = 0
const answer = JSON.stringify({
  status: 'success',
  data: {
    make: 'VW',
    model: 'Golf',
    year: 2017,
    valuation: { average: 55452, median: 53900, p25: 47900, p75: 61900 },
    sample_size: 1075,
    credits_used: 8,
  },
})

const server = createServer((req, res) => {
  void db
    .transaction(() => {
      const balance = db.get('balance') as number
      if (balance < COST) return undefined
      void db.put('balance', balance - COST)
      void db.put(['entry', entries++], { credits: -COST, balance_after: balance - COST, time: Date.now() })
      return balance - COST
    })
    .then((remaining) => {
      const body = `${answer.slice(0, -2)},"credits_remaining":${remaining}}}`
      res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', Buffer.byteLength(body)])
      res.end(body)
    })
})
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as { port: number }).port}`))
