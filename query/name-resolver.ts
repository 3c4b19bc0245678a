import { normalize } from '../format/normalize.js'
import type { FamilyNames, MakeNames, ModelNames, NameIndex, Target } from '../format/schema.js'
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

// `family` ranks weakest: the contract reports it whenever step 4 resolved the model.
const STRENGTH: Record<MatchType, number> = { exact: 0, normalized: 1, alias: 2, fuzzy: 3, family: 4 }
const MAX_SUGGESTIONS = 5

interface Candidate<T> {
  readonly value: T
  readonly match: Exclude<MatchType, 'family'>
}
type ModelMatch = Candidate<ModelNames> | { readonly value: FamilyNames; readonly match: 'family' }

/** One make's look-up tables, built once when the snapshot opens. */
interface MakeTables {
  readonly entry: MakeNames
  readonly exact: Map<string, ModelNames>
  readonly normalized: Map<string, ModelNames>
  readonly aliases: Map<string, ModelNames>
  readonly families: Map<string, FamilyNames>
  readonly fuzzy: readonly FuzzyName<ModelNames>[]
  /** The make's canonical name and aliases, normalized: what a model may be written after. */
  readonly names: readonly string[]
  /** The models and families a miss may suggest. */
  readonly suggestable: readonly FuzzyName<string>[]
  /** What a miss offers when no name is close. */
  readonly common: readonly string[]
}
interface FuzzyName<T> {
  readonly key: string
  readonly value: T
}

/**
 * Resolves the make and model of a request onto the snapshot's canonical names: exact,
 * equal after normalize, alias, model family, then a unique nearest name within a small
 * edit distance. A model that none of the first four steps resolves is tried again without
 * a leading name of its make (`VW Golf`) before the last step. The first four steps are map
 * look-ups; the rest run only on a miss and compare with one make's names, never with
 * anything that grows with the market.
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
        names: [normalize(entry.name), ...entry.aliases],
        suggestable: [...entry.models, ...entry.families].map((n) => ({ key: normalize(n.name), value: n.name })),
        common: mostCommon(entry.models),
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

  /** Throws INSUFFICIENT_DATA, with canonical names to try, when a name resolves to nothing. */
  resolve(make: string, model: string): Resolution {
    const makeMatch = this.findMake(make)
    const tables = makeMatch.value
    const given = this.modelLookup(tables, model)
    if (given !== undefined) return this.resolution(tables, given, makeMatch.match)
    // The model as written went first, so `DS 3` (DS Automobiles) or `Mini Cooper` stay
    // themselves. Without the make's name in front, the model was not written as its
    // canonical name: the match is `normalized` at best, else the rest's own (or `family`).
    const key = normalize(model)
    const rests = withoutMake(key, [normalize(make), ...tables.names])
    for (const rest of rests) {
      const found = this.modelLookup(tables, rest)
      if (found !== undefined) return this.resolution(tables, found, weakest(makeMatch.match, 'normalized'))
    }
    for (const text of [key, ...rests]) {
      const near = nearest(text, tables.fuzzy)
      if (near !== undefined) return this.resolution(tables, { value: near, match: 'fuzzy' }, makeMatch.match)
    }
    const message = `No ${tables.entry.name} model in the data matches "${model}".`
    const close = suggest(rests[0] ?? key, tables.suggestable)
    if (close.length > 0) throw miss(message, close, didYouMean)
    throw miss(message, tables.common, (name) => `${tables.entry.name} models in the data include "${name}".`)
  }

  private findMake(make: string): Candidate<MakeTables> {
    const match = this.lookup(make, this.exact, this.normalized, this.aliases, this.fuzzy)
    if (match !== undefined) return match
    const names = this.fuzzy.map((f) => ({ key: f.key, value: f.value.entry.name }))
    throw miss(`No make in the data matches "${make}".`, suggest(normalize(make), names), didYouMean)
  }

  /** Steps 1-4 for a model of `tables`' make. */
  private modelLookup(tables: MakeTables, text: string): ModelMatch | undefined {
    const found = this.lookup(text, tables.exact, tables.normalized, tables.aliases, undefined)
    if (found !== undefined) return found
    const family = tables.families.get(normalize(text))
    return family === undefined ? undefined : { value: family, match: 'family' }
  }

  /** `found` as the answer's target; its match type no stronger than `floor`. */
  private resolution(tables: MakeTables, found: ModelMatch, floor: MatchType): Resolution {
    const make = tables.entry.name
    const matchType = weakest(floor, found.match)
    if (found.match !== 'family') {
      const model = found.value
      const target: Target = { kind: 'model', make, name: model.name }
      return { target, makes: [make], models: [model.name], matchType, years: model.years }
    }
    const family = found.value
    const target: Target =
      family.models.length === 1
        ? { kind: 'model', make, name: family.models[0]! }
        : { kind: 'family', make, name: family.name }
    return { target, makes: [make], models: family.models, matchType, years: family.years }
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

function weakest(a: MatchType, b: MatchType): MatchType {
  return STRENGTH[a] >= STRENGTH[b] ? a : b
}

/** The rest of a normalized model after each of the make's `names` it starts with as whole words, longest name first. */
function withoutMake(key: string, names: readonly string[]): string[] {
  return [...new Set(names)]
    .filter((name) => key.startsWith(`${name} `))
    .sort((a, b) => b.length - a.length)
    .map((name) => key.slice(name.length + 1))
}

/**
 * A make's models to offer when nothing is close to a model asked for: the most listed
 * first (the name index keeps models by name, and the sort is stable, so ties stay so).
 */
function mostCommon(models: readonly ModelNames[]): string[] {
  return [...models]
    .sort((a, b) => b.listings - a.listings)
    .slice(0, MAX_SUGGESTIONS)
    .map((m) => m.name)
}

/** INSUFFICIENT_DATA with `suggestions`, its message naming the first for clients that show only the message. */
function miss(message: string, suggestions: readonly string[], hint: (name: string) => string): ApiError {
  const first = suggestions[0]
  return new ApiError('INSUFFICIENT_DATA', first === undefined ? message : `${message} ${hint(first)}`, {
    suggestions,
  })
}

function didYouMean(name: string): string {
  return `Did you mean "${name}"?`
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

/**
 * Up to five canonical names close to `key`, best first: those it starts as a whole word
 * (`3` -> `3 Series`, `c` -> `C-Class`), those holding it as a word (`Seria 3`), those it
 * starts or that start it (`3GT`), then those within a small edit distance; by edit
 * distance within each.
 */
function suggest(key: string, names: readonly FuzzyName<string>[]): string[] {
  if (key === '') return []
  const limit = Math.max(2, tolerance(key.length) + 1)
  return names
    .map(({ key: other, value: name }) => ({ name, rank: rank(key, other), d: editDistance(key, other, limit + 1) }))
    .filter((s) => s.rank < 3 || s.d <= limit)
    .sort((a, b) => a.rank - b.rank || a.d - b.d || a.name.localeCompare(b.name, 'pl'))
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => s.name)
}

/** How `other` holds `key`, both normalized: 0 as its first words, 1 as other words, 2 as a start, else 3. */
function rank(key: string, other: string): number {
  if (other.startsWith(`${key} `)) return 0
  if (` ${other} `.includes(` ${key} `)) return 1
  return other.startsWith(key) || key.startsWith(other) ? 2 : 3
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
