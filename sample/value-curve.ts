import type { MakeSpec, ModelSpec } from './catalogue.js'
import { Random } from './random.js'

/**
 * How a model loses value with age, calibrated against the real market
 * (../shared/design/market-reference.md): prices fall 11-17% a year over the first decade,
 * by segment and by model, a little faster up to 16 years, and a little slower after 16
 * years but never flat (old mass-market cars ask a few thousand PLN); premium cars lose
 * the most in their first year. On the default sample the 30 most listed models lose a
 * median 14.8 % a year (10th-90th percentile 13.1-17.5; real 14.8, 12.3-16.4), an Audi A4
 * of 1995-96 asks 4,300-4,400 PLN (real, 2021: 4,200-4,900), and a BMW X6 comes out near
 * 376k (2024), 243k (2021), 168k (2018), 106k (2015), 69k (2012) and 46k (2009) against the
 * reference's 365k, 240k, 139k, 104k, 60k and 50k.
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

  /** Asking price of a used car of `age` years as a share of its price at one year old: the model's rate, 3 % faster from 10 to 16 years, 10 % slower past 16. */
  at(age: number): number {
    // A used car of the current year (a dealer's demonstrator, a car sold on) has lost half of a first year's value.
    if (age < 1) return 1 + ((this.dealer - 1) / 2) * (1 - age)
    const firstDecade = Math.min(age, 10) - 1
    const second = Math.max(0, Math.min(age, 16) - 10)
    const late = Math.max(0, age - 16)
    return Math.max(0.02, Math.exp(-this.rate * (firstDecade + 1.03 * second + 0.9 * late)))
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
  if (make.premium) return 0.145 + 0.03 * electric + 0.012 * own
  const segment = 0.145 + 0.022 * Math.min(1.2, Math.max(-1.2, Math.log2(model.newPrice / 120_000)))
  return Math.min(0.185, Math.max(0.12, segment + 0.04 * electric + 0.025 * own))
}
