import t from 'tap'
import { build, reference, row, rows, toCsv, vehicle } from './support.js'

// Enough good rows that a handful of bad ones stays under the rejected-share limit.
const good = () => rows(40, (i) => ({ price: 40_000 + i * 100 }))

t.test('every rejection reason is counted under its name', async (t) => {
  const bad = {
    missing_listing_id: row({ listing_id: '' }),
    missing_make: row({ make: '' }),
    missing_model: row({ model: '  ' }),
    missing_year: row({ year: '' }),
    invalid_year: row({ year: '2015.0' }),
    year_out_of_range: row({ year: 1899 }),
    missing_price: row({ price: '' }),
    invalid_price: row({ price: '45 000' }),
    price_out_of_range: row({ price: 99 }),
    unsupported_currency: row({ currency: 'USD' }),
    invalid_mileage_km: row({ mileage_km: 'abc' }),
    mileage_km_out_of_range: row({ mileage_km: -1 }),
    invalid_fuel_type: row({ fuel_type: 'Parowy' }),
    invalid_gearbox: row({ gearbox: 'Półautomatyczna' }),
    invalid_imported: row({ imported: 'maybe' }),
    missing_first_seen: row({ first_seen: '' }),
    invalid_first_seen: row({ first_seen: '2026-02-30' }),
    missing_last_seen: row({ last_seen: '' }),
    invalid_last_seen: row({ last_seen: 'yesterday' }),
    missing_active: row({ active: '' }),
    invalid_active: row({ active: 'yes please' }),
    last_seen_before_first_seen: row({ first_seen: '2026-09-02', last_seen: '2026-09-01' }),
    invalid_condition: row({ condition: 'damaged' }),
    invalid_make: row({ make: '???' }),
    unspecified_make: row({ make: 'Inne' }),
    unspecified_model: row({ model: 'pozostałe' }),
  }
  const csv = toCsv([...good(), ...Object.values(bad)]) + 'too,few,fields\n'
  const { report } = await build(t, csv)
  t.same(report.rejected_by_reason, { ...Object.fromEntries(Object.keys(bad).map((k) => [k, 1])), malformed_row: 1 })
  t.equal(report.rows_read, 40 + Object.keys(bad).length + 1)
  t.equal(report.rows_rejected, Object.keys(bad).length + 1)
  t.equal(report.listings_kept, 40)
})

t.test('bounds: inclusive limits are kept, one step past them rejected', async (t) => {
  const edges = [
    row({ price: 100 }),
    row({ price: 10_000_000 }),
    row({ price: '100.00' }),
    // Used, as it says: an empty condition would make it a new car (contract 1.2).
    row({ mileage_km: 0, condition: 'used' }),
    row({ mileage_km: 3_000_000 }),
    row({ year: 1900 }),
    row({ year: 2027 }), // as-of 2026-09-30: year + 1 is still accepted
  ]
  const past = [
    row({ price: '99.99' }),
    row({ price: 10_000_001 }),
    row({ mileage_km: 3_000_001 }),
    row({ year: 2028 }),
  ]
  const { report } = await build(t, toCsv([...good(), ...edges, ...past]), { asOf: '2026-09-30' })
  t.equal(report.listings_kept, 40 + edges.length)
  t.same(report.rejected_by_reason, { price_out_of_range: 2, mileage_km_out_of_range: 1, year_out_of_range: 1 })
})

t.test('optional fields: empty is unknown, and every accepted spelling is accepted', async (t) => {
  const spellings = [
    row({ fuel_type: '', gearbox: '', imported: '', voivodeship: '', mileage_km: '', currency: '' }),
    row({ fuel_type: 'BENZYNA + LPG', gearbox: 'AUTOMATIC', imported: 'TAK', voivodeship: 'Województwo Łódzkie' }),
    row({ fuel_type: 'wodor', gearbox: 'manual', imported: '1', voivodeship: 'woj. slaskie' }),
    row({ fuel_type: 'plug-in hybrid', imported: 'nie', voivodeship: 'Kujawsko-Pomorskie' }),
    row({ fuel_type: 'phev', imported: '0', voivodeship: 'WARMINSKO MAZURSKIE' }),
    row({ fuel_type: 'ev', active: 'TRUE', last_seen: '2026-09-30' }),
    row({ first_seen: '2026-08-01T23:59:59Z', last_seen: '2026-09-01T00:30:00+02:00' }),
    row({ currency: 'pln' }),
  ]
  const { report } = await build(t, toCsv([...good(), ...spellings]))
  t.same(report.rejected_by_reason, {})
  t.equal(report.listings_kept, 40 + spellings.length)
})

t.test('duplicates: rejected rows go first, then the latest last_seen wins, ties to the later row', async (t) => {
  const data = [
    ...rows(12, (i) => ({ listing_id: `U${i}`, price: 30_000 + i })),
    row({ listing_id: 'D1', price: 10_000, last_seen: '2026-09-10' }),
    row({ listing_id: 'D1', price: 20_000, last_seen: '2026-09-05' }), // earlier sighting: loses
    row({ listing_id: 'D2', price: 11_000, last_seen: '2026-09-05' }),
    row({ listing_id: 'D2', price: 21_000, last_seen: '2026-09-05T22:00:00Z' }), // same UTC date: the later row wins
    row({ listing_id: 'D3', price: 12_000, last_seen: '2026-09-05' }),
    row({ listing_id: 'D3', price: 99, last_seen: '2026-09-20' }), // rejected, so it cannot win
  ]
  const { report, snapshot } = await build(t, toCsv(data))
  t.equal(report.duplicates_dropped, 2)
  t.equal(report.rows_rejected, 1)
  t.equal(report.listings_kept, 15)
  const kept = [...Array.from({ length: 12 }, (_, i) => 30_000 + i), 10_000, 21_000, 12_000]
  t.same(snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017)).valuation, reference.quartiles(kept))
})

t.test('as-of: the greatest kept last_seen, unless given; a year past it + 1 is rejected', async (t) => {
  const data = [...good(), row({ last_seen: '2026-10-03' }), row({ year: 2028, last_seen: '2026-12-31' })]
  const { report } = await build(t, toCsv(data), { asOf: undefined })
  // The 2028 car is rejected, so its later last_seen does not set the date.
  t.equal(report.as_of, '2026-10-03')
  t.same(report.rejected_by_reason, { year_out_of_range: 1 })
  const given = await build(t, toCsv(data), { asOf: '2027-02-01' })
  t.equal(given.report.as_of, '2027-02-01')
  t.same(given.report.rejected_by_reason, {})
})

t.test('currencies: converted with the given rate before the bounds, unrounded', async (t) => {
  const data = [
    ...rows(10, (i) => ({ price: 10_000 + i * 1000, currency: 'EUR' })),
    row({ price: 23, currency: 'EUR' }), // 98.9 PLN: below the bound after conversion
    row({ price: 1000, currency: 'CHF' }),
  ]
  const { report, snapshot } = await build(t, toCsv(data), { fx: new Map([['EUR', 4.31]]) })
  t.same(report.currency_conversions, { EUR: 10 })
  t.same(report.rejected_by_reason, { price_out_of_range: 1, unsupported_currency: 1 })
  t.same(
    snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017)).valuation,
    reference.quartiles(Array.from({ length: 10 }, (_, i) => (10_000 + i * 1000) * 4.31)),
  )
})

t.test('NDJSON: JSON numbers and booleans or strings in the CSV forms', async (t) => {
  const lines = [
    ...rows(10, (i) => ({ price: 20_000 + i })).map((r) => ({
      ...r,
      price: Number(r.price),
      year: 2017,
      active: false,
      imported: true,
      mileage_km: 120_000,
    })),
    { ...row(), price: '20500', mileage_km: null },
    { ...row(), price: [1] },
  ]
  const { report } = await build(t, lines.map((l) => JSON.stringify(l)).join('\n') + '\n\n', {}, 'export.ndjson')
  t.equal(report.format, 'ndjson')
  t.equal(report.listings_kept, 11)
  t.same(report.rejected_by_reason, { invalid_price: 1 })
})

t.test('a build that keeps nothing, or rejects too much, fails and publishes nothing', async (t) => {
  await t.rejects(build(t, toCsv(rows(5, () => ({ price: 1 })))), { code: 'too_many_rejected' })
  await t.rejects(build(t, toCsv([...rows(5, () => ({})), ...rows(6, () => ({ price: 1 }))])), {
    code: 'too_many_rejected',
  })
  const lenient = await build(t, toCsv([...rows(5, () => ({})), ...rows(6, () => ({ price: 1 }))]), {
    maxRejectedShare: 0.9,
  })
  t.equal(lenient.report.listings_kept, 5)
})
