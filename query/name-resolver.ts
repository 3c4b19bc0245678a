import { normalize } from '../format/normalize.js'
import type { FamilyNames, MakeNames, NameIndex, Target } from '../format/schema.js'
import { ApiError } from './api-error.js'

/** How a request's names were resolved (data contract, section 4). */
export type MatchType = 'exact' | 'normalized' | 'alias' | 'family' | 'fuzzy'

export interface Resolution {
  /** What the statistics are looked up under. */
  readonly target: Target
  readonly makes: readonly string[]
  readonly models: readonly string[]
  readonly matchType: MatchType
  /** Production years with listings. */
  readonly years: readonly number[]
}

const STRENGTH: Record<Exclude<MatchType, 'family'>, number> = { exact: 0, normalized: 1, alias: 2, fuzzy: 3 }
const MAX_SUGGESTIONS = 5

interface Candidate<T> {
  readonly value: T
  readonly match: Exclude<MatchType, 'family'>
}

/** One make's look-up tables, built once when the snapshot opens. */
interface MakeTables {
  readonly entry: MakeNames
  readonly exact: Map<string, MakeNames['models'][number]>
  readonly normalized: Map<string, MakeNames['models'][number]>
  readonly aliases: Map<string, MakeNames['models'][number]>
  readonly families: Map<string, FamilyNames>
  readonly fuzzy: readonly FuzzyName<MakeNames['models'][number]>[]
}
interface FuzzyName<T> {
  readonly key: string
  readonly value: T
}

/**
 * Resolves the make and model of a request onto the snapshot's canonical names: exact,
 * equal after normalize, alias, model family, then a unique nearest name within a small
 * edit distance. Everything but the last step is a map look-up; the last compares with
 * one make's names, never with anything that grows with the market.
 */
export class NameResolver {
  private readonly exact = new Map<string, MakeTables>()
  private readonly normalized = new Map<string, MakeTables>()
  private readonly aliases = new Map<string, MakeTables>()
  private readonly fuzzy: FuzzyName<MakeTables>[] = []

  constructor(index: NameIndex) {
    for (const entry of index.makes) {
      const tables: MakeTables = {
        entry,
        exact: new Map(entry.models.map((m) => [m.name, m])),
        normalized: new Map(entry.models.map((m) => [normalize(m.name), m])),
        aliases: new Map(),
        families: new Map(entry.families.map((f) => [normalize(f.name), f])),
        fuzzy: entry.models.map((m) => ({ key: normalize(m.name), value: m })),
      }
      const byName = new Map(entry.models.map((m) => [m.name, m]))
      for (const [alias, model] of entry.model_aliases) tables.aliases.set(alias, byName.get(model)!)
      this.exact.set(entry.name, tables)
      this.normalized.set(normalize(entry.name), tables)
      for (const alias of entry.aliases) this.aliases.set(alias, tables)
      this.fuzzy.push({ key: normalize(entry.name), value: tables })
    }
  }

  /** A make alone (the catalogue's models of a make); throws as `resolve` does. */
  resolveMake(make: string): { readonly make: string; readonly matchType: MatchType } {
    const match = this.findMake(make)
    return { make: match.value.entry.name, matchType: match.match }
  }

  /** Throws INSUFFICIENT_DATA, with close canonical names, when a name resolves to nothing. */
  resolve(make: string, model: string): Resolution {
    const makeMatch = this.findMake(make)
    const tables = makeMatch.value
    const makes = [tables.entry.name]
    const modelMatch = this.lookup(model, tables.exact, tables.normalized, tables.aliases, undefined)
    if (modelMatch !== undefined)
      return this.modelResolution(tables, modelMatch.value, weakest(makeMatch.match, modelMatch.match))
    const family = tables.families.get(normalize(model))
    if (family !== undefined) {
      const target: Target =
        family.models.length === 1
          ? { kind: 'model', make: tables.entry.name, name: family.models[0]! }
          : { kind: 'family', make: tables.entry.name, name: family.name }
      return { target, makes, models: family.models, matchType: 'family', years: family.years }
    }
    const fuzzy = nearest(normalize(model), tables.fuzzy)
    if (fuzzy !== undefined) return this.modelResolution(tables, fuzzy, 'fuzzy')
    throw new ApiError('INSUFFICIENT_DATA', `No ${tables.entry.name} model in the data matches "${model}".`, {
      suggestions: suggest(normalize(model), [
        ...tables.entry.models.map((m) => m.name),
        ...tables.entry.families.map((f) => f.name),
      ]),
    })
  }

  private findMake(make: string): Candidate<MakeTables> {
    const match = this.lookup(make, this.exact, this.normalized, this.aliases, this.fuzzy)
    if (match !== undefined) return match
    throw new ApiError('INSUFFICIENT_DATA', `No make in the data matches "${make}".`, {
      suggestions: suggest(
        normalize(make),
        this.fuzzy.map((f) => f.value.entry.name),
      ),
    })
  }

  private modelResolution(tables: MakeTables, model: MakeNames['models'][number], matchType: MatchType): Resolution {
    return {
      target: { kind: 'model', make: tables.entry.name, name: model.name },
      makes: [tables.entry.name],
      models: [model.name],
      matchType,
      years: model.years,
    }
  }

  private lookup<T>(
    text: string,
    exact: Map<string, T>,
    normalized: Map<string, T>,
    aliases: Map<string, T>,
    fuzzy: readonly FuzzyName<T>[] | undefined,
  ): Candidate<T> | undefined {
    const byName = exact.get(text)
    if (byName !== undefined) return { value: byName, match: 'exact' }
    const key = normalize(text)
    const byNormalized = normalized.get(key)
    if (byNormalized !== undefined) return { value: byNormalized, match: 'normalized' }
    const byAlias = aliases.get(key)
    if (byAlias !== undefined) return { value: byAlias, match: 'alias' }
    if (fuzzy === undefined) return undefined
    const near = nearest(key, fuzzy)
    return near === undefined ? undefined : { value: near, match: 'fuzzy' }
  }
}

function weakest(a: Exclude<MatchType, 'family'>, b: Exclude<MatchType, 'family'>): MatchType {
  return STRENGTH[a] >= STRENGTH[b] ? a : b
}

/**
 * The edit distance a typo may have: none for names of up to 3 characters (X5 and X6
 * are different cars), 1 up to 5 characters, 2 beyond.
 */
function tolerance(length: number): number {
  return length <= 3 ? 0 : length <= 5 ? 1 : 2
}

/** The one name nearest to `key` within tolerance; undefined when none is, or two tie. */
function nearest<T>(key: string, names: readonly FuzzyName<T>[]): T | undefined {
  const limit = tolerance(key.length)
  if (limit === 0) return undefined
  let best: T | undefined
  let bestDistance = limit + 1
  let tie = false
  for (const name of names) {
    const d = editDistance(key, name.key, bestDistance + 1)
    if (d < bestDistance) {
      best = name.value
      bestDistance = d
      tie = false
    } else if (d === bestDistance && d <= limit) {
      tie = true
    }
  }
  return tie ? undefined : best
}

/** Up to five canonical names close to `key`: by edit distance, or sharing its start. */
function suggest(key: string, names: readonly string[]): string[] {
  const limit = Math.max(2, tolerance(key.length) + 1)
  return names
    .map((name) => {
      const other = normalize(name)
      const d = editDistance(key, other, limit + 1)
      const prefix = key.length >= 2 && (other.startsWith(key) || key.startsWith(other))
      return { name, d: prefix ? Math.min(d, limit) : d }
    })
    .filter((s) => s.d <= limit)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name, 'pl'))
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => s.name)
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions, the most
 * common typo), giving up with `cap` as soon as the distance cannot stay below it.
 */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap
  let previous2 = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  let current = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, previous2[j - 2]! + 1)
      current[j] = d
      if (d < rowMin) rowMin = d
    }
    if (rowMin >= cap) return cap
    ;[previous2, previous, current] = [previous, current, previous2]
  }
  return Math.min(previous[b.length]!, cap)
}
