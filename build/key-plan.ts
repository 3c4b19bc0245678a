import type { NameIndex, Target } from '../format/schema.js'
import type { CanonicalNames } from './name-mapping.js'
import type { ModelListings } from './statistics.js'

/** One model, or a family pooling several, and the years it has listings in. */
export interface PlannedTarget {
  readonly target: Target
  /** Canonical model indexes whose listings it holds. */
  readonly models: readonly number[]
  readonly years: readonly number[]
}

/**
 * Every key the snapshot will hold: each canonical model in each of its years, and each
 * family of two or more models with listings. A family of one model answers with that
 * model's key (the runtime knows), so it gets none of its own.
 */
export function planKeys(names: CanonicalNames, modelYears: ReadonlyMap<number, ModelListings>, index: NameIndex) {
  const targets: PlannedTarget[] = names.models.map((m, i) => ({
    target: { kind: 'model', make: names.makes[m.make]!, name: m.name },
    models: [i],
    years: modelYears.get(i)!.years,
  }))
  const modelNumber = new Map(names.models.map((m, i) => [`${names.makes[m.make]}\u0000${m.name}`, i]))
  let families = 0
  for (const make of index.makes) {
    for (const family of make.families) {
      if (family.models.length < 2) continue
      families++
      targets.push({
        target: { kind: 'family', make: make.name, name: family.name },
        models: family.models.map((m) => modelNumber.get(`${make.name}\u0000${m}`)!),
        years: family.years,
      })
    }
  }
  return { targets, families, keys: targets.reduce((n, t) => n + t.years.length, 0) }
}
