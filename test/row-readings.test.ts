import { Readable } from 'node:stream'
import t from 'tap'
import { readExport, type RawRow } from '../build/export-reader.js'
import { COL } from '../format/export-columns.js'
import { TextTable } from '../build/text-table.js'

/** What the build reads of a row besides its text, for every row of an export. */
async function readings(text: string) {
  const table = new TextTable((value) => `<${value}>`)
  const out: unknown[] = []
  await readExport(Readable.from([Buffer.from(text)]), (row: RawRow | undefined) => {
    if (row === undefined) return out.push(null)
    out.push({
      empty: row.isEmpty(COL.mileage_km),
      mileage: row.integer(COL.mileage_km),
      price: row.integer(COL.price),
      fuel: row.lookup(COL.fuel_type, table),
      id: row.key(COL.listing_id),
      make: row.get(COL.make),
    })
  })
  return out
}

// Columns the readings do not look at are there because a listings export must have them.
const header = 'listing_id,make,price,mileage_km,fuel_type,model,year,first_seen,last_seen,active'
const rest = ',Golf,2017,2026-08-01,2026-09-01,true'

t.test('CSV and NDJSON rows read the same', async (t) => {
  const csv = [
    header,
    'a1, Škoda ,45000,  ,Diesel' + rest,
    'a2,"Citroën ""C""",-5,123456789012345,"Benzyna, LPG"' + rest,
    'a3,VW,45000.5,1234567890123456,"Wod""or"' + rest,
    'a4,VW,12a,-0,\t' + rest,
  ].join('\n')
  const ndjson = [
    { listing_id: 'a1', make: ' Škoda ', price: 45000, mileage_km: '  ', fuel_type: 'Diesel' },
    { listing_id: 'a2', make: 'Citroën "C"', price: -5, mileage_km: 123456789012345, fuel_type: 'Benzyna, LPG' },
    { listing_id: 'a3', make: 'VW', price: 45000.5, mileage_km: 1234567890123456, fuel_type: 'Wod"or' },
    { listing_id: 'a4', make: 'VW', price: '12a', mileage_km: '-0', fuel_type: '\t' },
  ]
    .map((o) => JSON.stringify(o))
    .join('\n')
  const expected = [
    { empty: true, mileage: NaN, price: 45000, fuel: '<Diesel>', id: 'a1', make: 'Škoda' },
    { empty: false, mileage: 123456789012345, price: -5, fuel: '<Benzyna, LPG>', id: 'a2', make: 'Citroën "C"' },
    { empty: false, mileage: NaN, price: NaN, fuel: '<Wod"or>', id: 'a3', make: 'VW' },
    { empty: false, mileage: -0, price: NaN, fuel: '<>', id: 'a4', make: 'VW' },
  ]
  t.same(await readings(csv), expected)
  t.same(await readings(ndjson), expected)
})

t.test('a text table answers the same by text and by bytes, and stops remembering at its limit', (t) => {
  let computed = 0
  const table = new TextTable((text) => {
    computed++
    return text.toUpperCase()
  }, 3)
  const bytes = Buffer.from('xx|łódź|łódź|ab|cd|ef|ab')
  const at = (s: number, e: number) => table.fromBytes(bytes, s, e)
  t.equal(at(3, 10), 'ŁÓDŹ')
  t.equal(at(11, 18), 'ŁÓDŹ')
  t.equal(computed, 1, 'the same bytes are decoded once')
  t.equal(at(19, 21), 'AB')
  t.equal(at(0, 2), 'XX')
  t.equal(at(22, 24), 'CD', 'past the limit it still answers')
  t.equal(at(22, 24), 'CD')
  t.equal(computed, 5, 'but computes again what it could not keep')
  t.equal(table.fromText('ab'), 'AB')
  t.equal(at(2, 2), '', 'an empty value is a value too')
  // Many distinct values: the table grows and keeps answering right.
  const big = new TextTable((text) => text.length, Infinity)
  const many = Buffer.from(Array.from({ length: 5000 }, (_, i) => `v${i}`).join(','))
  let start = 0
  let wrong = 0
  for (let i = 0; i < 5000; i++) {
    const end = many.indexOf(',', start) < 0 ? many.length : many.indexOf(',', start)
    if (big.fromBytes(many, start, end) !== `v${i}`.length) wrong++
    start = end + 1
  }
  t.equal(wrong, 0)
  t.end()
})
