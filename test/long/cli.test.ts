import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import t from 'tap'
import { CURRENT_LINK, MANIFEST_FILE, SCHEMA_VERSION } from '../../format/schema.js'
import { COLUMNS } from '../../format/export-columns.js'
import { SAMPLE_AS_OF } from '../../sample/generate.js'
import { build, carmarket, freshDir, rows, toCsv } from '../support.js'

t.test('--help lists the commands', async (t) => {
  const top = await carmarket(['--help'])
  t.equal(top.code, 0)
  for (const command of ['generate', 'build', 'snapshot', 'sample']) {
    t.match(top.stdout, new RegExp(`^\\s+${command}\\b`, 'm'), `lists ${command}`)
  }
  const snapshot = await carmarket(['snapshot', '--help'])
  t.equal(snapshot.code, 0)
  t.match(snapshot.stdout, /^\s+info\b/m, 'snapshot lists info')
  t.match(snapshot.stdout, /^\s+query\b/m, 'snapshot lists query')
  t.match(snapshot.stdout, /^\s+pull\b/m, 'snapshot lists pull')
})

t.test('generate is deterministic; NDJSON without gzip has the 14 contract columns', async (t) => {
  const dir = t.testdir()
  const args = ['--listings', '2000', '--seed', 's', '--as-of', '2026-09-30', '--json']
  const a = await carmarket(['generate', '--out', join(dir, 'a.csv.gz'), ...args])
  const b = await carmarket(['generate', '--out', join(dir, 'b.csv.gz'), ...args])
  t.equal(a.code, 0, a.stderr)
  t.equal(b.code, 0, b.stderr)
  const summary = JSON.parse(a.stdout) as { listings: number; rows: number; as_of: string }
  t.equal(summary.listings, 2000)
  t.equal(summary.as_of, '2026-09-30')
  t.ok(summary.rows >= 2000, `${summary.rows} rows`)
  const rawA = readFileSync(join(dir, 'a.csv.gz'))
  const rawB = readFileSync(join(dir, 'b.csv.gz'))
  t.strictSame([rawA[0], rawA[1]], [0x1f, 0x8b], 'gzip by default')
  const csvA = gunzipSync(rawA)
  const csvB = gunzipSync(rawB)
  t.ok(csvA.equals(csvB), 'the same options give byte-identical exports')
  const csvLines = csvA
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
  t.ok(csvLines.length >= summary.rows + 1, 'a header and at least one line per row')
  t.strictSame(csvLines[0]!.split(',').slice(0, COLUMNS.length), COLUMNS)

  const nd = await carmarket(['generate', '--out', join(dir, 'out.ndjson'), ...args, '--format', 'ndjson', '--no-gzip'])
  t.equal(nd.code, 0, nd.stderr)
  const text = readFileSync(join(dir, 'out.ndjson'), 'utf8')
  t.equal(text[0], '{', 'plain text, not gzip')
  const lines = text.split('\n').filter((l) => l !== '')
  t.equal(lines.length, summary.rows, 'one line per row')
  let objects = 0
  let complete = 0
  for (const line of lines) {
    const value = JSON.parse(line) as unknown
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) objects++
    if (COLUMNS.every((c) => Object.hasOwn(value as object, c))) complete++
  }
  t.equal(objects, lines.length, 'every line is a JSON object')
  t.equal(complete, lines.length, `every object has the ${COLUMNS.length} contract columns`)
  const ids = new Set(lines.map((l) => (JSON.parse(l) as { listing_id: string }).listing_id))
  t.equal(ids.size, summary.listings, 'as many distinct listing ids as listings')
})

t.test('generate without --as-of writes the sample as of its fixed day, whatever the date', async (t) => {
  const run = await carmarket(['generate', '--out', join(t.testdir(), 'sample.csv.gz'), '--listings', '500', '--json'])
  t.equal(run.code, 0, run.stderr)
  t.equal((JSON.parse(run.stdout) as { as_of: string }).as_of, SAMPLE_AS_OF)
})

t.test('build, snapshot info and snapshot query', async (t) => {
  const dir = t.testdir()
  const input = join(dir, 'export.csv.gz')
  const snapshots = join(dir, 'snapshots')
  const generated = await carmarket([
    'generate',
    '--out',
    input,
    '--listings',
    '20000',
    '--seed',
    'cli',
    '--as-of',
    '2026-09-30',
    '--json',
  ])
  t.equal(generated.code, 0, generated.stderr)
  const summary = JSON.parse(generated.stdout) as {
    rows: number
    invalid_rows: number
    foreign_rows: { EUR: number; USD: number }
    duplicate_rows: number
  }

  const built = await carmarket(
    ['build', '--input', input, '--snapshots', snapshots, '--json', '--fx', 'EUR=4.30'],
    dir,
  )
  t.equal(built.code, 0, built.stderr)
  t.notMatch(built.stderr, /\r/, 'no progress bar when stderr is no terminal')
  t.match(built.stderr, /^carmarket: WARNING: .*\bUSD\b/m, 'the USD rows, with no rate given, are told of')
  t.equal(built.stdout.split('\n').length, 2, 'one line of JSON')
  const report = JSON.parse(built.stdout) as {
    build_id: string
    as_of: string
    format: string
    rows_read: number
    rows_rejected: number
    rejected_by_reason: Record<string, number>
    duplicates_dropped: number
    listings_kept: number
    new_listings: number
    values_ignored: Record<string, number>
    keys_written: number
    currency_conversions: Record<string, number>
  }

  await t.test('the build report', async (t) => {
    t.equal(report.rows_read, summary.rows, 'rows_read is the generated row count')
    t.equal(report.format, 'csv')
    t.equal(report.as_of, '2026-09-30')
    const reasons = Object.keys(report.rejected_by_reason)
    for (const reason of [
      'invalid_price',
      'invalid_fuel_type',
      'unspecified_model',
      'unsupported_currency',
      'invalid_gearbox',
      'last_seen_before_first_seen',
    ]) {
      t.ok((report.rejected_by_reason[reason] ?? 0) > 0, `rejected_by_reason has ${reason}`)
    }
    t.ok(reasons.length >= 8, `${reasons.length} reasons: ${reasons.join(', ')}`)
    t.equal(
      Object.values(report.rejected_by_reason).reduce((s, n) => s + n, 0),
      report.rows_rejected,
      'the reasons add up to rows_rejected',
    )
    t.equal(
      report.rows_rejected + report.duplicates_dropped + report.listings_kept + report.new_listings,
      report.rows_read,
      'every row read is rejected, a duplicate, a new car or a used one kept',
    )
    t.ok(report.new_listings > 2000, `${report.new_listings} new cars set apart`)
    t.ok(report.listings_kept > 17_000, `${report.listings_kept} used listings kept`)
    t.ok((report.values_ignored['voivodeship'] ?? 0) > 0, 'foreign regions kept, their values ignored')
    t.ok((report.currency_conversions['EUR'] ?? 0) >= summary.foreign_rows.EUR, 'the EUR rows are converted with --fx')
    t.ok(report.keys_written > 1000, `${report.keys_written} keys written`)
  })

  await t.test('snapshot info', async (t) => {
    const info = await carmarket(['snapshot', 'info', '--snapshots', snapshots, '--json'])
    t.equal(info.code, 0, info.stderr)
    const manifest = JSON.parse(info.stdout) as {
      schema_version: number
      as_of: string
      build_id: string
      source: string
      counts: Record<string, number>
    }
    t.equal(manifest.schema_version, SCHEMA_VERSION)
    t.equal(manifest.as_of, '2026-09-30')
    t.equal(manifest.build_id, report.build_id)
    t.equal(manifest.source, input)
    t.match(manifest.counts, {
      rows_read: report.rows_read,
      rows_rejected: report.rows_rejected,
      duplicates_dropped: report.duplicates_dropped,
      listings_kept: report.listings_kept,
      keys_written: report.keys_written,
    })
    const human = await carmarket(['snapshot', 'info', '--snapshots', snapshots])
    t.equal(human.code, 0)
    t.match(human.stdout, new RegExp(`^snapshot ${report.build_id} `))
    t.match(human.stdout, /as of\s+2026-09-30/)
  })

  await t.test('snapshot query', async (t) => {
    const ok = await carmarket([
      'snapshot',
      'query',
      'valuation',
      '--snapshots',
      snapshots,
      '--make',
      'VW',
      '--model',
      'Golf',
      '--year',
      '2017',
    ])
    t.equal(ok.code, 0, ok.stderr)
    const answer = JSON.parse(ok.stdout) as {
      status: string
      data: {
        make: string
        model: string
        year: number
        matched: { makes: string[]; models: string[]; match_type: string }
        valuation: Record<string, number>
        sample_size: number
        currency: string
      }
    }
    t.equal(answer.status, 'success')
    t.equal(answer.data.make, 'VW', 'the request is echoed')
    t.equal(answer.data.year, 2017)
    t.strictSame(answer.data.matched.makes, ['Volkswagen'])
    t.equal(answer.data.matched.match_type, 'alias')
    t.equal(answer.data.currency, 'PLN')
    t.ok(answer.data.sample_size >= 10, `${answer.data.sample_size} listings`)
    const v = answer.data.valuation
    t.ok(
      v['p25']! > 0 && v['p25']! <= v['median']! && v['median']! <= v['p75']!,
      `p25 ${v['p25']} <= median ${v['median']} <= p75 ${v['p75']}`,
    )
    t.strictSame(Object.keys(v).sort(), ['average', 'median', 'p25', 'p75'])

    const unknown = await carmarket([
      'snapshot',
      'query',
      'valuation',
      '--snapshots',
      snapshots,
      '--make',
      'Zzyzxmobile',
      '--model',
      'Golf',
      '--year',
      '2017',
    ])
    t.equal(unknown.code, 1)
    const notFound = JSON.parse(unknown.stdout) as { status: string; error: { code: string; message: string } }
    t.equal(notFound.status, 'error')
    t.equal(notFound.error.code, 'INSUFFICIENT_DATA')
    t.type(notFound.error.message, 'string')

    const badYear = await carmarket([
      'snapshot',
      'query',
      'valuation',
      '--snapshots',
      snapshots,
      '--make',
      'VW',
      '--model',
      'Golf',
      '--year',
      'abc',
    ])
    t.equal(badYear.code, 1)
    const invalid = JSON.parse(badYear.stdout) as { status: string; error: { code: string; parameter: string } }
    t.equal(invalid.status, 'error')
    t.equal(invalid.error.code, 'INVALID_PARAMETER')
    t.equal(invalid.error.parameter, 'year')

    const bogus = await carmarket([
      'snapshot',
      'query',
      'bogus',
      '--snapshots',
      snapshots,
      '--make',
      'VW',
      '--model',
      'Golf',
      '--year',
      '2017',
    ])
    t.equal(bogus.code, 2, 'a usage error')
    t.equal(bogus.stdout, '')
    t.match(
      bogus.stderr,
      /^carmarket: unknown operation "bogus"; one of valuation, price-history, liquidity, valuation-factors, regional, depreciation, makes, models\n$/,
    )

    const history = await carmarket([
      'snapshot',
      'query',
      'price-history',
      '--snapshots',
      snapshots,
      '--make',
      'Volkswagen',
      '--model',
      'Golf',
      '--year',
      '2017',
      '--months',
      '12',
    ])
    t.equal(history.code, 0, history.stderr)
    const trend = (
      JSON.parse(history.stdout) as {
        data: { months_requested: number; trend: { month: string; avg_price: number; sample_size: number }[] }
      }
    ).data
    t.equal(trend.months_requested, 12)
    t.ok(trend.trend.length > 0 && trend.trend.length <= 12, `${trend.trend.length} months`)
    t.ok(
      trend.trend.every((p) => p.month >= '2025-10' && p.month <= '2026-09' && p.sample_size > 0),
      'months within the window',
    )
  })

  await t.test('snapshot query: the figures of data contract 5 and the catalogue', async (t) => {
    const query = (...args: string[]) => carmarket(['snapshot', 'query', ...args, '--snapshots', snapshots])
    const golf = ['--make', 'VW', '--model', 'Golf']

    const priced = await query('valuation', ...golf, '--year', '2017', '--mileage', '150000', '--asking-price', '40000')
    t.equal(priced.code, 0, priced.stderr)
    const valuation = (JSON.parse(priced.stdout) as { data: Record<string, any> }).data
    t.same(
      Object.keys(valuation),
      [
        ...['make', 'model', 'year', 'matched', 'currency', 'filters', 'valuation', 'sample_size'],
        ...['confidence', 'mileage_effect', 'adjusted', 'asking_price'],
      ],
      'the new members, after the spec fields',
    )
    t.match(valuation, {
      confidence: { median_low: Number, median_high: Number, level_pct: Number },
      mileage_effect: { pct_per_10000_km: Number, sample_size: Number },
      adjusted: { mileage: 150_000, median: Number, sample_size: Number },
      asking_price: { price: 40_000, percentile: Number },
    })
    t.ok(valuation.confidence.median_low <= valuation.valuation.median, 'the interval holds the median')
    t.ok(valuation.valuation.median <= valuation.confidence.median_high)
    t.ok(valuation.confidence.level_pct >= 95, `level ${valuation.confidence.level_pct}`)
    t.ok(['below_market', 'fair', 'above_market'].includes(valuation.asking_price.verdict))

    const plain = await query('valuation', ...golf, '--year', '2017')
    t.match(JSON.parse(plain.stdout).data, { adjusted: null, asking_price: null }, 'null members without the options')

    const badPrice = await query('valuation', ...golf, '--year', '2017', '--asking-price', '0')
    t.equal(badPrice.code, 1)
    t.match(JSON.parse(badPrice.stdout), {
      status: 'error',
      error: { code: 'INVALID_PARAMETER', parameter: 'asking_price' },
    })

    const curve = await query('depreciation', ...golf)
    t.equal(curve.code, 0, curve.stderr)
    const depreciation = (JSON.parse(curve.stdout) as { data: Record<string, any> }).data
    t.same(Object.keys(depreciation), ['make', 'model', 'matched', 'currency', 'curve', 'annual_change_pct'])
    const years = depreciation.curve.map((p: { year: number }) => p.year)
    t.ok(years.length >= 3, `${years.length} production years`)
    t.same(
      years,
      [...years].sort((a, b) => a - b),
      'oldest first',
    )
    t.ok(
      depreciation.curve.every((p: { median: number; sample_size: number }) => p.median > 0 && p.sample_size >= 10),
      'each year has at least 10 listings',
    )
    t.type(depreciation.annual_change_pct, 'number')
    t.ok(depreciation.annual_change_pct > 0, 'newer years are dearer')
    const diesel = await query('depreciation', ...golf, '--fuel-type', 'diesel')
    t.equal(diesel.code, 0, diesel.stderr)
    const thin = await query('depreciation', '--make', 'VW', '--model', 'Golf', '--fuel-type', 'hydrogen')
    t.equal(thin.code, 1)
    t.equal(JSON.parse(thin.stdout).error.code, 'INSUFFICIENT_DATA')
    const unnamed = await query('depreciation', '--make', 'VW')
    t.equal(unnamed.code, 1)
    t.match(JSON.parse(unnamed.stdout).error, { code: 'INVALID_PARAMETER', parameter: 'model' })

    const makes = await query('makes')
    t.equal(makes.code, 0, makes.stderr)
    const listed = (JSON.parse(makes.stdout) as { data: { makes: { make: string; listings: number }[] } }).data.makes
    t.ok(listed.length > 10, `${listed.length} makes`)
    t.ok(
      listed.every((m, i) => i === 0 || m.listings <= listed[i - 1]!.listings),
      'the most listed first',
    )
    t.equal(
      listed.reduce((sum, m) => sum + m.listings, 0),
      report.listings_kept,
      'every listing kept is of one make',
    )

    const models = await query('models', '--make', 'VW')
    t.equal(models.code, 0, models.stderr)
    const catalog = (JSON.parse(models.stdout) as { data: Record<string, any> }).data
    t.same(Object.keys(catalog), ['make', 'matched', 'models'])
    t.same([catalog.make, catalog.matched], ['VW', { makes: ['Volkswagen'], match_type: 'alias' }])
    t.equal(
      catalog.models.reduce((sum: number, m: { listings: number }) => sum + m.listings, 0),
      listed.find((m) => m.make === 'Volkswagen')?.listings,
      "the make's listings, model by model",
    )
    const golfEntry = catalog.models.find((m: { model: string }) => m.model === 'Golf')
    t.same(golfEntry.years, years, "the years of a model's curve are those the catalogue lists")
    t.ok(golfEntry.families.includes('Golf Family'), 'with the families that resolve to it')

    const noMake = await query('models')
    t.equal(noMake.code, 1)
    t.match(JSON.parse(noMake.stdout).error, { code: 'INVALID_PARAMETER', parameter: 'make' })

    // An option the question does not take is a wrong call, as an unknown parameter is over HTTP.
    for (const [operation, ...options] of [
      ['depreciation', ...golf, '--year', '2017'],
      ['makes', '--make', 'VW'],
      ['models', '--make', 'VW', '--model', 'Golf'],
      ['liquidity', ...golf, '--year', '2017', '--mileage', '100000'],
    ] as const) {
      const refused = await query(operation, ...options)
      t.equal(refused.code, 2, `${operation} ${options.join(' ')}`)
      t.equal(refused.stdout, '')
    }
    const unknownMake = await query('models', '--make', 'Volk')
    t.equal(unknownMake.code, 1)
    t.match(JSON.parse(unknownMake.stdout).error, { code: 'INSUFFICIENT_DATA', suggestions: ['Volkswagen'] })
  })
})

t.test('build with a missing input: one line on stderr, exit 1, no stack', async (t) => {
  const dir = t.testdir()
  const missing = join(dir, 'nowhere.csv')
  const run = await carmarket(['build', '--input', missing, '--snapshots', join(dir, 'snapshots')], dir)
  t.equal(run.code, 1)
  t.equal(run.stdout, '')
  t.equal(run.stderr, `carmarket: cannot read the export ${missing}: ENOENT\n`)
  t.notMatch(run.stderr, /\n\s+at /, 'no stack trace')
})

t.test('snapshot info where there is no snapshot names the folder it looked in, absolute', async (t) => {
  const dir = realpathSync(freshDir(t))
  const run = await carmarket(['snapshot', 'info'], dir)
  t.equal(run.code, 1)
  t.equal(run.stderr.split('\n').length, 2, 'one line')
  t.ok(run.stderr.includes(` ${join(dir, 'snapshots')} `), run.stderr)
})

t.test(
  'sample: builds the embedded sample when the current snapshot cannot be served, and leaves a servable one alone',
  async (t) => {
    const { snapshots, snapshot } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    // A snapshot of a format this version refuses: its manifest.json lists no digests.
    const manifestPath = join(snapshot.dir, MANIFEST_FILE)
    const { files: _files, ...withoutDigests } = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<
      string,
      unknown
    >
    chmodSync(manifestPath, 0o644)
    writeFileSync(manifestPath, JSON.stringify(withoutDigests))
    const exportPath = join(freshDir(t), 'sample.csv.gz')
    // Generating and building 1.4 million listings takes a minute or more on a busy machine.
    const rebuilt = await carmarket(['sample', '--snapshots', snapshots, '--export', exportPath], undefined, {
      timeout: 240_000,
    })
    t.equal(rebuilt.code, 0, rebuilt.stderr)
    t.match(rebuilt.stderr, /cannot be served/, 'it says why it builds')
    const current = realpathSync(join(snapshots, CURRENT_LINK))
    t.not(current, snapshot.dir, 'a new snapshot is current')
    t.ok(existsSync(exportPath), 'from the generated sample export')

    const again = await carmarket(['sample', '--snapshots', snapshots, '--export', exportPath])
    t.equal(again.code, 0, again.stderr)
    t.equal(again.stderr, '', 'a servable snapshot is left alone')
    t.equal(realpathSync(join(snapshots, CURRENT_LINK)), current)
  },
)
