import { createHash } from 'node:crypto'
import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { request } from 'undici'
import { runBuild } from '../build/run-build.js'
import { lmdbFileProblem } from '../format/lmdb-file.js'
import { StoredAnswer, renderAnswer } from '../format/rendered.js'
import { SnapshotError, type SnapshotErrorCode } from '../format/snapshot-error.js'
import {
  ANSWERS_OPTIONS,
  MANIFEST_FILE,
  SNAPSHOT_FILE,
  answerKey,
  type AnswerRecords,
  type Operation,
  type ValuationFigures,
} from '../format/schema.js'
import { UNKNOWN } from '../format/vocabulary.js'
import { answerProblem } from '../query/answer-consistency.js'
import { Snapshot } from '../query/snapshot.js'
import {
  build,
  copySnapshot,
  freshDir,
  metric,
  pointCurrent,
  reseal,
  rows,
  spawnServe,
  toCsv,
  vehicle,
  writeExport,
} from './support.js'

/**
 * A snapshot is served only as its build wrote it: manifest.json lists the size and
 * SHA-256 of its data file, checked before the file is mapped, and the answers sampled
 * before it is served must agree with themselves.
 */

// Twelve Golfs: median 46,875 and p75 50,000, so a median whose first digit becomes 9
// keeps its length and lies above p75.
const PRICES = Array.from({ length: 12 }, (_, i) => 40_000 + i * 1_250)
const GOLF = vehicle('Volkswagen', 'Golf', 2017)
const golfs = () => toCsv(rows(PRICES.length, (i) => ({ price: PRICES[i]! })))

/** Why Snapshot.open refuses a folder (a SnapshotError's code), or undefined when it opens it (and closes it again). */
async function refusal(dir: string): Promise<SnapshotErrorCode | undefined> {
  try {
    await Snapshot.open(dir).close()
    return undefined
  } catch (error) {
    if (error instanceof SnapshotError) return error.code
    throw error
  }
}

t.test(
  'a build lists the size and SHA-256 of its data file in manifest.json and publishes both files read-only',
  async (t) => {
    const { report } = await build(t, golfs())
    const data = readFileSync(join(report.snapshot, SNAPSHOT_FILE))
    const manifest = JSON.parse(readFileSync(join(report.snapshot, MANIFEST_FILE), 'utf8')) as {
      build_id: string
      files: unknown
    }
    t.equal(manifest.build_id, report.build_id)
    t.strictSame(manifest.files, {
      [SNAPSHOT_FILE]: { bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') },
    })
    for (const file of [SNAPSHOT_FILE, MANIFEST_FILE])
      t.equal(statSync(join(report.snapshot, file)).mode & 0o777, 0o444, `${file} is 0444`)
  },
)

t.test(
  'a normal build serves; a copy with one byte flipped in the middle of its data file is refused by Snapshot.open and by a running server',
  async (t) => {
    const { snapshots, report } = await build(t, golfs())
    const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', freshDir(t), '--rate-limit', '0'])
    const base = `http://127.0.0.1:${server.port}`
    const golfMedian = async () => {
      const response = await request(`${base}/v1/market/valuation?make=VW&model=Golf&year=2017`)
      const body = (await response.body.json()) as { data: { valuation: { median: number } } }
      t.equal(response.statusCode, 200)
      return body.data.valuation.median
    }
    const served = async () =>
      ((await (await request(`${base}/readyz`)).body.json()) as { data: { snapshot: string } }).data.snapshot
    t.equal(await served(), report.build_id)
    const before = await golfMedian()

    const next = await runBuild({
      input: writeExport(t, 'next.csv', toCsv(rows(12, (i) => ({ price: 90_000 + i * 100 })))),
      snapshots: freshDir(t),
      asOf: '2026-10-31',
    })
    const name = basename(next.snapshot)
    const copy = join(snapshots, name)
    copySnapshot(next.snapshot, copy)
    t.equal(await refusal(copy), undefined, 'the copy as built opens')
    const file = join(copy, SNAPSHOT_FILE)
    const bytes = readFileSync(file)
    const middle = bytes.length >> 1
    bytes[middle] = bytes[middle]! ^ 0x01
    writeFileSync(file, bytes)
    t.equal(lmdbFileProblem(file), undefined, 'still an LMDB file LMDB could map')
    t.equal(await refusal(copy), 'digest_mismatch', 'Snapshot.open refuses it')

    pointCurrent(snapshots, name)
    const refused = async () =>
      metric(await (await request(`${base}/metrics`)).body.text(), 'carmarket_snapshot_swaps_total{result="refused"}')
    for (let i = 0; i < 100 && ((await refused()) ?? 0) === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    t.equal(await refused(), 1, 'the server refuses it')
    t.equal(await served(), report.build_id, 'the old snapshot keeps serving')
    t.equal(await golfMedian(), before, 'with its figures')
  },
)

t.test(
  'a valuation whose median was changed to lie above its p75, its digests made to match, is refused by the check',
  async (t) => {
    const built = await build(t, golfs())
    const report = built.report
    const copy = join(freshDir(t), 'copy')
    copySnapshot(report.snapshot, copy)
    const root = open({ path: join(copy, SNAPSHOT_FILE), maxDbs: 4 })
    const answers = root.openDB(ANSWERS_OPTIONS)
    const key = answerKey({ kind: 'model', make: 'Volkswagen', name: 'Golf' }, 2017, 'valuation')
    // latin1 keeps every byte of the binary table as it is; the median keeps its length, so the table still fits.
    const stored = answers.getBinary(key)!.toString('latin1')
    const changed = stored.replace(/"median":\d/, '"median":9')
    t.not(changed, stored)
    await answers.put(key, Buffer.from(changed, 'latin1'))
    await root.close()
    reseal(copy)

    const snapshot = Snapshot.open(copy)
    t.teardown(() => snapshot.close())
    const { median, p75 } = snapshot.valuation(GOLF).valuation
    t.ok(median > p75, `without the check it would be served: median ${median} beside p75 ${p75}`)
    t.throws(() => snapshot.check(200), { code: 'inconsistent_answer' }, 'the check refuses it')
    t.doesNotThrow(() => built.snapshot.check(200), 'the snapshot as built passes')
  },
)

t.test(
  'a wrong size, a missing manifest.json, one without digests, an unlisted file, another build: each refused',
  async (t) => {
    const { report } = await build(t, golfs())
    const root = freshDir(t)
    const cases: Record<string, [(dir: string) => void, SnapshotErrorCode]> = {
      'a byte appended to the data file': [
        (dir) => appendFileSync(join(dir, SNAPSHOT_FILE), Buffer.alloc(1)),
        'size_mismatch',
      ],
      'the data file cut short': [
        (dir) => writeFileSync(join(dir, SNAPSHOT_FILE), readFileSync(join(dir, SNAPSHOT_FILE)).subarray(0, 8192)),
        'size_mismatch',
      ],
      'the data file missing': [(dir) => rmSync(join(dir, SNAPSHOT_FILE)), 'no_snapshot'],
      'manifest.json missing': [(dir) => rmSync(join(dir, MANIFEST_FILE)), 'missing_file'],
      'manifest.json not JSON': [(dir) => writeFileSync(join(dir, MANIFEST_FILE), '{"build_id":'), 'invalid_manifest'],
      'manifest.json without digests (a build from before them)': [
        (dir) =>
          editManifest(dir, (m) => Object.fromEntries(Object.entries(m).filter(([member]) => member !== 'files'))),
        'no_digests',
      ],
      'manifest.json listing a malformed digest': [
        (dir) => editManifest(dir, (m) => ({ ...m, files: { [SNAPSHOT_FILE]: { bytes: -1, sha256: 'x' } } })),
        'invalid_manifest',
      ],
      'manifest.json listing a file outside the folder': [
        (dir) =>
          editManifest(dir, (m) => ({
            ...m,
            files: { ...(m.files as object), '../x': { bytes: 0, sha256: '0'.repeat(64) } },
          })),
        'invalid_manifest',
      ],
      'a data file manifest.json does not list': [(dir) => writeFileSync(join(dir, 'extra.mdb'), 'x'), 'unlisted_file'],
      'manifest.json of another build': [
        (dir) => editManifest(dir, (m) => ({ ...m, build_id: '20260101T000000000Z-000000' })),
        'build_mismatch',
      ],
    }
    for (const [what, [change, code]] of Object.entries(cases)) {
      const dir = join(root, what.replace(/\W+/g, '-'))
      copySnapshot(report.snapshot, dir)
      t.equal(await refusal(dir), undefined, `${what}: the copy opens before the change`)
      change(dir)
      t.equal(await refusal(dir), code, `${what}: refused`)
    }
  },
)

/** Rewrites a copy's manifest.json. */
function editManifest(dir: string, edit: (manifest: Record<string, unknown>) => Record<string, unknown>): void {
  const path = join(dir, MANIFEST_FILE)
  writeFileSync(path, JSON.stringify(edit(JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)))
}

t.test(
  'answers as a build renders them pass the consistency check; each with a figure out of line does not',
  async (t) => {
    const figures = (p25: number, median: number, p75: number, sample_size: number): ValuationFigures => ({
      average: median + 300,
      median,
      p25,
      p75,
      sample_size,
      confidence: { median_low: median - 1_000, median_high: median + 1_000, level_pct: 97.9 },
      fit: null,
    })
    const months = (counts: Record<number, number>) => Array.from({ length: 24 }, (_, m) => counts[m] ?? 0)
    const good: AnswerRecords = {
      valuation: {
        all: figures(45_000, 49_000, 55_000, 30),
        filtered: [
          { fuel: 0, gearbox: UNKNOWN, sample_size: 20, figures: figures(44_000, 48_000, 53_000, 20) },
          { fuel: 1, gearbox: UNKNOWN, sample_size: 4, figures: null },
        ],
      },
      'price-history': {
        first_month: '2024-10',
        avg_price: months({ 3: 51_000, 20: 48_000, 23: 47_500 }),
        sample_size: months({ 3: 2, 20: 10, 23: 18 }),
      },
      liquidity: { estimated_days_on_market: 43, observed_listing_span: 30, active_listings: 5, sample_size: 25 },
      'valuation-factors': {
        total_sample_size: 30,
        factors: [
          {
            dimension: 'gearbox',
            baseline: { label: 'Manualna', avg_price: 48_000, sample_size: 18 },
            comparison: { label: 'Automatyczna', avg_price: 53_000, sample_size: 12 },
            price_diff_percent: 10.4,
          },
        ],
      },
      regional: {
        national_average: 50_000,
        total_sample_size: 30,
        regions: [
          { region: 'mazowieckie', avg_price: 52_000, sample_size: 20, vs_national_pct: 4 },
          { region: 'śląskie', avg_price: 46_000, sample_size: 10, vs_national_pct: -8 },
        ],
      },
      depreciation: {
        curves: [
          {
            fuel: UNKNOWN,
            listings: 45,
            points: [
              { year: 2016, median: 41_000, sample_size: 12 },
              { year: 2017, median: 45_500.5, sample_size: 20 },
              { year: 2018, median: 49_000, sample_size: 10 },
            ],
            annual_change_pct: 9.3,
          },
          { fuel: 0, listings: 9, points: [], annual_change_pct: null },
        ],
      },
    }
    const curve = good.depreciation.curves[0]!
    const factor = good['valuation-factors'].factors[0]!
    const [mazowieckie, slaskie] = good.regional.regions
    const bad: [string, Operation, AnswerRecords[Operation]][] = [
      ['median above p75', 'valuation', { ...good.valuation, all: figures(45_000, 56_000, 55_000, 30) }],
      [
        'p25 above the median of a filter',
        'valuation',
        {
          ...good.valuation,
          filtered: [{ fuel: 0, gearbox: UNKNOWN, sample_size: 20, figures: figures(49_000, 48_000, 53_000, 20) }],
        },
      ],
      [
        'figures of a filter with fewer than 10 listings',
        'valuation',
        {
          ...good.valuation,
          filtered: [{ fuel: 1, gearbox: UNKNOWN, sample_size: 4, figures: figures(44_000, 48_000, 53_000, 4) }],
        },
      ],
      [
        'a filter of 20 listings without figures',
        'valuation',
        { ...good.valuation, filtered: [{ fuel: 0, gearbox: UNKNOWN, sample_size: 20, figures: null }] },
      ],
      [
        'a median outside its interval',
        'valuation',
        {
          ...good.valuation,
          all: {
            ...figures(45_000, 49_000, 55_000, 30),
            confidence: { median_low: 49_500, median_high: 52_000, level_pct: 97.9 },
          },
        },
      ],
      [
        'a coverage below 95 %',
        'valuation',
        {
          ...good.valuation,
          all: {
            ...figures(45_000, 49_000, 55_000, 30),
            confidence: { median_low: 48_000, median_high: 50_000, level_pct: 90 },
          },
        },
      ],
      [
        'years out of order',
        'depreciation',
        { curves: [{ ...curve, points: [curve.points[1]!, curve.points[0]!, curve.points[2]!] }] },
      ],
      [
        'a year of 9 listings',
        'depreciation',
        { curves: [{ ...curve, points: [...curve.points.slice(0, 2), { ...curve.points[2]!, sample_size: 9 }] }] },
      ],
      ['an annual change from 2 points', 'depreciation', { curves: [{ ...curve, points: curve.points.slice(0, 2) }] }],
      ['more listings in the points than in the curve', 'depreciation', { curves: [{ ...curve, listings: 40 }] }],
      ['a price of 0', 'valuation', { ...good.valuation, all: { ...figures(45_000, 49_000, 55_000, 30), average: 0 } }],
      [
        'a sample size unlike its table',
        'valuation',
        {
          ...good.valuation,
          filtered: [{ fuel: 0, gearbox: UNKNOWN, sample_size: 20, figures: figures(44_000, 48_000, 53_000, 21) }],
        },
      ],
      [
        'a month with a negative average',
        'price-history',
        { ...good['price-history'], avg_price: months({ 3: 51_000, 20: -48_000, 23: 47_500 }) },
      ],
      ['days on market not the span plus 13', 'liquidity', { ...good.liquidity, estimated_days_on_market: 40 }],
      ['a negative count', 'liquidity', { ...good.liquidity, active_listings: -5 }],
      [
        'a factor side of 5 listings',
        'valuation-factors',
        {
          ...good['valuation-factors'],
          factors: [{ ...factor, comparison: { ...factor.comparison, sample_size: 5 } }],
        },
      ],
      [
        'a difference of the wrong sign',
        'valuation-factors',
        { ...good['valuation-factors'], factors: [{ ...factor, price_diff_percent: -10.4 }] },
      ],
      ['sides larger than the key', 'valuation-factors', { ...good['valuation-factors'], total_sample_size: 25 }],
      [
        'regions not adding up to the total',
        'regional',
        { ...good.regional, regions: [mazowieckie!, { ...slaskie!, sample_size: 7 }] },
      ],
      [
        'a national average above every region',
        'regional',
        {
          ...good.regional,
          national_average: 60_000,
          regions: [
            { ...mazowieckie!, vs_national_pct: -13.3 },
            { ...slaskie!, vs_national_pct: -23.3 },
          ],
        },
      ],
      [
        'a region against the national average with the wrong sign',
        'regional',
        { ...good.regional, regions: [{ ...mazowieckie!, vs_national_pct: -4 }, slaskie!] },
      ],
    ]
    const problem = (operation: Operation, record: AnswerRecords[Operation]) => {
      const bytes = renderAnswer(operation, record)
      return answerProblem(new StoredAnswer(), bytes, operation)
    }
    for (const operation of Object.keys(good) as Operation[])
      t.equal(problem(operation, good[operation]), undefined, `${operation} as built`)
    for (const [what, operation, record] of bad) t.not(problem(operation, record), undefined, `${operation}: ${what}`)
  },
)
