import t from 'tap'
import { CATALOGUE } from '../sample/catalogue.js'
import { build, reference, rows, toCsv, vehicle, type Row } from './support.js'

// Enough keys that the statistics run on two threads (half of the keys in a worker):
// every key's answers must be the same as if one thread had computed them all.
const MODELS = CATALOGUE.flatMap((make) => make.models.map((model) => ({ make: make.name, model: model.name }))).slice(
  0,
  110,
)
const YEARS = Array.from({ length: 20 }, (_, i) => 2005 + i)

t.test('two threads compute every key, each the same as alone', async (t) => {
  const data: Row[] = []
  MODELS.forEach(({ make, model }, m) => {
    for (const year of YEARS) {
      data.push(
        ...rows(10, (i) => ({
          make,
          model,
          year,
          price: 10_000 + 100 * m + 10 * (year - 2000) + 7 * i,
          first_seen: `2026-0${1 + (i % 8)}-10`,
          voivodeship: i % 2 ? 'mazowieckie' : 'śląskie',
        })),
      )
    }
  })
  const { report, snapshot } = await build(t, toCsv(data))
  // Every model and year, and the keys of the families these models form (the table's, body variants, renames).
  t.ok(report.families >= 1)
  t.equal(report.keys_written, (MODELS.length + report.families) * YEARS.length, `${report.keys_written} keys`)
  // A model whose name stands for a pool (Q3 for Q3 and Q3 Sportback) answers from the pool's key.
  const own = MODELS.filter(({ make, model }) => {
    const resolved = snapshot.resolve(make, model)
    return resolved.models.length === 1 && resolved.target.name === model
  })
  t.ok(own.length >= MODELS.length - 10, `${own.length} models answer from their own keys`)
  let checked = 0
  MODELS.forEach(({ make, model }, m) => {
    if (!own.some((o) => o.make === make && o.model === model)) return
    for (const year of YEARS) {
      const prices = Array.from({ length: 10 }, (_, i) => 10_000 + 100 * m + 10 * (year - 2000) + 7 * i)
      const answer = snapshot.valuation(vehicle(make, model, year))
      if (
        answer.sample_size !== 10 ||
        JSON.stringify(answer.valuation) !== JSON.stringify(reference.quartiles(prices))
      ) {
        t.fail(`${make} ${model} ${year}: ${JSON.stringify(answer)}`)
        return
      }
      const regional = snapshot.regional(vehicle(make, model, year))
      if (regional.total_sample_size !== 10 || regional.regions.length !== 2)
        t.fail(`${make} ${model} ${year}: ${JSON.stringify(regional)}`)
      checked++
    }
  })
  t.equal(checked, own.length * YEARS.length, 'every key answers with its own listings')
})
