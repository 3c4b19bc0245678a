import t from 'tap'
import { StoredAnswer, encodeAnswer, filterSelector, renderAnswer } from '../format/rendered.js'
import { UNKNOWN } from '../format/vocabulary.js'

/** A stored answer from texts, one after the other. */
const encode = (variants: readonly { selector: number; sample_size: number; items: number; text: string }[]) => {
  let at = 0
  const table = variants.map(({ text, ...v }) => {
    const start = at
    at += Buffer.byteLength(text)
    return { ...v, start, end: at }
  })
  return encodeAnswer(variants.map((v) => v.text).join(''), at, table)
}

t.test('variants of different texts, some not ASCII, read back byte for byte', async (t) => {
  const variants = [
    { selector: 7, sample_size: 10, items: 1, text: '"region":"śląskie"' },
    { selector: 9, sample_size: 0, items: 0, text: '' },
    { selector: 11, sample_size: 12, items: 2, text: '"region":"łódzkie","x":1' },
  ]
  const stored = new StoredAnswer()
  t.ok(stored.reset(encode(variants)))
  t.equal(stored.count, 3)
  for (const v of variants) {
    const i = stored.find(v.selector)
    t.equal(stored.text(i), v.text)
    t.equal(stored.sampleSize(i), v.sample_size)
    t.equal(stored.items(i), v.items)
  }
  t.equal(stored.find(8), -1, 'a selector not stored is not found')
})

t.test('a truncated answer is refused', async (t) => {
  const bytes = encode([{ selector: 0, sample_size: 1, items: 1, text: '"a":1' }])
  t.notOk(new StoredAnswer().reset(bytes.subarray(0, 10)))
  t.notOk(new StoredAnswer().reset(Buffer.alloc(2)))
})

t.test('a price history: one variant per number of months, each the latest points', async (t) => {
  const sample_size = Array.from({ length: 24 }, (_, m) => (m % 5 === 0 ? 0 : m))
  const avg_price = sample_size.map((n, m) => (n === 0 ? 0 : 1000 + m))
  const stored = new StoredAnswer()
  t.ok(stored.reset(renderAnswer('price-history', { first_month: '2024-10', avg_price, sample_size })))
  for (const months of [1, 2, 6, 24]) {
    const trend = JSON.parse(`[${stored.text(stored.find(months))}]`) as {
      month: string
      avg_price: number
      sample_size: number
    }[]
    const expected = sample_size
      .map((n, m) => ({ m, n }))
      .slice(24 - months)
      .filter(({ n }) => n > 0)
    t.same(
      trend.map((p) => p.sample_size),
      expected.map((e) => e.n),
      `${months} months`,
    )
    t.equal(
      stored.sampleSize(stored.find(months)),
      expected.reduce((a, e) => a + e.n, 0),
    )
    t.equal(stored.items(stored.find(months)), expected.length)
  }
  t.equal(stored.text(stored.find(4)), stored.text(stored.find(3)), 'a month without listings adds no point')
  t.equal(JSON.parse(`[${stored.text(stored.find(24))}]`)[0].month, '2024-11', 'the first month with listings')
})

t.test('a valuation: the unfiltered figures and each filter, below MIN_LISTINGS without text', async (t) => {
  const confidence = { median_low: 8, median_high: 10, level_pct: 98.4 }
  const fit = { slope: -2e-6, size: 20, lowPrice: 9, lowMileage: 100_000, highPrice: 9, highMileage: 100_000 }
  const all = { average: 10, median: 9, p25: 8, p75: 11, sample_size: 30, confidence, fit }
  const stored = new StoredAnswer()
  t.ok(
    stored.reset(
      renderAnswer('valuation', {
        all,
        filtered: [
          { fuel: 1, gearbox: UNKNOWN, sample_size: 25, figures: { ...all, sample_size: 25, fit: null } },
          { fuel: 1, gearbox: 0, sample_size: 4, figures: null },
        ],
      }),
    ),
  )
  t.same(JSON.parse(`{${stored.text(stored.find(filterSelector(UNKNOWN, UNKNOWN)))}}`), {
    valuation: { average: 10, median: 9, p25: 8, p75: 11 },
    sample_size: 30,
    confidence,
    mileage_effect: { pct_per_10000_km: -2, sample_size: 20 },
  })
  t.same(JSON.parse(`{${stored.text(stored.find(filterSelector(1, UNKNOWN)))}}`).mileage_effect, null)
  t.equal(stored.sampleSize(stored.find(filterSelector(1, UNKNOWN))), 25)
  const thin = stored.find(filterSelector(1, 0))
  t.equal(stored.items(thin), 0)
  t.equal(stored.text(thin), '')
})
