import t from 'tap'
import { medianInterval } from '../format/median-interval.js'
import { adjustedMedian, fitMileage } from '../format/mileage-fit.js'
import { reference } from './support.js'

/** k and B(k - 1) of the contract's definition, in exact integer arithmetic: B(j) = sum C(n, i) / 2^n. */
function exactInterval(n: number): { k: number; tail: number } {
  const total = 1n << BigInt(n)
  // 0.025 = 1/40: B(j) <= 0.025 exactly when 40 * sum <= 2^n.
  let sum = 0n
  let binomial = 1n
  let k = 1
  let tail = 0
  for (let j = 0; j < n; j++) {
    sum += binomial
    if (40n * sum > total) break
    k = j + 1
    tail = Number((sum * 10n ** 18n) / total) / 1e18
    binomial = (binomial * BigInt(n - j)) / BigInt(j + 1)
  }
  return { k, tail }
}

t.test('the ranks of the median interval are those of exact binomial sums', async (t) => {
  t.same(medianInterval(10), { k: 2, levelPct: 100 * (1 - 2 * (11 / 1024)) }, 'n = 10: [x(2), x(9)], 97.9 %')
  let checked = 0
  for (let n = 6; n <= 1500; n++) {
    const exact = exactInterval(n)
    const { k, levelPct } = medianInterval(n)
    if (k !== exact.k) t.fail(`n = ${n}: k ${k}, exactly ${exact.k}`)
    else if (Math.abs(levelPct - 100 * (1 - 2 * exact.tail)) > 1e-9) t.fail(`n = ${n}: level ${levelPct}`)
    else checked++
  }
  t.equal(checked, 1495, 'every n from 6 to 1,500')
  // Far beyond: the normal approximation puts k - 1 about 1.96 sqrt(n) / 2 below n / 2.
  const n = 1_000_000
  const { k, levelPct } = medianInterval(n)
  t.ok(Math.abs(k - (n / 2 - 0.98 * Math.sqrt(n))) < 3, `n = 1,000,000: k = ${k}`)
  t.ok(levelPct >= 95 && levelPct < 95.1, `coverage ${levelPct}`)
})

t.test('a mileage fit: the slope of ln(price) on mileage and the median of the moved prices', async (t) => {
  let seed = 11
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  for (const size of [10, 11, 40, 41, 300]) {
    const mileage = Array.from({ length: size }, () => 20_000 + Math.round(next() * 200_000))
    // Ties on purpose: equal prices and equal mileages.
    const price = mileage.map((m, i) =>
      i % 5 === 0 ? 40_000 : Math.round(80_000 * Math.exp(-m / 400_000) + next() * 5_000),
    )
    const logs = price.map(Math.log)
    const fit = fitMileage(price, logs, mileage, 0, size, new Float64Array(2 * size))!
    const x = reference.mean(mileage)
    const y = reference.mean(logs)
    const slope =
      mileage.reduce((s, m, i) => s + (m - x) * (logs[i]! - y), 0) / mileage.reduce((s, m) => s + (m - x) ** 2, 0)
    t.ok(Math.abs(fit.slope - slope) < 1e-15, `${size} listings: slope ${fit.slope}, ${slope}`)
    for (const target of [10_000, 120_000, 400_000]) {
      const moved = price.map((p, i) => p * Math.exp(slope * (target - mileage[i]!)))
      const expected = reference.percentile(moved, 0.5)
      t.ok(
        Math.abs(adjustedMedian(fit, target) - expected) < 1e-6,
        `${size} listings at ${target} km: ${adjustedMedian(fit, target)}, ${expected}`,
      )
    }
  }
  const same = Array.from({ length: 12 }, () => 100_000)
  const prices = same.map((_, i) => 30_000 + i)
  t.equal(fitMileage(prices, prices.map(Math.log), same, 0, 12, new Float64Array(24)), null, 'all mileages equal')
  const unknown = [...same.slice(0, 9).map((m, i) => m + i), -1, -1, -1]
  t.equal(fitMileage(prices, prices.map(Math.log), unknown, 0, 12, new Float64Array(24)), null, 'nine known mileages')
  // Unknown mileages inside the range and listings outside it are left out.
  const known = Array.from({ length: 14 }, (_, i) => 50_000 + 7_000 * i)
  const knownPrices = known.map((m, i) => 60_000 - m / 10 + (i % 3) * 900)
  const padded = [5, 6, ...known.flatMap((m, i) => (i % 4 === 0 ? [m, -1] : [m])), 7]
  const paddedPrices = [1, 2, ...knownPrices.flatMap((p, i) => (i % 4 === 0 ? [p, 99_999] : [p])), 3]
  const alone = fitMileage(knownPrices, knownPrices.map(Math.log), known, 0, 14, new Float64Array(28))
  const amid = fitMileage(paddedPrices, paddedPrices.map(Math.log), padded, 2, padded.length - 1, new Float64Array(60))
  t.same(amid, alone, 'the same fit with unknown mileages among them and other listings around')
})
