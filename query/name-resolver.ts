import { NameLookup, NameMatcher, isCatchAll, type LookupMatch } from '../format/name-matcher.js'
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

/** A name the alias table knows that the snapshot has no listing of: it is never taken for another. */
interface Unlisted {
  readonly unlisted: string
}
type MakeMatch = { readonly value: MakeTables; readonly match: MatchType }
type ModelMatch =
  | { readonly value: ModelNames; readonly match: MatchType }
  | { readonly value: FamilyNames; readonly match: 'family' }
  | { readonly value: Unlisted; readonly match: MatchType }

/** One make's look-up tables, built once when the snapshot opens. */
interface MakeTables {
  readonly entry: MakeNames
  /** Steps 1-3 over the make's models, listed or not, and their aliases. */
  readonly models: NameLookup<ModelNames | Unlisted>
  readonly families: NameMatcher<FamilyNames | Unlisted>
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
 * Resolves the make and model of a request onto the snapshot's canonical names (contract
 * section 4): a canonical name, the same name written otherwise (case, spacing, word
 * order), an alias (display names and slugs included), a model family, then a unique
 * nearest name within a small edit distance. A name the alias table knows resolves to
 * itself even when the snapshot has no listing of it (INSUFFICIENT_DATA), never to a
 * near one. A model written after its make's name (`VW Golf`) is tried without it, and a
 * make written with its model (`make=VW Golf`) by its leading words. The first steps are
 * map look-ups; the rest run only on a miss and compare with one make's names, never with
 * anything that grows with the market.
 */
export class NameResolver {
  private readonly makes = new NameLookup<MakeTables | Unlisted>()
  private readonly fuzzy: FuzzyName<MakeTables>[] = []
  /** The makes with listings, as a make miss suggests them. */
  private readonly suggestable: FuzzyName<string>[] = []

  constructor(index: NameIndex) {
    for (const entry of index.makes) {
      const tables: MakeTables = {
        entry,
        models: new NameLookup(),
        families: new NameMatcher(),
        fuzzy: entry.models.map((m) => ({ key: normalize(m.name), value: m })),
        names: [entry.name, ...entry.aliases].map(normalize),
        suggestable: [...entry.models, ...entry.families].map((n) => ({ key: normalize(n.name), value: n.name })),
        common: mostCommon(entry.models),
      }
      const unlisted = entry.unlisted.map((name): Unlisted => ({ unlisted: name }))
      const byName = new Map<string, ModelNames | Unlisted>(entry.models.map((m) => [m.name, m]))
      for (const value of unlisted) byName.set(value.unlisted, value)
      for (const [name, value] of byName) tables.models.name(name, value)
      for (const [alias, model] of entry.model_aliases) tables.models.alias(alias, byName.get(model)!)
      for (const family of entry.families) tables.families.add(family.name, family)
      for (const value of unlisted) tables.families.add(value.unlisted, value)
      this.makes.name(entry.name, tables)
      for (const alias of entry.aliases) this.makes.alias(alias, tables)
      this.fuzzy.push({ key: normalize(entry.name), value: tables })
      this.suggestable.push({ key: normalize(entry.name), value: entry.name })
    }
    for (const make of index.unlisted_makes) {
      const unlisted = { unlisted: make.name }
      this.makes.name(make.name, unlisted)
      for (const alias of make.aliases) this.makes.alias(alias, unlisted)
    }
  }

  /** A make alone (the catalogue's models of a make); throws as `resolve` does. */
  resolveMake(make: string): { readonly make: string; readonly matchType: MatchType } {
    const match = this.findMake(make) ?? this.nearMake(make)
    return { make: match.value.entry.name, matchType: match.match }
  }

  /** Throws INSUFFICIENT_DATA, with canonical names to try, when a name resolves to nothing. */
  resolve(make: string, model: string): Resolution {
    const makeMatch = this.findMake(make)
    if (makeMatch !== undefined) return this.resolveModel(makeMatch, make, model)
    return this.withModelInMake(make, model) ?? this.resolveModel(this.nearMake(make), make, model)
  }

  /** The model of a resolved make (written `make` in the request), by the steps of section 4. */
  private resolveModel(makeMatch: MakeMatch, make: string, model: string): Resolution {
    const tables = makeMatch.value
    const found = this.findModel(tables, make, model)
    if (found !== undefined) return this.resolution(tables, found, makeMatch.match)
    const key = normalize(model)
    const rests = withoutMake(key, [normalize(make), ...tables.names])
    if (!isCatchAll(model)) {
      for (const text of [key, ...rests]) {
        const near = nearest(text, tables.fuzzy)
        if (near !== undefined) return this.resolution(tables, { value: near, match: 'fuzzy' }, makeMatch.match)
      }
    }
    const message = isCatchAll(model)
      ? `"${model}" names no model: ask for one of ${tables.entry.name}'s models.`
      : `No ${tables.entry.name} model in the data matches "${model}".`
    throw this.modelMiss(tables, rests[0] ?? key, message)
  }

  /**
   * Steps 1-4 for a model of `tables`' make, and then without a leading name of the make:
   * the model as written goes first, so `DS 3` (DS Automobiles) or `Mini Cooper` stay
   * themselves. Without the make's name in front, the model was not written as its
   * canonical name: the match is `normalized` at best, else the rest's own (or `family`).
   */
  private findModel(tables: MakeTables, make: string, model: string): ModelMatch | undefined {
    const given = modelLookup(tables, model)
    if (given !== undefined) return given
    for (const rest of withoutMake(normalize(model), [normalize(make), ...tables.names])) {
      const found = modelLookup(tables, rest)
      if (found !== undefined) return { ...found, match: weakest(found.match, 'normalized') } as ModelMatch
    }
    return undefined
  }

  /**
   * A make written with its model (`make=VW Golf`): its leading words resolve as a make
   * (steps 1-3), the words after them as one of its models, and the model parameter must
   * name that model too or repeat the whole name. Undefined when no leading words name a make.
   */
  private withModelInMake(make: string, model: string): Resolution | undefined {
    const words = make.trim().split(/\s+/)
    for (let n = words.length - 1; n >= 1; n--) {
      const makeMatch = this.findMake(words.slice(0, n).join(' '))
      if (makeMatch === undefined) continue
      const tables = makeMatch.value
      const rest = words.slice(n).join(' ')
      const inMake = this.findModel(tables, make, rest)
      if (inMake === undefined)
        throw this.modelMiss(tables, normalize(rest), `No ${tables.entry.name} model in the data matches "${rest}".`)
      const asked = normalize(model) === normalize(make) ? inMake : this.findModel(tables, make, model)
      const resolved = this.resolution(tables, inMake, makeMatch.match)
      if (asked === undefined || asked.value !== inMake.value) {
        const name = 'unlisted' in inMake.value ? inMake.value.unlisted : inMake.value.name
        throw miss(
          `The make "${make}" names the model ${tables.entry.name} ${name}, and the model "${model}" is another.`,
          [name],
          didYouMean,
        )
      }
      return { ...resolved, matchType: weakest(resolved.matchType, asked.match) }
    }
    return undefined
  }

  /** Steps 1-3 for a make; INSUFFICIENT_DATA for one the table knows without listings. */
  private findMake(make: string): MakeMatch | undefined {
    const found = this.makes.find(make)
    if (found === undefined) return undefined
    if ('unlisted' in found.value) {
      const message = `No listings of ${found.value.unlisted} are in the data.`
      throw miss(message, suggest(normalize(make), this.suggestable), didYouMean)
    }
    return { value: found.value, match: found.match }
  }

  /** Step 5 for a make, or INSUFFICIENT_DATA with close makes. */
  private nearMake(make: string): MakeMatch {
    const near = isCatchAll(make) ? undefined : nearest(normalize(make), this.fuzzy)
    if (near !== undefined) return { value: near, match: 'fuzzy' }
    const message = isCatchAll(make) ? `"${make}" names no make.` : `No make in the data matches "${make}".`
    throw miss(message, suggest(normalize(make), this.suggestable), didYouMean)
  }

  /** `found` as the answer's target; its match type no stronger than `floor`. */
  private resolution(tables: MakeTables, found: ModelMatch, floor: MatchType): Resolution {
    const make = tables.entry.name
    const matchType = weakest(floor, found.match)
    if ('unlisted' in found.value) {
      throw this.modelMiss(
        tables,
        normalize(found.value.unlisted),
        `No listings of ${make} ${found.value.unlisted} are in the data.`,
      )
    }
    if (found.match !== 'family') {
      const model = found.value as ModelNames
      const target: Target = { kind: 'model', make, name: model.name }
      return { target, makes: [make], models: [model.name], matchType, years: model.years }
    }
    const family = found.value as FamilyNames
    const target: Target =
      family.models.length === 1
        ? { kind: 'model', make, name: family.models[0]! }
        : { kind: 'family', make, name: family.name }
    return { target, makes: [make], models: family.models, matchType, years: family.years }
  }

  /** INSUFFICIENT_DATA for a model of `tables`' make: close names to `key`, else its most listed. */
  private modelMiss(tables: MakeTables, key: string, message: string): ApiError {
    const close = suggest(key, tables.suggestable)
    if (close.length > 0) return miss(message, close, didYouMean)
    return miss(message, tables.common, (name) => `${tables.entry.name} models in the data include "${name}".`)
  }
}

/** Steps 1-4 for one text: a model (steps 1-3), then a family. */
function modelLookup(tables: MakeTables, text: string): ModelMatch | undefined {
  const found = tables.models.find(text)
  if (found !== undefined) return found as ModelMatch
  const family = tables.families.find(text)
  return family === undefined ? undefined : ({ value: family, match: 'family' } as ModelMatch)
}

function weakest(a: MatchType, b: MatchType | LookupMatch): MatchType {
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
