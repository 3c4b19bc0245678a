import { normalize } from '../format/normalize.js'
import type { FamilyNames, MakeNames, ModelNames, NameIndex } from '../format/schema.js'
import type { AliasMake, AliasTable } from './alias-table.js'
import type { Spellings } from './listing-store.js'
import type { ModelListings } from './statistics.js'

/** Where each spelling of the export went, and the canonical names that came out. */
export interface CanonicalNames {
  /** Canonical make index of each make spelling id (-1 for a spelling with no kept listing). */
  readonly makeOf: Int32Array
  /** Canonical model index of each model spelling id (-1 likewise). */
  readonly modelOf: Int32Array
  readonly makes: readonly string[]
  readonly models: readonly { readonly make: number; readonly name: string }[]
}

/**
 * Maps every spelling of the export onto a canonical name (data contract 3.1), weighing
 * spellings by `counts`, their kept listings: the
 * alias table first (canonical names and aliases, compared after normalize); otherwise
 * spellings equal after normalize are one name, written as its most frequent spelling.
 */
export function mapNames(
  spellings: Spellings,
  counts: { readonly make: Uint32Array; readonly model: Uint32Array },
  table: AliasTable,
): CanonicalNames {
  const tableMakes = new Map<string, AliasMake>()
  for (const make of table.makes) {
    for (const spelling of [make.name, ...make.aliases]) tableMakes.set(normalize(spelling), make)
  }

  const makes = new Canonicalizer()
  const makeOf = new Int32Array(spellings.makeSpellings.length).fill(-1)
  spellings.makeSpellings.forEach((spelling, id) => {
    const count = counts.make[id]!
    if (count === 0) return
    const key = normalize(spelling)
    const known = tableMakes.get(key)
    makeOf[id] = known === undefined ? makes.group(key, spelling, count) : makes.fixed(known.name)
  })
  const makeNames = makes.names()

  const modelTables = new Map<number, Map<string, string>>()
  makeNames.forEach((name, index) => {
    const entry = tableMakes.get(normalize(name))
    if (entry !== undefined) modelTables.set(index, modelLookup(entry))
  })

  const models = new Canonicalizer()
  const modelMake: number[] = []
  const modelOf = new Int32Array(spellings.modelSpellings.length).fill(-1)
  spellings.modelSpellings.forEach((spelling, id) => {
    const count = counts.model[id]!
    if (count === 0) return
    const make = makeOf[spellings.modelSpellingMake[id]!]!
    const key = `${make}\u0000${normalize(spelling)}`
    const known = modelTables.get(make)?.get(normalize(spelling))
    const index =
      known === undefined ? models.group(key, spelling, count) : models.fixed(`${make}\u0000${known}`, known)
    modelOf[id] = index
    modelMake[index] = make
  })
  return {
    makeOf,
    modelOf,
    makes: makeNames,
    models: models.names().map((name, i) => ({ make: modelMake[i]!, name })),
  }
}

/**
 * normalized spelling -> canonical model of one make of the table: its models, their
 * aliases, and a family that stands for a single model (an export may write `C-Class`).
 */
function modelLookup(make: AliasMake): Map<string, string> {
  const lookup = new Map<string, string>()
  for (const family of make.families) {
    if (family.models.length === 1) lookup.set(normalize(family.name), family.models[0]!)
  }
  for (const model of make.models) {
    for (const alias of model.aliases) lookup.set(normalize(alias), model.name)
  }
  for (const model of make.models) lookup.set(normalize(model.name), model.name)
  return lookup
}

/**
 * Assigns canonical indexes: a name fixed by the alias table, or a group of spellings
 * equal after normalize, named after its most frequent spelling (ties: the first in
 * code-point order, so the result does not depend on the file's order).
 */
class Canonicalizer {
  private readonly index = new Map<string, number>()
  private readonly fixedNames: (string | undefined)[] = []
  private readonly counts: Map<string, number>[] = []

  fixed(key: string, name = key): number {
    const index = this.slot(key)
    this.fixedNames[index] = name
    return index
  }

  group(key: string, spelling: string, count: number): number {
    const index = this.slot(key)
    const counts = this.counts[index]!
    counts.set(spelling, (counts.get(spelling) ?? 0) + count)
    return index
  }

  names(): string[] {
    return this.counts.map((counts, i) => {
      const fixed = this.fixedNames[i]
      if (fixed !== undefined) return fixed
      let best = ''
      let bestCount = -1
      for (const [spelling, count] of counts) {
        if (count > bestCount || (count === bestCount && spelling < best)) {
          best = spelling
          bestCount = count
        }
      }
      return best
    })
  }

  private slot(key: string): number {
    let index = this.index.get(key)
    if (index === undefined) {
      index = this.counts.push(new Map()) - 1
      this.index.set(key, index)
    }
    return index
  }
}

/**
 * The name index the runtime resolves requests with: every canonical make and model
 * with listings (and the years they have), the table's aliases of those, and the
 * families whose models have listings.
 */
export function nameIndex(
  names: CanonicalNames,
  listings: ReadonlyMap<number, ModelListings>,
  table: AliasTable,
): NameIndex {
  const tableMakes = new Map(table.makes.map((m) => [normalize(m.name), m]))
  const makes: MakeNames[] = names.makes.map((make, makeIndex) => {
    const entry = tableMakes.get(normalize(make))
    const models = names.models
      .map((m, index) => ({ ...m, index }))
      .filter((m) => m.make === makeIndex)
      .map((m): ModelNames => ({ name: m.name, ...listings.get(m.index)! }))
      .sort((a, b) => a.name.localeCompare(b.name, 'pl'))
    const byName = new Map(models.map((m) => [m.name, m]))
    const modelAliases: [string, string][] = []
    for (const model of entry?.models ?? []) {
      if (!byName.has(model.name)) continue
      for (const alias of model.aliases) modelAliases.push([normalize(alias), model.name])
    }
    const families: FamilyNames[] = []
    for (const family of entry?.families ?? []) {
      const members = family.models.filter((m) => byName.has(m))
      if (members.length === 0) continue
      const familyYears = [...new Set(members.flatMap((m) => byName.get(m)!.years))].sort((a, b) => a - b)
      families.push({ name: family.name, models: members, years: familyYears })
    }
    return {
      name: make,
      aliases: (entry?.aliases ?? []).map(normalize),
      models,
      model_aliases: modelAliases,
      families,
    }
  })
  return { makes: makes.sort((a, b) => a.name.localeCompare(b.name, 'pl')) }
}
