import { DetailWords } from '../format/detail-words.js'
import { NameLookup, splits } from '../format/name-matcher.js'
import { normalize } from '../format/normalize.js'
import type {
  DetailWordIndex,
  FamilyNames,
  MakeNames,
  ModelNames,
  NameIndex,
  PoolNames,
  UnlistedMake,
  VariantNames,
} from '../format/schema.js'
import { BODY_TYPES, FUEL_TYPES, GEARBOXES, UNKNOWN } from '../format/vocabulary.js'
import type { AliasMake, AliasTable, DetailWords as TableWords } from './alias-table.js'
import type { Spellings } from './listing-store.js'
import { modelPools } from './model-pools.js'
import type { ModelListings } from './statistics.js'

/** Where each spelling of the export went, and the canonical names that came out. */
export interface CanonicalNames {
  /** Canonical make index of each make spelling id (-1 for a spelling with no kept listing). */
  readonly makeOf: Int32Array
  /** Canonical model index of each model spelling id (-1 likewise). */
  readonly modelOf: Int32Array
  readonly makes: readonly string[]
  /** `curated`: a name of the alias table, rather than one made from the export's spellings. */
  readonly models: readonly { readonly make: number; readonly name: string; readonly curated: boolean }[]
}

/**
 * Maps every spelling of the export onto a canonical name (data contract 3.1), weighing
 * spellings by `counts`, their kept listings. The alias table first, as a request's names
 * are resolved (contract 4, steps 1-3: a canonical name, the same name written otherwise,
 * an alias, display names and slugs included); a spelling the table does not know joins
 * the others written the same but for case, spacing and word order, and their canonical
 * name is the most frequent of them (canonicalName).
 */
export function mapNames(
  spellings: Spellings,
  counts: { readonly make: Uint32Array; readonly model: Uint32Array },
  table: AliasTable,
): CanonicalNames {
  const tableMakes = makeLookup(table)
  const makes = new Canonicalizer()
  const makeGroup = new Int32Array(spellings.makeSpellings.length).fill(-1)
  const tableMakeOf = new Map<number, AliasMake>()
  spellings.makeSpellings.forEach((spelling, id) => {
    const count = counts.make[id]!
    if (count === 0) return
    const known = tableMakes.find(spelling)?.value
    makeGroup[id] = known === undefined ? makes.group('', spelling, count) : makes.fixed('', known.name)
    if (known !== undefined) tableMakeOf.set(makeGroup[id]!, known)
  })
  const makeNames = makes.finish()
  const makeOf = makeGroup.map((g) => (g < 0 ? -1 : makeNames.indexOf(g)))

  const modelTables = new Map<number, NameLookup<string>>()
  for (const [group, entry] of tableMakeOf) modelTables.set(makeNames.indexOf(group), modelLookup(entry))

  const models = new Canonicalizer()
  const modelGroup = new Int32Array(spellings.modelSpellings.length).fill(-1)
  const groupMake = new Map<number, number>()
  spellings.modelSpellings.forEach((spelling, id) => {
    const count = counts.model[id]!
    if (count === 0) return
    const make = makeOf[spellings.modelSpellingMake[id]!]!
    const known = tableModel(modelTables.get(make), spelling)
    const group = known === undefined ? models.group(String(make), spelling, count) : models.fixed(String(make), known)
    modelGroup[id] = group
    groupMake.set(group, make)
  })
  const modelNames = models.finish()
  const modelMake: number[] = []
  for (const [group, make] of groupMake) modelMake[modelNames.indexOf(group)] = make
  return {
    makeOf,
    modelOf: modelGroup.map((g) => (g < 0 ? -1 : modelNames.indexOf(g))),
    makes: makeNames.names,
    models: modelNames.names.map((name, i) => ({ make: modelMake[i]!, name, curated: modelNames.fixed(i) })),
  }
}

/**
 * The table's model an export's model spelling names: as a whole (steps 1-3), else by the
 * longest model name it starts with (contract 4.1): `Golf GTI`, `Octavia RS`, `A4 2.0 TDI`
 * are a Golf, an Octavia, an A4. The words after it choose no more than the model: a
 * listing's version is its version column's, which a marketplace fills from its catalogue.
 */
function tableModel(lookup: NameLookup<string> | undefined, spelling: string): string | undefined {
  if (lookup === undefined) return undefined
  for (const { head } of splits(spelling)) {
    const found = lookup.find(head)
    if (found !== undefined) return found.value
  }
  return undefined
}

/** The table's makes by their names and aliases, as an export's make spellings are resolved. */
export function makeLookup(table: AliasTable): NameLookup<AliasMake> {
  const known = makeLookups.get(table)
  if (known !== undefined) return known
  const lookup = new NameLookup<AliasMake>()
  for (const make of table.makes) {
    lookup.name(make.name, make)
    for (const alias of make.aliases) lookup.alias(alias, make)
  }
  makeLookups.set(table, lookup)
  return lookup
}

/** Each table's lookup, made once: the curated table is one object for every build of a process. */
const makeLookups = new WeakMap<AliasTable, NameLookup<AliasMake>>()

/**
 * The models of one make of the table, for an export's spellings: their names, aliases
 * and detail aliases (an export may file a listing under `320d`), and a family that
 * stands for a single model (an export may write `C-Class`).
 */
export function modelLookup(make: AliasMake): NameLookup<string> {
  const lookup = new NameLookup<string>()
  for (const model of make.models) {
    lookup.name(model.name, model.name)
    for (const alias of model.aliases) lookup.alias(alias, model.name)
    for (const { alias } of model.detail) lookup.alias(alias, model.name)
  }
  for (const family of make.families) {
    if (family.models.length === 1) lookup.alias(family.name, family.models[0]!)
  }
  return lookup
}

/**
 * The canonical name of spellings the table does not know (contract 3.1): the most
 * frequent one not written all in lower case, or, when every one is, the most frequent
 * with the first letter of each word upper-cased (`aston-martin` becomes `Aston-Martin`).
 * Ties go to the first in code-point order, so the name does not depend on the file's order.
 */
export function canonicalName(counts: ReadonlyMap<string, number>): string {
  let best = ''
  let bestCount = -1
  let lower = true
  for (const [spelling, count] of counts) {
    const isLower = spelling === spelling.toLowerCase()
    if (lower && !isLower) {
      lower = false
      bestCount = -1
    }
    if (isLower && !lower) continue
    if (count > bestCount || (count === bestCount && spelling < best)) {
      best = spelling
      bestCount = count
    }
  }
  return lower
    ? best.replace(/(^|[^\p{L}\p{N}])(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase())
    : best
}

/**
 * Groups spellings into canonical names within scopes (a make's models, or the makes): a
 * name fixed by the alias table, or spellings equal but for case, spacing and word order
 * (as NameMatcher compares: `370 Z` and `370Z`, `e-klasa` and `klasa-e` are one), which
 * are joined whenever a spelling links two groups. Groups get their final indexes when
 * every spelling is in (finish).
 */
class Canonicalizer {
  private readonly byKey = new Map<string, number>()
  private readonly parent: number[] = []
  private readonly scopes: string[] = []
  private readonly fixedNames: (string | undefined)[] = []
  private readonly counts: Map<string, number>[] = []

  fixed(scope: string, name: string): number {
    const group = this.slot(scope, `=${name}`)
    this.fixedNames[group] = name
    return group
  }

  group(scope: string, spelling: string, count: number): number {
    const key = normalize(spelling)
    const compact = this.slot(scope, ` ${key.replace(/ /g, '')}`)
    const ordered = this.slot(scope, `~${key.split(' ').sort().join(' ')}`)
    const group = this.join(compact, ordered)
    const counts = this.counts[group]!
    counts.set(spelling, (counts.get(spelling) ?? 0) + count)
    return group
  }

  /**
   * The canonical names, and the index among them of each group `fixed` or `group` gave.
   * Groups of one scope that come out with the same name are one (a spelling the table's
   * matching found ambiguous, named like a table name), so no key is written twice.
   */
  finish(): { readonly names: string[]; indexOf(group: number): number; fixed(index: number): boolean } {
    const index = new Map<number, number>()
    const byName = new Map<string, number>()
    const names: string[] = []
    for (let group = 0; group < this.parent.length; group++) {
      if (this.root(group) !== group || (this.counts[group]!.size === 0 && this.fixedNames[group] === undefined))
        continue
      const name = this.fixedNames[group] ?? canonicalName(this.counts[group]!)
      const key = `${this.scopes[group]}\u0000${name}`
      if (!byName.has(key)) byName.set(key, names.push(name) - 1)
      index.set(group, byName.get(key)!)
    }
    const fixed = new Set<number>()
    for (const [group, at] of index) if (this.fixedNames[group] !== undefined) fixed.add(at)
    return { names, indexOf: (group) => index.get(this.root(group))!, fixed: (at) => fixed.has(at) }
  }

  private slot(scope: string, key: string): number {
    let group = this.byKey.get(`${scope}\u0000${key}`)
    if (group === undefined) {
      group = this.parent.push(this.parent.length) - 1
      this.counts.push(new Map())
      this.scopes.push(scope)
      this.byKey.set(`${scope}\u0000${key}`, group)
    }
    return this.root(group)
  }

  private root(group: number): number {
    while (this.parent[group] !== group) group = this.parent[group] = this.parent[this.parent[group]!]!
    return group
  }

  /** Joins two groups into the lower one, their counts added. */
  private join(a: number, b: number): number {
    if (a === b) return a
    const [keep, gone] = a < b ? [a, b] : [b, a]
    this.parent[gone] = keep
    for (const [spelling, count] of this.counts[gone]!) {
      this.counts[keep]!.set(spelling, (this.counts[keep]!.get(spelling) ?? 0) + count)
    }
    this.counts[gone]!.clear()
    return keep
  }
}

/**
 * The name index the runtime resolves requests with: every canonical make and model
 * with listings (and the years they have), every name, alias and detail alias the table
 * knows of the make, listed or not, the families and pools whose models have listings,
 * and the words of a model name that narrow a filter. `bodyYears` tells how many listings
 * of a model each year has of a body type, which a body variant pools.
 */
export function nameIndex(
  names: CanonicalNames,
  listings: ReadonlyMap<number, ModelListings>,
  table: AliasTable,
  bodyYears: (model: number, body: number) => ReadonlyMap<number, number>,
): NameIndex {
  const tableMakes = new Map(table.makes.map((m) => [m.name, m]))
  const wordIndex = detailWordIndex(table.words)
  const words = new DetailWords(wordIndex)
  const byMake = names.makes.map((): ModelNames[] => [])
  const modelIndex = new Map<string, number>()
  names.models.forEach((m, index) => {
    byMake[m.make]!.push({ name: m.name, ...listings.get(index)! })
    modelIndex.set(`${m.make}\u0000${m.name}`, index)
  })
  const makes: MakeNames[] = names.makes.map((make, makeIndex) => {
    const entry = tableMakes.get(make)
    tableMakes.delete(make)
    const models = byMake[makeIndex]!.sort((a, b) => polish.compare(a.name, b.name))
    const byName = new Map(models.map((m) => [m.name, m]))
    const families: FamilyNames[] = []
    const unlisted: string[] = []
    const listedFamily = (name: string, all: readonly string[]) => {
      const members = all.filter((m) => byName.has(m))
      return members.length === 0
        ? undefined
        : { name, models: members, years: yearsOf(members.map((m) => byName.get(m)!.years)) }
    }
    for (const family of entry?.families ?? []) {
      const listed = listedFamily(family.name, family.models)
      if (listed === undefined) unlisted.push(family.name)
      else families.push(listed)
    }
    const pools: PoolNames[] = []
    for (const pool of entry === undefined ? [] : modelPools(entry, words)) {
      const listed = listedFamily(pool.name, pool.models)
      if (listed === undefined) continue
      // A pool's name that is no model of the table (`R8` of `R8 Coupé` and `R8 Spyder`) is
      // found as its family's, however few of its models are listed.
      const named = listed.models.length >= 2 || entry?.models.some((m) => m.name === pool.name) !== true
      if (named && !families.some((f) => f.name === pool.name)) families.push(listed)
      const base = pool.base === undefined ? undefined : modelIndex.get(`${makeIndex}\u0000${pool.base}`)
      const variants = pool.variants.flatMap(({ name, body }): VariantNames[] => {
        if (body === UNKNOWN) return []
        const own = byName.get(name)
        const pooled = base === undefined ? new Map<number, number>() : bodyYears(base, body)
        if (own === undefined && pooled.size === 0) return []
        return [
          {
            name,
            body,
            models: [...(own === undefined ? [] : [name]), ...(pooled.size === 0 ? [] : [pool.base!])],
            years: yearsOf([own?.years ?? [], [...pooled.keys()]]),
            pooled: pooled.size > 0,
          },
        ]
      })
      pools.push({ name: pool.name, names: pool.names, models: listed.models, years: listed.years, variants })
    }
    for (const model of entry?.models ?? []) if (!byName.has(model.name)) unlisted.push(model.name)
    return {
      name: make,
      aliases: entry?.aliases ?? [],
      models,
      model_aliases: (entry?.models ?? []).flatMap((m) => m.aliases.map((alias) => [alias, m.name] as const)),
      detail_aliases: (entry?.models ?? []).flatMap((m) => m.detail.map((d) => [d.alias, m.name, d.detail] as const)),
      families,
      pools,
      unlisted,
    }
  })
  const unlistedMakes: UnlistedMake[] = [...tableMakes.values()].map((m) => ({ name: m.name, aliases: m.aliases }))
  return {
    makes: makes.sort((a, b) => polish.compare(a.name, b.name)),
    unlisted_makes: unlistedMakes,
    detail_words: wordIndex,
  }
}

/** The years of several models, ascending, each once. */
function yearsOf(years: readonly (readonly number[])[]): number[] {
  return [...new Set(years.flat())].sort((a, b) => a - b)
}

/** The table's detail words with the codes of the values they name, as the snapshot keeps them. */
export function detailWordIndex(words: TableWords): DetailWordIndex {
  const coded = <T extends string>(table: Partial<Record<T, readonly string[]>>, values: readonly T[]) =>
    (Object.entries(table) as [T, readonly string[]][]).flatMap(([value, spellings]) =>
      spellings.map((w) => [w, values.indexOf(value)] as const),
    )
  return {
    fuel_type: coded(words.fuel_type, FUEL_TYPES),
    gearbox: coded(words.gearbox, GEARBOXES),
    body_type: coded(words.body_type, BODY_TYPES),
    body_variants: words.body_variants,
  }
}

/** One collator for every sort: `localeCompare` with a locale builds one per comparison. */
const polish = new Intl.Collator('pl')
