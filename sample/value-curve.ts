import type { MakeSpec, ModelSpec } from './catalogue.js'
import { Random } from './random.js'

/**
 * How a model loses value with age, calibrated against the reference figures of the Polish
 * market (../shared/design/market-reference.md): prices fall 11-17% a year over the first
 * decade, by segment and by model, and flatten after; premium cars lose the most in their
 * first year. For the reference models the default sample's medians come out near 371k
 * (2024), 247k (2021), 159k (2018), 107k (2015), 74k (2012) and 54k (2009) for a BMW X6
 * against the reference's 365k, 240k, 139k, 104k, 60k, 50k; near 246k (2024), 176k (2022),
 * 131k (2020), 99k (2018), 71k (2016) and 57k (2014) for an X4 against 235k, 180k, 140k,
 * 110k, 80k, 68k; the X2 within 5% in 2025 and 2018 but 26-46% over in 2020-2023 (its
 * reference falls by half from 2025 to 2023, a new generation's price that one curve
 * cannot follow); the X1 and the Seria 5 within 6%.
 */
export class ValueCurve {
  /** Log-rate of the yearly loss over ages 1 to 10 (0.12 is a loss of 11% a year). */
  readonly rate: number
  /** A new car's dealer price over a one-year-old's asking price (ModelSpec.newPrice). */
  readonly dealer: number

  constructor(make: MakeSpec, model: ModelSpec) {
    this.rate = firstDecadeRate(make, model)
    this.dealer = make.premium ? 1.25 : 1.15
  }

  /** Asking price of a used car of `age` years as a share of its price at one year old. */
  at(age: number): number {
    // A used car of the current year (a dealer's demonstrator, a car sold on) has lost half of a first year's value.
    if (age < 1) return 1 + ((this.dealer - 1) / 2) * (1 - age)
    const firstDecade = Math.min(age, 10) - 1
    const second = Math.max(0, Math.min(age, 16) - 10)
    const late = Math.max(0, age - 16)
    return Math.max(0.03, Math.exp(-this.rate * firstDecade - 0.12 * second - 0.05 * late))
  }
}

/**
 * A model's first-decade rate: mass-market models by segment, larger and dearer ones
 * losing faster (from 0.12 for a car of 55,000 PLN at one year old to 0.17 for one of
 * 275,000), electric ones faster still, within 0.12-0.185 (11-17% a year); premium ones
 * about the reference BMWs' 0.145. Each model then deviates by a deterministic amount of
 * its own, drawn from its name, as real models of one segment differ.
 */
function firstDecadeRate(make: MakeSpec, model: ModelSpec): number {
  const fuels = Object.values(model.fuels).reduce((s, w) => s + w, 0)
  const electric = (model.fuels.Elektryczny ?? 0) / fuels
  const own = new Random(`${make.name}\u0000${model.name}`).next() * 2 - 1
  if (make.premium) return 0.145 + 0.03 * electric + 0.005 * own
  const segment = 0.145 + 0.022 * Math.min(1.2, Math.max(-1.2, Math.log2(model.newPrice / 120_000)))
  return Math.min(0.185, Math.max(0.12, segment + 0.04 * electric + 0.015 * own))
}
