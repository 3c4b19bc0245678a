import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { BuildError } from '../build/build-error.js'
import { readExport, type ExportFormat } from '../build/export-reader.js'
import { COL, COLUMNS } from '../format/export-columns.js'
import { runBuild } from '../build/run-build.js'
import { build, reference, row, toCsv, vehicle } from './support.js'

/**
 * readExport driven with real bytes cut into chunks of every kind: each row is
 * captured as the decoded text of all 14 contract columns (row.get(c)), or
 * null for a row readExport reports as malformed.
 */

type Captured = (string[] | null)[]
interface Read {
  format: ExportFormat | undefined
  rows: Captured
}
type Chunker = (bytes: Buffer) => Buffer[]

const whole: Chunker = (bytes) => [bytes]
const bytewise: Chunker = (bytes) => Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))
/** Cuts at the given byte offsets. */
const cutAt =
  (...offsets: number[]): Chunker =>
  (bytes) => {
    const at = [0, ...offsets.filter((o) => o > 0 && o < bytes.length).sort((a, b) => a - b), bytes.length]
    return at.slice(1).map((end, i) => bytes.subarray(at[i]!, end))
  }
/** Random chunk sizes from 1 to `max` bytes, reproducible by seed (mulberry32). */
const randomly =
  (seed: number, max: number): Chunker =>
  (bytes) => {
    let s = seed >>> 0
    const next = () => {
      s = (s + 0x6d2b79f5) >>> 0
      let x = Math.imul(s ^ (s >>> 15), 1 | s)
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296
    }
    const out: Buffer[] = []
    for (let i = 0; i < bytes.length;) {
      const n = 1 + Math.floor(next() * max)
      out.push(bytes.subarray(i, i + n))
      i += n
    }
    return out
  }

async function* stream(chunks: Buffer[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) {
    // A copy, so no chunk shares memory with the next one: the reader must carry bytes itself.
    yield Buffer.from(chunk)
    await Promise.resolve()
  }
}

async function read(content: string | Buffer, chunker: Chunker = whole): Promise<Read> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  const captured: Captured = []
  const format = await readExport(stream(chunker(bytes)), (r) => {
    captured.push(r === undefined ? null : COLUMNS.map((_, c) => r.get(c)))
  })
  return { format, rows: captured }
}

/** The 14 columns of an expected row, '' where not given. */
function expected(fields: Partial<Record<(typeof COLUMNS)[number], string>>): string[] {
  return COLUMNS.map((c) => fields[c] ?? '')
}

/** The rows read, or the message of what was thrown, so one failure does not hide the next. */
async function readOrError(content: string | Buffer, chunker: Chunker = whole): Promise<Read | { error: string }> {
  try {
    return await read(content, chunker)
  } catch (error) {
    return { error: String(error) }
  }
}

async function readError(content: string | Buffer, chunker: Chunker = whole): Promise<unknown> {
  try {
    await read(content, chunker)
  } catch (error) {
    return error
  }
  return undefined
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

t.test('quoted commas, doubled quotes and line breaks inside quotes, CRLF record ends', async (t) => {
  const csv =
    'listing_id,make,model,year,price,first_seen,last_seen,active,title\r\n' +
    'A1,Volkswagen,"Golf, Variant",2017,45000,2026-08-01,2026-09-01,true,"a ""nice"" car, really"\r\n' +
    'A2,"Citroen","C4 ""Picasso""",2015,"31000",2026-08-02,2026-09-02,false,plain\r\n' +
    'A3,Volkswagen,"Golf\nPlus",2016,39000,2026-08-03,2026-09-03,true,"two\nlines"\r\n' +
    'A4,Volkswagen,"Golf\r\nSportsvan",2018,52000,2026-08-04,2026-09-04,false,"crlf\r\ninside, too"\r\n' +
    '"A5","","""",2019,"",2026-08-05,2026-09-05,"true",""\r\n'
  const { format, rows: got } = await read(csv)
  t.equal(format, 'csv')
  t.strictSame(got, [
    expected({
      listing_id: 'A1',
      make: 'Volkswagen',
      model: 'Golf, Variant',
      year: '2017',
      price: '45000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
    expected({
      listing_id: 'A2',
      make: 'Citroen',
      model: 'C4 "Picasso"',
      year: '2015',
      price: '31000',
      first_seen: '2026-08-02',
      last_seen: '2026-09-02',
      active: 'false',
    }),
    expected({
      listing_id: 'A3',
      make: 'Volkswagen',
      model: 'Golf\nPlus',
      year: '2016',
      price: '39000',
      first_seen: '2026-08-03',
      last_seen: '2026-09-03',
      active: 'true',
    }),
    expected({
      listing_id: 'A4',
      make: 'Volkswagen',
      model: 'Golf\r\nSportsvan',
      year: '2018',
      price: '52000',
      first_seen: '2026-08-04',
      last_seen: '2026-09-04',
      active: 'false',
    }),
    expected({
      listing_id: 'A5',
      make: '',
      model: '"',
      year: '2019',
      price: '',
      first_seen: '2026-08-05',
      last_seen: '2026-09-05',
      active: 'true',
    }),
  ])
  // The same bytes cut everywhere give the same rows, CR and LF of a CRLF in different chunks included.
  t.strictSame((await read(csv, bytewise)).rows, got, 'one byte per chunk')
  const crlf = [...csv.matchAll(/\r\n/g)].map((m) => m.index + 1)
  t.strictSame((await read(csv, cutAt(...crlf))).rows, got, 'every CRLF cut between CR and LF')
  const quotes = [...csv.matchAll(/"/g)].map((m) => m.index + 1)
  t.strictSame((await read(csv, cutAt(...quotes))).rows, got, 'cut right after every quote')
})

t.test('the header may be in any case and order, with extra columns that are ignored', async (t) => {
  const csv =
    'Notes, ACTIVE ,Last_Seen,FIRST_SEEN,Price,Year,Model,MAKE,Listing_ID,Seller,Voivodeship,mileage_km,gearbox\n' +
    'nice,false,2026-09-01,2026-08-01,45000,2017,Golf,Volkswagen,X1,dealer,mazowieckie,120000,manual\n' +
    '"x, y",true,2026-09-02,2026-08-02,47000,2018,Passat,VW,X2,"private, ""owner""",,,\n'
  const { rows: got } = await read(csv)
  t.strictSame(got, [
    expected({
      listing_id: 'X1',
      make: 'Volkswagen',
      model: 'Golf',
      year: '2017',
      price: '45000',
      mileage_km: '120000',
      gearbox: 'manual',
      voivodeship: 'mazowieckie',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'false',
    }),
    expected({
      listing_id: 'X2',
      make: 'VW',
      model: 'Passat',
      year: '2018',
      price: '47000',
      first_seen: '2026-08-02',
      last_seen: '2026-09-02',
      active: 'true',
    }),
  ])
  t.strictSame((await read(csv, bytewise)).rows, got, 'one byte per chunk')
})

t.test('a UTF-8 BOM before the header is ignored', async (t) => {
  const body =
    'listing_id,make,model,year,price,first_seen,last_seen,active\nB1,Skoda,Octavia,2018,41000,2026-08-01,2026-09-01,true\n'
  const want = {
    format: 'csv',
    rows: [
      expected({
        listing_id: 'B1',
        make: 'Skoda',
        model: 'Octavia',
        year: '2018',
        price: '41000',
        first_seen: '2026-08-01',
        last_seen: '2026-09-01',
        active: 'true',
      }),
    ],
  }
  const withBom = Buffer.concat([BOM, Buffer.from(body)])
  t.strictSame(await readOrError(withBom), want, 'whole')
  t.strictSame(await readOrError(withBom, cutAt(3)), want, 'the BOM a chunk of its own')
  t.strictSame(await readOrError(withBom, bytewise), want, 'one byte per chunk')

  // A quoted first header name right after the BOM, the BOM arriving in pieces.
  const quoted = Buffer.concat([
    BOM,
    Buffer.from(
      '"listing_id","make",model,year,price,first_seen,last_seen,active\nB1,Skoda,Octavia,2018,41000,2026-08-01,2026-09-01,true\n',
    ),
  ])
  t.strictSame(await readOrError(quoted), want, 'quoted header, whole')
  t.strictSame(await readOrError(quoted, cutAt(3)), want, 'quoted header, the BOM a chunk of its own')
  t.strictSame(await readOrError(quoted, cutAt(1)), want, 'quoted header, the BOM cut after its first byte')
  t.strictSame(await readOrError(quoted, cutAt(2)), want, 'quoted header, the BOM cut after its second byte')
  t.strictSame(await readOrError(quoted, bytewise), want, 'quoted header, one byte per chunk')

  // NDJSON after a BOM: the format is told by the first character after the BOM.
  const nd = Buffer.concat([
    BOM,
    Buffer.from(
      '{"listing_id":"B1","make":"Skoda","model":"Octavia","year":2018,"price":41000,"first_seen":"2026-08-01","last_seen":"2026-09-01","active":true}\n',
    ),
  ])
  const wantNd = { ...want, format: 'ndjson' }
  t.strictSame(await readOrError(nd), wantNd, 'NDJSON after a BOM, whole')
  t.strictSame(await readOrError(nd, cutAt(1)), wantNd, 'NDJSON after a BOM cut after its first byte')
  t.strictSame(await readOrError(nd, bytewise), wantNd, 'NDJSON after a BOM, one byte per chunk')
})

t.test('a last line without newline and trailing empty fields', async (t) => {
  const header = 'listing_id,make,model,year,price,first_seen,last_seen,active,voivodeship\n'
  const csv =
    header +
    'C1,Toyota,Corolla,2019,60000,2026-08-01,2026-09-01,true,\n' +
    'C2,Toyota,Yaris,2020,50000,2026-08-01,2026-09-01,false,'
  const want = [
    expected({
      listing_id: 'C1',
      make: 'Toyota',
      model: 'Corolla',
      year: '2019',
      price: '60000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
    expected({
      listing_id: 'C2',
      make: 'Toyota',
      model: 'Yaris',
      year: '2020',
      price: '50000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'false',
    }),
  ]
  for (const [name, chunker] of [
    ['whole', whole],
    ['bytewise', bytewise],
    ['random', randomly(7, 9)],
  ] as const) {
    t.strictSame((await read(csv, chunker)).rows, want, `trailing empty field at the end of input (${name})`)
  }
  const noNewline = header + 'C3,Toyota,Corolla,2019,60000,2026-08-01,2026-09-01,true,pomorskie'
  const want3 = [
    expected({
      listing_id: 'C3',
      make: 'Toyota',
      model: 'Corolla',
      year: '2019',
      price: '60000',
      voivodeship: 'pomorskie',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
  ]
  t.strictSame((await read(noNewline)).rows, want3, 'last field unquoted, no newline')
  t.strictSame((await read(noNewline, bytewise)).rows, want3, 'last field unquoted, no newline, one byte per chunk')
  const quotedLast = header + 'C3,Toyota,Corolla,2019,60000,2026-08-01,2026-09-01,true,"pomorskie"'
  t.strictSame((await read(quotedLast)).rows, want3, 'last field quoted, no newline')
  t.strictSame((await read(quotedLast, bytewise)).rows, want3, 'last field quoted, no newline, one byte per chunk')
  const crlfLast =
    header.replace('\n', '\r\n') + 'C3,Toyota,Corolla,2019,60000,2026-08-01,2026-09-01,true,pomorskie\r\n'
  t.strictSame((await read(crlfLast, bytewise)).rows, want3, 'CRLF after the last record')
})

t.test('blank lines are skipped, LF and CRLF alike', async (t) => {
  const csv =
    '\n\r\nlisting_id,make,model,year,price,first_seen,last_seen,active\n' +
    '\n' +
    'D1,Opel,Astra,2014,21000,2026-08-01,2026-09-01,true\n' +
    '\r\n\r\n' +
    'D2,Opel,Corsa,2015,19000,2026-08-01,2026-09-01,false\r\n' +
    '\n\n'
  const want = [
    expected({
      listing_id: 'D1',
      make: 'Opel',
      model: 'Astra',
      year: '2014',
      price: '21000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
    expected({
      listing_id: 'D2',
      make: 'Opel',
      model: 'Corsa',
      year: '2015',
      price: '19000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'false',
    }),
  ]
  t.strictSame(await read(csv), { format: 'csv', rows: want })
  t.strictSame((await read(csv, bytewise)).rows, want, 'one byte per chunk')
  t.strictSame(await read('\n\n\r\n'), { format: undefined, rows: [] }, 'only blank lines: no format, no rows')
  t.strictSame(await read(''), { format: undefined, rows: [] }, 'no bytes at all')
})

t.test('non-ASCII values are decoded by row.get, even split across chunks', async (t) => {
  const csv =
    'listing_id,make,model,year,price,fuel_type,voivodeship,first_seen,last_seen,active\n' +
    'E1,Škoda,Octavia,2018,41000,Wodór,łódzkie,2026-08-01,2026-09-01,true\n' +
    'E2,"Škoda","Superb, Laurin & Klement",2019,99000,"Wodór","świętokrzyskie",2026-08-01,2026-09-01,false\n'
  const want = [
    expected({
      listing_id: 'E1',
      make: 'Škoda',
      model: 'Octavia',
      year: '2018',
      price: '41000',
      fuel_type: 'Wodór',
      voivodeship: 'łódzkie',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
    expected({
      listing_id: 'E2',
      make: 'Škoda',
      model: 'Superb, Laurin & Klement',
      year: '2019',
      price: '99000',
      fuel_type: 'Wodór',
      voivodeship: 'świętokrzyskie',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'false',
    }),
  ]
  const bytes = Buffer.from(csv, 'utf8')
  t.strictSame((await read(bytes)).rows, want)

  // get() decodes; key() identifies the value by its bytes (one character per byte).
  const raws: string[] = []
  await readExport(stream([bytes]), (r) => {
    raws.push(r!.get(COL.make), r!.key(COL.make), r!.get(COL.voivodeship), r!.key(COL.voivodeship))
  })
  t.strictSame(raws.slice(0, 4), [
    'Škoda',
    Buffer.from('Škoda').toString('latin1'),
    'łódzkie',
    Buffer.from('łódzkie').toString('latin1'),
  ])

  // Cut inside every multi-byte character: between the bytes of Š, ł, ó, ś.
  const inside: number[] = []
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0xc0) inside.push(i + 1)
  t.ok(inside.length >= 8, 'the export has multi-byte characters to cut')
  t.strictSame((await read(bytes, cutAt(...inside))).rows, want, 'every multi-byte character split over two chunks')
  t.strictSame((await read(bytes, bytewise)).rows, want, 'one byte per chunk')

  const ndjson =
    JSON.stringify({
      listing_id: 'E1',
      make: 'Škoda',
      model: 'Octavia',
      year: 2018,
      price: 41000,
      fuel_type: 'Wodór',
      voivodeship: 'łódzkie',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: true,
    }) + '\n'
  const nd = Buffer.from(ndjson, 'utf8')
  const ndInside: number[] = []
  for (let i = 0; i < nd.length; i++) if (nd[i]! >= 0xc0) ndInside.push(i + 1)
  t.strictSame(
    (await read(nd, cutAt(...ndInside))).rows,
    [want[0]],
    'NDJSON: multi-byte characters split over two chunks',
  )
})

t.test('the same export whole, one byte per chunk and in random chunks gives identical rows', async (t) => {
  // Every feature at once, many rows, so random chunk ends fall everywhere.
  const lines = [
    'Title,listing_id,MAKE,model,year,price,currency,mileage_km,fuel_type,gearbox,imported,voivodeship,first_seen,last_seen,active',
  ]
  for (let i = 0; i < 60; i++) {
    const title =
      i % 3 === 0 ? `"Auto ""${i}"", stan\r\nbardzo dobry"` : i % 3 === 1 ? `"linia\nnowa, ${i}"` : `zwykły ${i}`
    const make = i % 4 === 0 ? '"Škoda"' : i % 4 === 1 ? 'Volkswagen' : i % 4 === 2 ? '"Volks""wagen"' : 'Łada'
    const voivodeship = i % 5 === 0 ? '' : i % 5 === 1 ? 'łódzkie' : i % 5 === 2 ? '"śląskie"' : 'Małopolskie'
    const fuel = i % 2 === 0 ? 'Wodór' : '"Benzyna+LPG"'
    lines.push(
      `${title},R${i},${make},"Model ${i % 7}, wersja",${2000 + (i % 20)},${10000 + i * 137},${i % 6 === 0 ? 'EUR' : ''},${i * 1000},${fuel},manual,${i % 2 === 0},${voivodeship},2026-07-01,2026-09-${String(1 + (i % 28)).padStart(2, '0')},${i % 3 === 0}`,
    )
    if (i % 11 === 0) lines.push('')
  }
  const csv = lines.join('\r\n') + '\r\n'
  const base = await read(csv)
  t.equal(base.rows.length, 60)
  t.equal(base.rows.filter((r) => r === null).length, 0, 'no row is malformed')
  t.strictSame(
    base.rows[0],
    expected({
      listing_id: 'R0',
      make: 'Škoda',
      model: 'Model 0, wersja',
      year: '2000',
      price: '10000',
      currency: 'EUR',
      mileage_km: '0',
      fuel_type: 'Wodór',
      gearbox: 'manual',
      imported: 'true',
      voivodeship: '',
      first_seen: '2026-07-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
  )
  t.strictSame(
    base.rows[2],
    expected({
      listing_id: 'R2',
      make: 'Volks"wagen',
      model: 'Model 2, wersja',
      year: '2002',
      price: '10274',
      mileage_km: '2000',
      fuel_type: 'Wodór',
      gearbox: 'manual',
      imported: 'true',
      voivodeship: 'śląskie',
      first_seen: '2026-07-01',
      last_seen: '2026-09-03',
      active: 'false',
    }),
  )
  t.strictSame(base.rows[3]![COL.make], 'Łada')
  t.strictSame(base.rows[3]![COL.voivodeship], 'Małopolskie')
  t.strictSame((await read(csv, bytewise)).rows, base.rows, 'one byte per chunk')
  for (const seed of [1, 2, 3, 4, 5]) {
    t.strictSame((await read(csv, randomly(seed, 40))).rows, base.rows, `random chunks of 1-40 bytes, seed ${seed}`)
  }
  t.strictSame((await read(csv, randomly(99, 3))).rows, base.rows, 'random chunks of 1-3 bytes')

  const ndjson =
    base.rows.map((r) => JSON.stringify(Object.fromEntries(COLUMNS.map((c, i) => [c, r![i]])))).join('\n') + '\n'
  const nd = await read(ndjson)
  t.equal(nd.format, 'ndjson')
  t.strictSame(nd.rows, base.rows, 'the same values as NDJSON')
  t.strictSame((await read(ndjson, randomly(11, 17))).rows, base.rows, 'NDJSON in random chunks')
})

t.test('a row with the wrong number of fields is malformed (undefined); the rows around it are not', async (t) => {
  const csv =
    'listing_id,make,model,year,price,first_seen,last_seen,active\n' +
    'F1,Fiat,Panda,2012,15000,2026-08-01,2026-09-01,true\n' +
    'F2,Fiat,Panda,2012,15000,2026-08-01,2026-09-01\n' +
    'F3,Fiat,Panda,2012,15000,2026-08-01,2026-09-01,true,extra\n' +
    'just one field\n' +
    '"F4","Fiat","Panda, 1.2",2012,15000,2026-08-01,2026-09-01,true\n'
  const want = [
    expected({
      listing_id: 'F1',
      make: 'Fiat',
      model: 'Panda',
      year: '2012',
      price: '15000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
    null,
    null,
    null,
    expected({
      listing_id: 'F4',
      make: 'Fiat',
      model: 'Panda, 1.2',
      year: '2012',
      price: '15000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
  ]
  t.strictSame((await read(csv)).rows, want)
  t.strictSame((await read(csv, bytewise)).rows, want, 'one byte per chunk')
})

t.test('a one-field row is malformed whatever the chunking, also when its column is ignored', async (t) => {
  // The first column is one the build does not read. A row of that single field is a
  // row with the wrong field count, not a blank line, and must be reported (undefined)
  // however the bytes arrive.
  const csv =
    'title,listing_id,make,model,year,price,first_seen,last_seen,active\n' +
    'nice,G1,Fiat,Panda,2012,15000,2026-08-01,2026-09-01,true\n' +
    'stray text\n' +
    'nice,G2,Fiat,Panda,2012,15000,2026-08-01,2026-09-01,true\n'
  const headerEnd = csv.indexOf('\n') + 1
  const want = [
    expected({
      listing_id: 'G1',
      make: 'Fiat',
      model: 'Panda',
      year: '2012',
      price: '15000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
    null,
    expected({
      listing_id: 'G2',
      make: 'Fiat',
      model: 'Panda',
      year: '2012',
      price: '15000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'true',
    }),
  ]
  t.strictSame((await read(csv)).rows, want, 'whole')
  t.strictSame((await read(csv, cutAt(headerEnd))).rows, want, 'the header in a chunk of its own')
  t.strictSame((await read(csv, bytewise)).rows, want, 'one byte per chunk')

  // What it does to a build: wherever the stray row lies (here past the first MiB, so it
  // is read after the header whatever the build's chunking), it must count as read and
  // as a malformed_row.
  const lines = ['title,listing_id,make,model,year,price,first_seen,last_seen,active']
  for (let i = 0; i < 25_000; i++) {
    lines.push(`nice,K${i},Fiat,Panda,2012,${15_000 + i},2026-08-01,2026-09-01,true`)
    if (i === 24_000) lines.push('stray text')
  }
  const big = lines.join('\n') + '\n'
  t.ok(big.indexOf('stray text') > 1 << 20, 'the stray row lies past the first MiB')
  const dir = t.testdir()
  writeFileSync(join(dir, 'big.csv'), big)
  const report = await runBuild({ input: join(dir, 'big.csv'), snapshots: join(dir, 'snapshots'), asOf: '2026-09-30' })
  t.equal(report.rows_read, 25_001, 'rows_read counts the stray row')
  t.strictSame(report.rejected_by_reason, { malformed_row: 1 }, 'the stray row is rejected as malformed_row')
  t.equal(report.listings_kept, 25_000)
})

t.test('characters after a closing quote make the row malformed', async (t) => {
  const csv =
    'listing_id,make,model,year,price,first_seen,last_seen,active\n' +
    'H1,Fiat,"Panda"x,2012,15000,2026-08-01,2026-09-01,true\n' +
    'H2,Fiat,"Panda" ,2012,15000,2026-08-01,2026-09-01,true\n' +
    'H3,Fiat,Tipo,2016,25000,2026-08-01,2026-09-01,"true"junk\n' +
    'H4,Fiat,Tipo,2016,25000,2026-08-01,2026-09-01,"false"\n'
  const want = [
    null,
    null,
    null,
    expected({
      listing_id: 'H4',
      make: 'Fiat',
      model: 'Tipo',
      year: '2016',
      price: '25000',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'false',
    }),
  ]
  t.strictSame((await read(csv)).rows, want)
  t.strictSame((await read(csv, bytewise)).rows, want, 'one byte per chunk')
})

t.test('a quoted field never closed at the end of input is a BuildError', async (t) => {
  const csv =
    'listing_id,make,model,year,price,first_seen,last_seen,active\nI1,Fiat,Panda,2012,15000,2026-08-01,2026-09-01,true\nI2,Fiat,"Panda,2012,15000,2026-08-01,2026-09-01,true\n'
  for (const [name, chunker] of [
    ['whole', whole],
    ['bytewise', bytewise],
  ] as const) {
    const error = await readError(csv, chunker)
    t.ok(error instanceof BuildError, `BuildError (${name})`)
    t.match(error, { code: 'unclosed_quote' }, name)
  }
})

t.test('a header without a required column is a BuildError naming it', async (t) => {
  const noPrice = await readError(
    'listing_id,make,model,year,first_seen,last_seen,active\nJ1,Fiat,Panda,2012,2026-08-01,2026-09-01,true\n',
  )
  t.ok(noPrice instanceof BuildError)
  t.match(noPrice, { code: 'not_an_export', message: /the CSV header has no column price \(/ })
  const two = await readError('listing_id,make,year,price,first_seen,active,title\n')
  t.ok(two instanceof BuildError)
  t.match(two, {
    code: 'not_an_export',
    message: /has no column model, last_seen \(found: "listing_id", "make", "year"/,
  })
})

t.test('NDJSON: JSON numbers, booleans, strings and null; blank lines ignored; non-objects malformed', async (t) => {
  const lines = [
    '{"listing_id":"N1","make":"Toyota","model":"Yaris","year":2020,"price":48000.5,"currency":"PLN","mileage_km":35000,"fuel_type":"Hybryda","gearbox":"Automatyczna","imported":false,"voivodeship":null,"first_seen":"2026-08-01","last_seen":"2026-09-01T23:30:00Z","active":true,"title":"ignored"}',
    '',
    '   ',
    '{"listing_id":"N2","make":"Toyota","model":"Yaris","year":"2020","price":"48000","mileage_km":"","imported":"tak","first_seen":"2026-08-01","last_seen":"2026-09-01","active":"false"}\r',
    'not json at all',
    '["N3","Toyota","Yaris"]',
    '"a string"',
    '42',
    'null',
    '{"listing_id":"N4","make":"Toyota","model":"Yaris","year":2020,"price":1e3,"imported":1,"active":0}',
    '',
  ]
  const ndjson = lines.join('\n')
  const want = [
    expected({
      listing_id: 'N1',
      make: 'Toyota',
      model: 'Yaris',
      year: '2020',
      price: '48000.5',
      currency: 'PLN',
      mileage_km: '35000',
      fuel_type: 'Hybryda',
      gearbox: 'Automatyczna',
      imported: 'false',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01T23:30:00Z',
      active: 'true',
    }),
    expected({
      listing_id: 'N2',
      make: 'Toyota',
      model: 'Yaris',
      year: '2020',
      price: '48000',
      imported: 'tak',
      first_seen: '2026-08-01',
      last_seen: '2026-09-01',
      active: 'false',
    }),
    null,
    null,
    null,
    null,
    null,
    expected({
      listing_id: 'N4',
      make: 'Toyota',
      model: 'Yaris',
      year: '2020',
      price: '1000',
      imported: '1',
      active: '0',
    }),
  ]
  t.strictSame(await read(ndjson), { format: 'ndjson', rows: want })
  t.strictSame((await read(ndjson, bytewise)).rows, want, 'one byte per chunk')
  t.strictSame((await read('\n\n  ' + ndjson)).rows, want, 'blank lines before the first object')
  t.strictSame((await read(Buffer.concat([BOM, Buffer.from(ndjson)]))).rows, want, 'after a BOM')
  t.strictSame((await read(lines[0]!)).rows, [want[0]], 'a last line without newline')
})

t.test('a full build of a CSV using every quoting feature', async (t) => {
  // Golf 2017: 12 listings, one of them seen twice (the later sighting wins).
  const golfPrices = [38_500, 41_000, 42_250, 44_900, 45_000, 46_100, 47_800, 49_999, 51_000, 53_400, 55_000, 61_700]
  const golf = golfPrices.map((price, i) =>
    row({
      listing_id: `G${i}`,
      make: i % 2 === 0 ? 'Volkswagen' : 'VW',
      model: i % 3 === 0 ? 'Golf' : 'golf',
      price,
      first_seen: '2026-07-01',
      last_seen: '2026-09-0' + ((i % 9) + 1),
      active: i % 2 === 0 ? 'true' : 'false',
    }),
  )
  const superseded = row({ listing_id: 'G0', price: 10_000, first_seen: '2026-06-01', last_seen: '2026-06-30' })
  // Skoda Octavia 2018: 11 listings in łódzkie on hydrogen, make written Škoda.
  const octaviaPrices = [52_000, 53_000, 55_500, 57_000, 58_250, 60_000, 61_000, 63_500, 64_000, 66_600, 70_000]
  const octavia = octaviaPrices.map((price, i) =>
    row({
      listing_id: `O${i}`,
      make: 'Škoda',
      model: 'Octavia',
      year: 2018,
      price,
      fuel_type: 'Wodór',
      voivodeship: 'łódzkie',
      gearbox: 'Automatyczna',
    }),
  )
  const data = [superseded, ...golf, ...octavia]
  // A title column full of quoting, every value quoted, CRLF record ends and a BOM.
  const q = (v: string | number) => `"${String(v).replace(/"/g, '""')}"`
  const header = COLUMNS
  const body = data.map((r, i) =>
    [q(`Sprzedam "${r.make} ${r.model}", stan:\r\nbdb, ${i}\nkontakt`), ...header.map((c) => q(r[c]))].join(','),
  )
  const malformed = [
    `"garbage after quote"x,${header.map((c) => q(golf[0]![c])).join(',')}`,
    `"too few fields",${q('Z1')},${q('Volkswagen')}`,
  ]
  const csv = Buffer.concat([
    BOM,
    Buffer.from(
      [`"Title, with comma",${header.map((h) => q(h.toUpperCase())).join(',')}`, ...body, '', ...malformed, ''].join(
        '\r\n',
      ),
      'utf8',
    ),
  ])
  const { report, snapshot } = await build(t, csv)

  t.equal(report.format, 'csv')
  t.equal(report.rows_read, data.length + 2)
  t.equal(report.rows_rejected, 2)
  t.strictSame(report.rejected_by_reason, { malformed_row: 2 })
  t.equal(report.duplicates_dropped, 1)
  t.equal(report.listings_kept, golf.length + octavia.length)
  t.equal(report.as_of, '2026-09-30')

  const golfAnswer = snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017))
  t.equal(golfAnswer.sample_size, 12)
  t.strictSame(golfAnswer.valuation, reference.quartiles(golfPrices))
  t.strictSame(golfAnswer.matched.makes, ['Volkswagen'])

  const octaviaAnswer = snapshot.valuation({ ...vehicle('Škoda', 'Octavia', 2018), fuel_type: 'Wodór' })
  t.equal(octaviaAnswer.sample_size, 11)
  t.strictSame(octaviaAnswer.valuation, reference.quartiles(octaviaPrices))
  t.strictSame(octaviaAnswer.matched.makes, ['Skoda'])
  const regional = snapshot.regional(vehicle('Skoda', 'Octavia', 2018))
  t.strictSame(
    regional.regions.map((r) => [r.region, r.sample_size, r.avg_price]),
    [['łódzkie', 11, reference.round(reference.mean(octaviaPrices))]],
  )

  // The same rows written plainly (support's toCsv: quotes only where needed, LF) give the same answers.
  await t.test('the same rows written plainly', async (t) => {
    const plain = await build(t, toCsv(data))
    t.equal(plain.report.listings_kept, report.listings_kept)
    t.equal(plain.report.keys_written, report.keys_written)
    t.strictSame(plain.snapshot.valuation(vehicle('Volkswagen', 'Golf', 2017)), golfAnswer)
    t.strictSame(plain.snapshot.regional(vehicle('Skoda', 'Octavia', 2018)), regional)
  })
})
