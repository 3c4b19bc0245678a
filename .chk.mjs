import { open } from 'lmdb'
import { StoredAnswer } from '/work/main/dist/format/rendered.js'
import { answerProblem } from '/work/main/dist/query/answer-consistency.js'
import { ANSWERS_OPTIONS } from '/work/main/dist/format/schema.js'
import { Snapshot } from '/work/main/dist/query/snapshot.js'
const dir = Snapshot.locate('/tmp/cpuprof/snaps')
const root = open({ path: dir + '/snapshot.mdb', readOnly: true, maxDbs: 4 })
const db = root.openDB(ANSWERS_OPTIONS)
const all = []
let bytes = 0
for (const { key, value } of db.getRange()) { all.push([key[4], Buffer.from(value)]); bytes += value.length }
console.log('answers', all.length, 'MB', (bytes / 1e6).toFixed(1))
const st = new StoredAnswer()
for (let r = 0; r < 3; r++) {
  let t = performance.now()
  for (const [op, b] of all) answerProblem(st, b, op)
  console.log('answerProblem all ms', (performance.now() - t).toFixed(0))
  t = performance.now()
  let n = 0
  for (const [op, b] of all) { st.reset(b); for (let i = 0; i < st.count; i++) { n += st.text(i).length } }
  console.log('text only ms', (performance.now() - t).toFixed(0), n)
}
const byOp = {}
for (const [op, b] of all) byOp[op] = (byOp[op] ?? 0) + b.length
console.log(byOp)
