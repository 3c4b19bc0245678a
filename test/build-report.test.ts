import { appendFileSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { MAX_SHRINK_TEXT } from '../build/shrink-guard.js'
import { carmarket, freshDir, row, rows, toCsv, writeExport } from './support.js'

/** What `build` tells the operator: one JSON line per run, its warnings, and why it refuses to publish. */

interface Line {
  ok: boolean
  build_id?: string
  input: string
  finished: string
  error?: { code: string; message: string }
  warnings?: { code: string; rows: number; currencies: Record<string, number>; message: string }[]
}

const GOLFS = toCsv(rows(12, (i) => ({ price: 30_000 + i })))

t.test('--json: one line per run, appended to a JSON Lines log, for a failed run too', async (t) => {
  const input = writeExport(t, 'export.csv', GOLFS)
  const dir = join(input, '..')
  const snapshots = join(dir, 'snapshots')
  const log = join(dir, 'build.jsonl')
  const bad = writeExport(t, 'bad.csv', 'a,b\n1,2\n')
  const runs = [
    await carmarket(['build', '--input', input, '--snapshots', snapshots, '--json']),
    await carmarket(['build', '--input', input, '--snapshots', snapshots, '--json']),
    await carmarket(['build', '--input', bad, '--snapshots', snapshots, '--json']),
    await carmarket(['build', '--input', input, '--snapshots', snapshots, '--keep', '0', '--json']),
  ]
  t.strictSame(
    runs.map((r) => r.code),
    [0, 0, 1, 2],
    'exit codes: a failure is non-zero',
  )
  for (const run of runs) appendFileSync(log, run.stdout)
  const lines = readFileSync(log, 'utf8').split('\n')
  t.equal(lines.pop(), '', 'the log ends with a line feed')
  t.equal(lines.length, 4, 'one line per run')
  const parsed = lines.map((l) => JSON.parse(l) as Line)
  t.strictSame(
    parsed.map((l) => [l.ok, l.error?.code]),
    [
      [true, undefined],
      [true, undefined],
      [false, 'not_an_export'],
      [false, 'invalid_option'],
    ],
  )
  t.not(parsed[0]!.build_id, parsed[1]!.build_id, 'two builds, two reports')
  t.equal(readlinkSync(join(snapshots, 'current')), parsed[1]!.build_id)
  for (const line of parsed) {
    t.equal(line.input, line.error?.code === 'not_an_export' ? bad : input, 'names its input')
    t.ok(!Number.isNaN(Date.parse(line.finished)), `finished ${line.finished}`)
  }
  t.type(parsed[2]!.error?.message, 'string')
  t.equal(runs[2]!.stderr.split('\n').length, 2, 'the failure is also one line on stderr')
})

t.test('rows rejected for a currency with no rate: a warning names them and --fx', async (t) => {
  const data = [
    ...rows(12, (i) => ({ price: 30_000 + i })),
    ...rows(5, () => ({ currency: 'EUR', price: 10_000 })),
    ...rows(2, () => ({ currency: 'usd', price: 10_000 })),
    row({ currency: 'E\u001b[2JUR', price: 10_000 }),
  ]
  const input = writeExport(t, 'export.csv', toCsv(data))
  const snapshots = join(input, '..', 'snapshots')

  const text = await carmarket(['build', '--input', input, '--snapshots', snapshots])
  t.equal(text.code, 0, text.stderr)
  const warning = text.stderr.split('\n').filter((l) => l.startsWith('carmarket: WARNING: '))
  t.equal(warning.length, 1, 'one WARNING line on stderr')
  t.match(warning[0], /\b8 rows\b/, 'how many rows')
  t.match(warning[0], /--fx EUR=RATE --fx USD=RATE/, 'the option that keeps them, for each currency it can convert')
  t.notMatch(text.stdout + text.stderr, /\u001b/, 'the currency as written is shown escaped')
  t.match(text.stdout, /^ {2}WARNING +8 rows/m, 'the text report carries it too')

  const json = await carmarket(['build', '--input', input, '--snapshots', snapshots, '--json'])
  t.equal(json.code, 0, json.stderr)
  const report = JSON.parse(json.stdout) as Line
  t.strictSame(
    report.warnings?.map((w) => [w.code, w.rows, w.currencies]),
    [['currency_without_rate', 8, { EUR: 5, USD: 2, 'E\u001b[2JUR': 1 }]],
  )

  const rates = ['--fx', 'EUR=4.30,USD=4.00']
  const converted = await carmarket(['build', '--input', input, '--snapshots', snapshots, '--json', ...rates])
  const rest = JSON.parse(converted.stdout) as Line
  t.strictSame(
    rest.warnings?.map((w) => [w.rows, w.currencies]),
    [[1, { 'E\u001b[2JUR': 1 }]],
    'with rates given, only the row no rate can convert',
  )
  t.notMatch(rest.warnings?.[0]?.message, /RATE/, 'and no --fx is suggested for it')
})

t.test('the text report counts duplicates dropped, the name --json gives them', async (t) => {
  const twice = [row({ listing_id: 'L-twice' }), row({ listing_id: 'L-twice' })]
  const input = writeExport(t, 'export.csv', toCsv([...rows(12, (i) => ({ price: 30_000 + i })), ...twice]))
  const run = await carmarket(['build', '--input', input, '--snapshots', join(input, '..', 'snapshots')])
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /^ {2}duplicates dropped +1$/m)
  t.notMatch(run.stdout, /merged/)
})

t.test('a build that shrinks the market is refused over the CLI unless --allow-shrink', async (t) => {
  const help = await carmarket(['build', '--help'])
  const options = help.stdout.replace(/\s+/g, ' ')
  t.match(options, `--allow-shrink publish even when listings or keys fall by more than ${MAX_SHRINK_TEXT}`)

  const snapshots = join(freshDir(t), 'snapshots')
  const bigExport = writeExport(t, 'big.csv', toCsv(rows(60, (i) => ({ price: 30_000 + i }))))
  const big = await carmarket(['build', '--input', bigExport, '--snapshots', snapshots, '--json'])
  t.equal(big.code, 0, big.stderr)
  const current = (JSON.parse(big.stdout) as Line).build_id
  const small = writeExport(t, 'small.csv', GOLFS)

  const refused = await carmarket(['build', '--input', small, '--snapshots', snapshots, '--json'])
  t.equal(refused.code, 1)
  t.equal((JSON.parse(refused.stdout) as Line).error?.code, 'market_shrank')
  t.equal(readlinkSync(join(snapshots, 'current')), current, 'current is untouched')

  const allowed = await carmarket(['build', '--input', small, '--snapshots', snapshots, '--json', '--allow-shrink'])
  t.equal(allowed.code, 0, allowed.stderr)
  t.equal(readlinkSync(join(snapshots, 'current')), (JSON.parse(allowed.stdout) as Line).build_id, 'published')
})
