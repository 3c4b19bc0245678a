import { DetailWords, type DetailWord } from '../format/detail-words.js'
import { NameLookup, NameMatcher, isCatchAll, splits, type LookupMatch } from '../format/name-matcher.js'
import { normalize } from '../format/normalize.js'
import type {
  FamilyNames,
  MakeNames,
  ModelNames,
  NameIndex,
  PoolNames,
  Target,
  VariantNames,
} from '../format/schema.js'
import { UNKNOWN } from '../format/vocabulary.js'
import { ApiError } from './api-error.js'

/**
 * How a request's names were resolved (data contract, section 4); `broader` when words of
 * the model name could not be told in the data and the answer is for the model without them (4.1, rule 3).
 */
export type MatchType = 'exact' | 'normalized' | 'alias' | 'family' | 'fuzzy' | 'broader'

/** A key a request may be answered from, with what it holds. */
export interface KeyTarget {
  /** What the statistics are looked up under. */
  readonly target: Target
  /** The canonical models whose listings it holds. */
  readonly models: readonly string[]
  /** Production years with listings. */
  readonly years: readonly number[]
  /** The body type its name stands for (a body variant, `A4 Avant`: Kombi), applied by the key itself; UNKNOWN for none. */
  readonly body: number
  /** `models` as JSON, as every answer's `matched` gives them. */
  readonly modelsJson: string
}

export interface Resolution extends KeyTarget {
  readonly makes: readonly string[]
  /** `makes` as JSON. */
  readonly makesJson: string
  readonly matchType: MatchType
  /** The words after the model in the model name, and what a detail alias (`320d`) means, as read (contract 4.1). */
  readonly detail: readonly DetailWord[]
  /** The body variants of the pool the key stands for (`A4`), by body type: a body filter answers from the variant's key. */
  readonly variants: ReadonlyMap<number, KeyTarget>
}

// `family` ranks weakest: the contract reports it whenever step 4 resolved the model.
const STRENGTH: Record<MatchType, number> = { exact: 0, normalized: 1, alias: 2, fuzzy: 3, family: 4, broader: 5 }
const MAX_SUGGESTIONS = 5
const NO_VARIANTS: ReadonlyMap<number, KeyTarget> = new Map()

/** A name the alias table knows that the snapshot has no listing of: it is never taken for another. */
interface Unlisted {
  readonly unlisted: string
}
/** An engine or a generation that names a model (contract 4.1: `320d`, `W212`) and the detail it means. */
interface DetailAlias {
  readonly model: ModelNames | Unlisted
  readonly detail: string
}
type MakeMatch = { readonly value: MakeTables; readonly match: MatchType }
type Named = ModelNames | FamilyNames | Unlisted
/** A model name found, and the detail the request wrote after it (or the detail alias meant). */
type ModelMatch = { readonly value: Named; readonly match: MatchType; readonly detail: string }

/** One make's look-up tables, built once when the snapshot opens. */
interface MakeTables {
  readonly entry: MakeNames
  /** Steps 1-3 over the make's models, listed or not, their aliases and detail aliases. */
  readonly models: NameLookup<ModelNames | Unlisted | DetailAlias>
  readonly families: NameMatcher<FamilyNames | Unlisted>
  /** The pool each of its names (and its family's name) stands for (contract 3.1). */
  readonly pools: ReadonlyMap<string, PoolKey>
  /** The key each body variant of a pool answers from, by its name. */
  readonly variants: ReadonlyMap<string, KeyTarget>
  /** The key each model and family with listings answers from. */
  readonly keys: ReadonlyMap<ModelNames | FamilyNames, KeyTarget>
  /** The make's canonical name, as `matched.makes` gives it, and as JSON. */
  readonly makes: readonly string[]
  readonly makesJson: string
  readonly fuzzy: readonly FuzzyName<ModelNames>[]
  /** The make's canonical name and aliases, normalized: what a model may be written after. */
  readonly names: readonly string[]
  /** The models and families a miss may suggest. */
  readonly suggestable: readonly FuzzyName<string>[]
  /** What a miss offers when no name is close. */
  readonly common: readonly string[]
}
/** A pool as it answers: its key, and its body variants' keys by body type; made once per snapshot. */
interface PoolKey {
  readonly pool: PoolNames
  readonly key: KeyTarget
  readonly variants: ReadonlyMap<number, KeyTarget>
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
  private readonly words: DetailWords

  constructor(index: NameIndex) {
    this.words = new DetailWords(index.detail_words)
    for (const entry of index.makes) {
      const pools = new Map<string, PoolKey>()
      for (const pool of entry.pools) {
        const poolKey = { pool, key: groupKey(entry.name, pool), variants: variantKeys(entry.name, pool) }
        for (const name of [pool.name, ...pool.names]) pools.set(name, poolKey)
      }
      const tables: MakeTables = {
        entry,
        models: new NameLookup(),
        families: new NameMatcher(),
        pools,
        variants: new Map(
          entry.pools.flatMap((p) => p.variants.map((v) => [v.name, variantKey(entry.name, v)] as const)),
        ),
        keys: new Map<ModelNames | FamilyNames, KeyTarget>([
          ...entry.models.map((m) => [m, modelKey(entry.name, m)] as const),
          ...entry.families.map((f) => [f, groupKey(entry.name, f)] as const),
        ]),
        makes: [entry.name],
        makesJson: JSON.stringify([entry.name]),
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
      for (const [alias, model, detail] of entry.detail_aliases)
        tables.models.alias(alias, { model: byName.get(model)!, detail })
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
      // A typo in the model's own name, with or without detail after it (`Gofl GTI`).
      for (const text of [key, ...rests]) {
        for (const { head, rest } of splits(text)) {
          const near = nearest(normalize(head), tables.fuzzy)
          if (near !== undefined)
            return this.resolution(tables, { value: near, match: 'fuzzy', detail: rest }, makeMatch.match)
        }
      }
    }
    const message = isCatchAll(model)
      ? `"${model}" names no model: ask for one of ${tables.entry.name}'s models.`
      : `No ${tables.entry.name} model in the data matches "${model}".`
    throw this.modelMiss(tables, rests[0] ?? key, message)
  }

  /**
   * Steps 1-4 for a model of `tables`' make: the longest model name the text starts with
   * (contract 4.1), the words after it being detail; and also without a leading name of the
   * make, where that leaves fewer words of detail: the model as written goes first, so
   * `DS 3` (DS Automobiles) or `Mini Cooper` stay themselves. Without the make's name in
   * front, the model was not written as its canonical name: the match is `normalized` at
   * best, else the rest's own (or `family`).
   */
  private findModel(tables: MakeTables, make: string, model: string): ModelMatch | undefined {
    // The whole text a name: none is longer, no word is left (the common question, without splitting it).
    const whole = modelLookup(tables, model, '')
    if (whole !== undefined) return whole
    let best = longestModel(tables, model)
    for (const rest of withoutMake(normalize(model), [normalize(make), ...tables.names])) {
      const found = longestModel(tables, rest)
      // The name that leaves the fewest words as detail: `MINI Cooper S` is the Cooper S, not a Cooper with an S.
      if (found !== undefined && (best === undefined || words(found.detail) < words(best.detail)))
        best = { ...found, match: weakest(found.match, 'normalized') }
    }
    return best === undefined ? undefined : (this.longerByTypo(tables, best) ?? best)
  }

  /**
   * A longer model of the make that the words after `found` mistype (step 5 on them:
   * `Golf Sportvan` is the Golf Sportsvan, `Range Rover Evoqe` the Evoque), its detail the
   * words after them; undefined when the first of them is a filter word, or when no longer
   * model is near, or two are.
   */
  private longerByTypo(tables: MakeTables, found: ModelMatch): ModelMatch | undefined {
    const first = this.words.read(found.detail)[0]
    if (first === undefined || first.kind !== 'version') return undefined
    const prefix = `${normalize('unlisted' in found.value ? found.value.unlisted : found.value.name)} `
    const written = found.detail.trim().split(/\s+/)
    let best: { model: ModelNames; rest: string; distance: number } | undefined
    let tie = false
    for (const { key, value } of tables.fuzzy) {
      if (!key.startsWith(prefix)) continue
      const more = key.slice(prefix.length)
      const size = more.split(' ').length
      if (size > written.length) continue
      const typed = normalize(written.slice(0, size).join(' '))
      const distance = editDistance(typed, more, tolerance(typed.length) + 1)
      if (distance > tolerance(typed.length) || (best !== undefined && distance > best.distance)) continue
      tie = best !== undefined && distance === best.distance
      if (!tie) best = { model: value, rest: written.slice(size).join(' '), distance }
    }
    return best === undefined || tie ? undefined : { value: best.model, match: 'fuzzy', detail: best.rest }
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
      if (asked === undefined || asked.value !== inMake.value) {
        const name = 'unlisted' in inMake.value ? inMake.value.unlisted : inMake.value.name
        throw miss(
          `The make "${make}" names the model ${tables.entry.name} ${name}, and the model "${model}" is another.`,
          [name],
          didYouMean,
        )
      }
      // Detail is never dropped: written in the make (`VW Golf GTI`) or in the model, it narrows.
      const detail = asked === inMake ? inMake.detail : [inMake.detail, asked.detail].filter((d) => d !== '').join(' ')
      const resolved = this.resolution(tables, { ...inMake, detail }, makeMatch.match)
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

  /**
   * `found` as the answer's key; its match type no stronger than `floor`. A model name that
   * stands for a pool (contract 3.1: `A4`, `Grandland`) answers from the pool, a body
   * variant (`A4 Avant`) from its own key when it pools its base's listings of its body.
   */
  private resolution(tables: MakeTables, found: ModelMatch, floor: MatchType): Resolution {
    const named = 'unlisted' in found.value ? found.value.unlisted : found.value.name
    const detail = this.words.read(found.detail)
    const poolKey = tables.pools.get(named)
    if (poolKey !== undefined && (found.match !== 'family' || named === poolKey.pool.name)) {
      const { pool, key, variants } = poolKey
      const one = pool.models.length === 1 && pool.models[0] === named && !('unlisted' in found.value)
      return resolved(tables, key, detail, variants, one ? weakest(floor, found.match) : 'family')
    }
    const variant = tables.variants.get(named)
    if (variant !== undefined) return resolved(tables, variant, detail, NO_VARIANTS, weakest(floor, found.match))
    if ('unlisted' in found.value) {
      throw this.modelMiss(tables, normalize(named), `No listings of ${tables.entry.name} ${named} are in the data.`)
    }
    const key = tables.keys.get(found.value)!
    return resolved(tables, key, detail, NO_VARIANTS, weakest(floor, found.match))
  }

  /** INSUFFICIENT_DATA for a model of `tables`' make: close names to `key`, else its most listed. */
  private modelMiss(tables: MakeTables, key: string, message: string): ApiError {
    const close = suggest(key, tables.suggestable)
    if (close.length > 0) return miss(message, close, didYouMean)
    return miss(message, tables.common, (name) => `${tables.entry.name} models in the data include "${name}".`)
  }
}

/** Steps 1-4 for one text: a model (steps 1-3) or a detail alias, then a family; the detail after it. */
function modelLookup(tables: MakeTables, text: string, rest: string): ModelMatch | undefined {
  const found = tables.models.find(text)
  if (found !== undefined) {
    const value = found.value
    if ('detail' in value) return { value: value.model, match: found.match, detail: joinDetail(value.detail, rest) }
    return { value, match: found.match, detail: rest }
  }
  const family = tables.families.find(text)
  return family === undefined ? undefined : { value: family, match: 'family', detail: rest }
}

/** The longest model name (steps 1-4) `text` starts with, and the words after it (contract 4.1). */
function longestModel(tables: MakeTables, text: string): ModelMatch | undefined {
  for (const { head, rest } of splits(text)) {
    const found = modelLookup(tables, head, rest)
    if (found !== undefined) return found
  }
  return undefined
}

/** How many words a detail holds. */
function words(detail: string): number {
  const key = normalize(detail)
  return key === '' ? 0 : key.split(' ').length
}

function joinDetail(a: string, b: string): string {
  return a === '' ? b : b === '' ? a : `${a} ${b}`
}

/** A resolution of one shape, whichever way it was found. */
function resolved(
  tables: MakeTables,
  key: KeyTarget,
  detail: readonly DetailWord[],
  variants: ReadonlyMap<number, KeyTarget>,
  matchType: MatchType,
): Resolution {
  return {
    target: key.target,
    models: key.models,
    years: key.years,
    body: key.body,
    modelsJson: key.modelsJson,
    makes: tables.makes,
    makesJson: tables.makesJson,
    matchType,
    detail,
    variants,
  }
}

function keyTarget(target: Target, models: readonly string[], years: readonly number[], body: number): KeyTarget {
  return { target, models, years, body, modelsJson: JSON.stringify(models) }
}

function modelKey(make: string, model: ModelNames): KeyTarget {
  return keyTarget({ kind: 'model', make, name: model.name }, [model.name], model.years, UNKNOWN)
}

/** The key a family or a pool answers from: its own, or with one model with listings, that model's. */
function groupKey(
  make: string,
  group: { readonly name: string; readonly models: readonly string[]; readonly years: readonly number[] },
): KeyTarget {
  const target: Target =
    group.models.length === 1
      ? { kind: 'model', make, name: group.models[0]! }
      : { kind: 'family', make, name: group.name }
  return keyTarget(target, group.models, group.years, UNKNOWN)
}

/** The keys of a pool's body variants by the body type each stands for: a body filter on the pool answers from them. */
function variantKeys(make: string, pool: PoolNames): ReadonlyMap<number, KeyTarget> {
  return new Map(pool.variants.map((v) => [v.body, variantKey(make, v)] as const))
}

/** The key a body variant answers from: its own when it pools its base's listings of its body, else its model's. */
function variantKey(make: string, variant: VariantNames): KeyTarget {
  const target: Target = variant.pooled
    ? { kind: 'variant', make, name: variant.name }
    : { kind: 'model', make, name: variant.name }
  return keyTarget(target, variant.models, variant.years, variant.body)
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
