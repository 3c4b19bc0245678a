import fc from 'fast-check'
import t from 'tap'
import type { Ledger } from '../ledger/types.js'
import { ENGINES, charge, openTestLedger } from './ledger-engines.js'

/** What the ledger should hold, kept the plain way. */
interface Model {
  balance: number
  granted: number
  used: number
  active: boolean
  entries: number
  /** Whether the newest entry is a failure, which the same failure again is counted on. */
  lastFailed: boolean
  failures: number
  keyGeneration: number
}
interface Real {
  ledger: Ledger
  id: string
  keys: string[]
}

const call = { endpoint: 'valuation', make: 'Skoda', model: 'Octavia', year: 2018 }

class Charge implements fc.AsyncCommand<Model, Real> {
  constructor(readonly credits: number) {}
  check = () => true
  async run(m: Model, r: Real) {
    const result = await charge(r.ledger, r.id, this.credits, call)
    const pays = m.active && m.balance >= this.credits
    if (result.ok !== pays) throw new Error(`charge ${this.credits}: ledger ${result.ok}, model ${pays}`)
    if (pays) {
      m.balance -= this.credits
      m.used += this.credits
      m.entries++
      m.lastFailed = false
    }
  }
  toString = () => `charge(${this.credits})`
}
class Fail implements fc.AsyncCommand<Model, Real> {
  check = () => true
  async run(m: Model, r: Real) {
    await r.ledger.recordFailure(r.id, call, 'INSUFFICIENT_DATA')
    if (!m.lastFailed) m.entries++
    m.lastFailed = true
    m.failures++
  }
  toString = () => 'fail'
}
class Grant implements fc.AsyncCommand<Model, Real> {
  constructor(readonly credits: number) {}
  check = () => true
  async run(m: Model, r: Real) {
    await r.ledger.grant(r.id, this.credits, 'model')
    m.balance += this.credits
    m.granted += this.credits
    m.entries++
    m.lastFailed = false
  }
  toString = () => `grant(${this.credits})`
}
class SetActive implements fc.AsyncCommand<Model, Real> {
  constructor(readonly active: boolean) {}
  check = () => true
  async run(m: Model, r: Real) {
    await r.ledger.setStatus(r.id, this.active ? 'active' : 'disabled')
    m.active = this.active
  }
  toString = () => (this.active ? 'enable' : 'disable')
}
class IssueKey implements fc.AsyncCommand<Model, Real> {
  check = () => true
  async run(m: Model, r: Real) {
    r.keys.push(await r.ledger.issueKey(r.id))
    m.keyGeneration++
  }
  toString = () => 'issueKey'
}

for (const engine of ENGINES) {
  t.test(`the ${engine.name} ledger behaves like a plain model under any sequence of operations`, async (t) => {
    // One ledger for every run: each run has an account of its own.
    const ledger = await openTestLedger(t, await engine.fresh(t))
    const commands = [
      fc.integer({ min: 1, max: 20 }).map((c) => new Charge(c)),
      fc.constant(new Fail()),
      fc.integer({ min: 1, max: 30 }).map((c) => new Grant(c)),
      fc.boolean().map((a) => new SetActive(a)),
      fc.constant(new IssueKey()),
    ]
    let runs = 0
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 40 }),
        fc.integer({ min: 0, max: 50 }),
        async (cmds, start) => {
          const { account, key } = await ledger.createAccount(`model${runs++}@example.pl`, start, 'signup_bonus', null)
          const model: Model = {
            balance: start,
            granted: start,
            used: 0,
            active: true,
            entries: 1,
            lastFailed: false,
            failures: 0,
            keyGeneration: 0,
          }
          const real: Real = { ledger, id: account.id, keys: [key] }
          await fc.asyncModelRun(() => ({ model, real }), cmds)
          const final = (await ledger.account(account.id))!
          const history = await ledger.entries(account.id, 200)
          const oldKeys = await Promise.all(real.keys.slice(0, -1).map((old) => ledger.authenticate(old)))
          return (
            final.balance === model.balance &&
            final.balance >= 0 &&
            final.granted === model.granted &&
            final.used === model.used &&
            final.status === (model.active ? 'active' : 'disabled') &&
            history.length === model.entries &&
            history.filter((e) => e.type === 'failed_call').reduce((sum, e) => sum + e.count, 0) === model.failures &&
            history.reduce((sum, e) => sum + e.credits, 0) === final.balance &&
            history.every((e, i) => i === 0 || e.id !== history[i - 1]!.id) &&
            oldKeys.every((found) => found === undefined) &&
            (await ledger.authenticate(real.keys.at(-1)!))?.id === account.id
          )
        },
      ),
      { numRuns: 60, seed: 4 },
    )
    t.ok(runs >= 60, `${runs} sequences of up to 40 operations matched the model`)
  })
}
