import { Readable } from 'node:stream'
import t from 'tap'
import { BuildError } from '../build/build-error.js'
import { runBuild } from '../build/run-build.js'
import { build, freshDir, reference, row, rows, toCsv, vehicle, type Row } from './support.js'

// Exports of several 4 MiB pieces, so that rows are parsed by different workers.
const FILLER = 160_000
const filler = (i: number): Partial<Row> => ({ make: 'Skoda', model: 'Fabia', price: 20_000 + (i % 5000) })

t.test('duplicates across pieces keep file order: a tie goes to the later row', async (t) => {
  const probe = (fields: Partial<Row>) => row({ make: 'Dacia', model: 'Logan', ...fields })
  const data: Row[] = [
    probe({ listing_id: 'TIE', price: 11_000, last_seen: '2026-09-10' }),
    probe({ listing_id: 'EARLY-WINS', price: 12_000, last_seen: '2026-09-20' }),
    ...rows(FILLER / 2, filler),
    ...Array.from({ length: 10 }, (_, i) => probe({ price: 30_000 + i })),
    ...rows(FILLER / 2, filler),
    probe({ listing_id: 'TIE', price: 21_000, last_seen: '2026-09-10' }),
    probe({ listing_id: 'EARLY-WINS', price: 22_000, last_seen: '2026-09-01' }),
  ]
  const csv = toCsv(data)
  t.ok(csv.length > 3 * (4 << 20), `the export spans several pieces (${(csv.length / (1 << 20)).toFixed(1)} MiB)`)
  const { report, snapshot } = await build(t, csv)
  t.equal(report.duplicates_dropped, 2)
  t.equal(report.listings_kept, data.length - 2)
  const expected = [21_000, 12_000, ...Array.from({ length: 10 }, (_, i) => 30_000 + i)]
  t.same(snapshot.valuation(vehicle('Dacia', 'Logan', 2017)).valuation, reference.quartiles(expected))
})

t.test('records with quoted line breaks are whole wherever the pieces are cut', async (t) => {
  const extra = (i: number) => `"Tytuł ${i}, ""igła""\nlinia druga\r\nlinia trzecia"`
  const header =
    'listing_id,make,model,year,price,mileage_km,fuel_type,gearbox,imported,voivodeship,first_seen,last_seen,active,title'
  const lines = Array.from(
    { length: 50_000 },
    (_, i) =>
      `Q${i},Skoda,Octavia,2018,${40_000 + (i % 1000)},${100_000 + i},Diesel,Manualna,false,mazowieckie,2026-08-01,2026-09-01,false,${extra(i)}`,
  )
  const csv = `${header}\n${lines.join('\n')}\n`
  const { report, snapshot } = await build(t, csv)
  t.equal(report.rows_read, 50_000)
  t.same(report.rejected_by_reason, {})
  t.equal(snapshot.valuation(vehicle('Skoda', 'Octavia', 2018)).sample_size, 50_000)
})

t.test('a worker failure stops the read early, without reading the whole export', async (t) => {
  const dir = freshDir(t)
  let pulled = 0
  const line = `${'x'.repeat(200)}\n`
  // 200 MiB of rows after a header without the required columns, produced on demand.
  const source = Readable.from(
    (function* () {
      yield Buffer.from('id,brand,title\n')
      for (let i = 0; i < 200; i++) {
        pulled++
        yield Buffer.from(line.repeat((1 << 20) / line.length))
      }
    })(),
  )
  await t.rejects(runBuild({ input: '-', stdin: source, snapshots: dir }), BuildError)
  // Bounded by the pieces two workers may have queued (3 each of 4 MiB) plus one being gathered.
  t.ok(pulled < 60, `stopped after ${pulled} of 200 MiB`)
})
