import type { MakeSpec } from './catalogue.js'
import { ModelDraw, ageWeight } from './market-model.js'
import type { Random } from './random.js'

/** Listings of one model, production year and condition. */
export interface PlanEntry {
  readonly draw: ModelDraw
  readonly year: number
  readonly isNew: boolean
}

/** Share of new cars among a marketplace's listings (12-14% on Otomoto: ../shared/realdata/README.md). */
const NEW_SHARE = 0.125
/** New cars of the as-of year against those of the year before, still in dealers' stock. */
const NEW_THIS_YEAR = 0.65

/**
 * How many listings each model-year gets, for `total` listings in all. Used cars: a
 * model's share of the market (its `listings` against catalogue.ts's total, about 1.4
 * million) spread over its production years by age, with a per-year wobble as real counts
 * have, or the published count for the years the market reference gives; the long tail's
 * models likewise, at their own few listings. New cars: NEW_SHARE of the total, shared by
 * the models still sold in proportion to their listings of the last three years. Rounded
 * by largest remainder so the total is exactly `total`, then shuffled into file order.
 */
export function plan(
  random: Random,
  total: number,
  asOfYear: number,
  catalogue: readonly MakeSpec[],
  tail: readonly MakeSpec[],
): { entries: PlanEntry[]; slots: Uint32Array } {
  const market = catalogue.reduce((s, make) => s + make.models.reduce((m, model) => m + model.listings, 0), 0)
  const scale = total / market
  const entries: PlanEntry[] = []
  const wanted: number[] = []
  const spread: number[] = []
  const recent = new Map<ModelDraw, number>()
  for (const [makes, described] of [
    [catalogue, true],
    [tail, false],
  ] as const) {
    for (const make of makes) {
      for (const model of make.models) {
        const draw = new ModelDraw(make, model)
        const years: number[] = []
        for (let y = model.years[0]; y <= Math.min(model.years[1], asOfYear); y++) years.push(y)
        // Years with a published count get it; the model's other listings spread by age.
        const reference = model.reference ?? {}
        const fixed = years.reduce((s, y) => s + (reference[y] ?? 0), 0)
        const weights = years.map((y) =>
          y in reference ? 0 : ageWeight(asOfYear - y, make.premium) * Math.exp(0.35 * random.normal()),
        )
        const sum = weights.reduce((s, w) => s + w, 0)
        years.forEach((year, i) => {
          const share = sum === 0 ? 0 : Math.max(0, model.listings - fixed) * (weights[i]! / sum)
          entries.push({ draw, year, isNew: false })
          wanted.push(scale * (reference[year] ?? (described ? 0 : share)))
          spread.push(described ? scale * share : 0)
          if (asOfYear - year <= 2) recent.set(draw, (recent.get(draw) ?? 0) + scale * (reference[year] ?? share))
        })
      }
    }
  }
  const newCars = newCarEntries(recent, asOfYear, Math.round(total * NEW_SHARE))
  for (const { entry, count } of newCars) {
    entries.push(entry)
    wanted.push(count)
    spread.push(0)
  }
  // The described models' spread listings fill what the published counts, the tail and the new cars leave.
  const fill = total - wanted.reduce((s, w) => s + w, 0)
  const spreadTotal = spread.reduce((s, w) => s + w, 0)
  for (let i = 0; i < wanted.length; i++) wanted[i]! += (spread[i]! * fill) / spreadTotal
  return { entries, slots: shuffledSlots(random, wanted, total) }
}

function newCarEntries(
  recent: ReadonlyMap<ModelDraw, number>,
  asOfYear: number,
  total: number,
): { entry: PlanEntry; count: number }[] {
  const sold = [...recent].filter(([draw]) => draw.model.years[1] >= asOfYear - 1)
  const sum = sold.reduce((s, [, n]) => s + n, 0)
  return sold.flatMap(([draw, n]) => {
    const count = (total * n) / sum
    const [first, last] = draw.model.years
    if (last < asOfYear) return [{ entry: { draw, year: asOfYear - 1, isNew: true }, count }]
    if (first >= asOfYear) return [{ entry: { draw, year: asOfYear, isNew: true }, count }]
    return [
      { entry: { draw, year: asOfYear, isNew: true }, count: count * NEW_THIS_YEAR },
      { entry: { draw, year: asOfYear - 1, isNew: true }, count: count * (1 - NEW_THIS_YEAR) },
    ]
  })
}

/** `total` slots holding entry indexes, as many of each as `wanted` says (largest remainder), in random order. */
function shuffledSlots(random: Random, wanted: readonly number[], total: number): Uint32Array {
  const counts = wanted.map(Math.floor)
  let missing = total - counts.reduce((s, c) => s + c, 0)
  const byRemainder = wanted.map((w, i) => ({ i, r: w - Math.floor(w) })).sort((a, b) => b.r - a.r || a.i - b.i)
  for (let k = 0; missing > 0; k = (k + 1) % byRemainder.length, missing--) counts[byRemainder[k]!.i]!++
  const slots = new Uint32Array(total)
  let at = 0
  counts.forEach((count, index) => slots.fill(index, at, (at += count)))
  for (let i = slots.length - 1; i > 0; i--) {
    const j = random.int(i + 1)
    const t = slots[i]!
    slots[i] = slots[j]!
    slots[j] = t
  }
  return slots
}
