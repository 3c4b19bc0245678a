import { join } from 'node:path'
import t from 'tap'
import { runBuild } from '../build/run-build.js'
import { ApiError } from '../query/api-error.js'
import { Snapshot } from '../query/snapshot.js'
import { SAMPLE_AS_OF, SAMPLE_FX, generateExport } from '../sample/generate.js'
import { freshDir } from './support.js'

/**
 * The sample against the real market: the figures measured on real Otomoto exports
 * (../shared/design/market-reference.md, "Measured on real Otomoto exports") as bands,
 * and the sample's own figures, computed by the service from a sample of the default
 * generator, inside them. A change to the generator that drifts away from the market
 * fails here.
 */

/** Enough listings for the most listed keys to hold a few hundred each; the default sample is 1.4 million. */
const LISTINGS = 250_000
const asOfYear = Number(SAMPLE_AS_OF.slice(0, 4))

const dir = freshDir(t)
await generateExport({ out: join(dir, 'sample.csv.gz'), listings: LISTINGS })
await runBuild({ input: join(dir, 'sample.csv.gz'), snapshots: join(dir, 'snapshots'), fx: SAMPLE_FX })
const snapshot = Snapshot.open(join(dir, 'snapshots'))
t.teardown(() => snapshot.close())

/** Every make, model and production year with 10 listings or more, with its valuation. */
const keys = snapshot.catalogMakes().makes.flatMap(({ make }) =>
  snapshot.catalogModels({ make }).models.flatMap(({ model, years }) =>
    years.flatMap((year) => {
      try {
        return [{ make, model, year, valuation: snapshot.valuation({ make, model, year }) }]
      } catch (error) {
        // A family's year may be thin for one filter: not a key a figure is read from.
        if (error instanceof ApiError) return []
        throw error
      }
    }),
  ),
)

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

t.test('mileage costs what it costs on the real market (5.2: the 50 most listed keys aged 3-12)', async (t) => {
  // Real: median -1.75 % per 10,000 km, 10th-90th percentile of keys -2.35 to -0.77 (Opel 2025: -2.0; Audi 2024: -0.7).
  const effects = keys
    .filter((k) => asOfYear - k.year >= 3 && asOfYear - k.year <= 12)
    .sort((a, b) => b.valuation.sample_size - a.valuation.sample_size)
    .slice(0, 50)
    .map((k) => k.valuation.mileage_effect?.pct_per_10000_km)
    .filter((e): e is number => e !== undefined)
  t.ok(effects.length >= 45, `${effects.length} of the 50 keys have a mileage effect`)
  const median = quantile(effects, 0.5)
  t.ok(median >= -2.2 && median <= -1.3, `median ${median} % per 10,000 km (real -1.75)`)
  const [low, high] = [quantile(effects, 0.1), quantile(effects, 0.9)]
  t.ok(low >= -3.2 && low <= -1.7, `10th percentile ${low} (real -2.35)`)
  t.ok(high >= -1.3 && high <= -0.4, `90th percentile ${high} (real -0.77)`)
})

t.test('cars lose value with age as on the real market (5.5: the 30 most listed models)', async (t) => {
  // Real: median 14.8 % a year, 10th-90th percentile of models 12.3 to 16.4.
  const models = snapshot
    .catalogMakes()
    .makes.flatMap(({ make }) => snapshot.catalogModels({ make }).models.map((m) => ({ make, ...m })))
    .sort((a, b) => b.listings - a.listings)
    .slice(0, 30)
  const changes = models
    .map((m) => snapshot.depreciation({ make: m.make, model: m.model }).annual_change_pct)
    .filter((c): c is number => c !== null)
  t.equal(changes.length, 30, 'every one of them has a curve')
  const median = quantile(changes, 0.5)
  t.ok(median >= 12.5 && median <= 17, `median ${median} % a year (real 14.8)`)
  const [low, high] = [quantile(changes, 0.1), quantile(changes, 0.9)]
  t.ok(low >= 10 && low <= 14, `10th percentile ${low} (real 12.3)`)
  t.ok(high >= 14.5 && high <= 19.5, `90th percentile ${high} (real 16.4)`)
})
