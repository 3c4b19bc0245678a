/**
 * What a runtime pays to open a snapshot before serving it (at start, and at each swap): the files' SHA-256 against
 * manifest.json, the manifest's signature when a key is given, and every answer read and checked for consistency,
 * against a check of 200 answers spread over the file (the baseline, what was read before every answer was), on the
 * 1.4-million-listing sample, in the same run.
 *
 *   npm run bench:open [-- --runs 5]
 */
import { generateKeyPairSync, sign } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { MANIFEST_FILE, SIGNATURE_FILE } from '../format/schema.js'
import { Snapshot, type OpenOptions } from '../query/snapshot.js'
import { benchSnapshots } from './bench-data.js'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } })
const runs = Number(values.runs)

const snapshots = await benchSnapshots(1_400_000)
const dir = Snapshot.locate(snapshots)!
// Signed here for the measure (the bench's snapshot is built without a key); the signature file is not a listed file.
const { privateKey, publicKey } = generateKeyPairSync('ed25519')
writeFileSync(
  join(dir, SIGNATURE_FILE),
  sign(null, readFileSync(join(dir, MANIFEST_FILE)), privateKey).toString('base64'),
)

interface Timing {
  readonly open: number
  readonly check: number
}

function time(samples: number, options: OpenOptions): Timing {
  const started = performance.now()
  const snapshot = Snapshot.open(dir, options)
  const opened = performance.now()
  snapshot.check(samples)
  const checked = performance.now()
  void snapshot.close()
  return { open: opened - started, check: checked - opened }
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const cases: [string, number, OpenOptions][] = [
  ['200 answers (baseline)', 200, {}],
  ['every answer', Infinity, {}],
  ['every answer, signature verified', Infinity, { verifyKey: publicKey }],
]
const results = new Map<string, Timing[]>(cases.map(([name]) => [name, []]))
// In turn, so that a busy neighbour weighs on every case alike.
for (let run = 0; run < runs; run++)
  for (const [name, samples, options] of cases) results.get(name)!.push(time(samples, options))

const baseline = median(results.get(cases[0]![0])!.map((t) => t.open + t.check))
console.log(`| opening ${dir} (median of ${runs}) | open, digests | answers checked | total | ratio |`)
console.log('| --- | ---: | ---: | ---: | ---: |')
for (const [name, timings] of results) {
  const total = median(timings.map((t) => t.open + t.check))
  const cell = (ms: number) => `${Math.round(ms)} ms`
  console.log(
    `| ${name} | ${cell(median(timings.map((t) => t.open)))} | ${cell(median(timings.map((t) => t.check)))} | ${cell(total)} | ${(total / baseline).toFixed(2)}x |`,
  )
}
