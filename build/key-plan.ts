import type { NameIndex, Target } from '../format/schema.js'
import { UNKNOWN } from '../format/vocabulary.js'
import type { CanonicalNames } from './name-mapping.js'
import type { ModelListings } from './statistics.js'

/** One model, or several pooled, and the years it has listings in. */
export interface PlannedTarget {
  readonly target: Target
  /** Canonical model indexes whose listings it holds. */
  readonly models: readonly number[]
  /** For each of `models`, the body type its listings are narrowed to, or UNKNOWN for all of them. */
  readonly bodies: readonly number[]
  readonly years: readonly number[]
}

/**
 * Every key the snapshot will hold: each canonical model in each of its years, each
 * family of two or more models with listings (the table's and the pools' of contract
 * 3.1), and each body variant that pools its base's listings of its body type. A family
 * of one model answers with that model's key (the runtime knows), so it gets none of its own.
 */
export function planKeys(names: CanonicalNames, modelYears: ReadonlyMap<number, ModelListings>, index: NameIndex) {
  const targets: PlannedTarget[] = names.models.map((m, i) => ({
    target: { kind: 'model', make: names.makes[m.make]!, name: m.name },
    models: [i],
    bodies: [UNKNOWN],
    years: modelYears.get(i)!.years,
  }))
  const modelNumber = new Map(names.models.map((m, i) => [`${names.makes[m.make]}\u0000${m.name}`, i]))
  const number = (make: string, model: string) => modelNumber.get(`${make}\u0000${model}`)!
  let families = 0
  let variants = 0
  for (const make of index.makes) {
    for (const family of make.families) {
      if (family.models.length < 2) continue
      families++
      targets.push({
        target: { kind: 'family', make: make.name, name: family.name },
        models: family.models.map((m) => number(make.name, m)),
        bodies: family.models.map(() => UNKNOWN),
        years: family.years,
      })
    }
    for (const pool of make.pools) {
      for (const variant of pool.variants) {
        if (!variant.pooled) continue
        variants++
        targets.push({
          target: { kind: 'variant', make: make.name, name: variant.name },
          models: variant.models.map((m) => number(make.name, m)),
          // The variant's own listings whatever their body; the base's of the variant's body type.
          bodies: variant.models.map((m) => (m === variant.name ? UNKNOWN : variant.body)),
          years: variant.years,
        })
      }
    }
  }
  return { targets, families, variants, keys: targets.reduce((n, t) => n + t.years.length, 0) }
}
