import type { MakeNames, NameIndex } from '../format/schema.js'

/**
 * The catalogue (data contract 5.6): every make and model with listings, rendered once
 * from the name index when a snapshot opens, so that answering is a string look-up.
 * Sorted by listings, most first, then by name in code-point order, which every engine
 * agrees on (a collation would not).
 */
export class Catalog {
  /** `"makes":[…]` */
  readonly makesMembers: string
  /** `"models":[…]` by canonical make. */
  private readonly models = new Map<string, string>()

  constructor(index: NameIndex) {
    const makes = index.makes.map((make) => {
      this.models.set(make.name, `"models":${JSON.stringify(modelsOf(make))}`)
      return { make: make.name, listings: make.models.reduce((sum, m) => sum + m.listings, 0) }
    })
    this.makesMembers = `"makes":${JSON.stringify(makes.sort((a, b) => byListings(a, b, a.make, b.make)))}`
  }

  /** The models member of a canonical make. */
  modelsMembers(make: string): string {
    return this.models.get(make) ?? '"models":[]'
  }
}

function modelsOf(make: MakeNames) {
  return make.models
    .map((model) => ({
      model: model.name,
      listings: model.listings,
      years: model.figure_years,
      families: make.families
        .filter((f) => f.models.includes(model.name))
        .map((f) => f.name)
        .sort(codePointOrder),
    }))
    .sort((a, b) => byListings(a, b, a.model, b.model))
}

function byListings(a: { listings: number }, b: { listings: number }, nameA: string, nameB: string): number {
  return b.listings - a.listings || codePointOrder(nameA, nameB)
}

/** Code-point order: JavaScript's < compares UTF-16 units, which differs for characters beyond U+FFFF. */
export function codePointOrder(a: string, b: string): number {
  const x = [...a]
  const y = [...b]
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!
    if (d !== 0) return d
  }
  return x.length - y.length
}
