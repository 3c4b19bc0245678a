import { normalize } from './normalize.js'

/**
 * The steps of contract section 4 that compare a written name with known ones, shared by
 * the build (an export's spellings) and the runtime (a request's names): the same text
 * but for case, then equal after normalize, then with every space removed (`370 Z` =
 * `370Z`), then made of the same words in another order (`e-klasa` = `Klasa E`). Each step
 * counts only where it names a single value: a key two values share (`Ka+` and `KA` are
 * both `ka` after normalize) is skipped at that step, which the first step, keeping the
 * `+`, can still tell apart.
 */
export class NameMatcher<T> {
  private readonly steps: readonly Map<string, T | typeof SHARED>[] = [new Map(), new Map(), new Map(), new Map()]

  /** Adds `name` as a way of writing `value`. */
  add(name: string, value: T): void {
    const key = normalize(name)
    if (key === '') return
    stepKeys(name, key).forEach((k, step) => {
      const map = this.steps[step]!
      const held = map.get(k)
      map.set(k, held === undefined || held === value ? value : SHARED)
    })
  }

  /** The single value `text` names at the first step that names one, or undefined. */
  find(text: string): T | undefined {
    const first = this.steps[0]!.get(text.trim().toLowerCase())
    if (first !== undefined && first !== SHARED) return first as T
    const key = normalize(text)
    if (key === '') return undefined
    const keys = stepKeys(text, key)
    for (let step = 1; step < keys.length; step++) {
      const held = this.steps[step]!.get(keys[step]!)
      if (held !== undefined && held !== SHARED) return held as T
    }
    return undefined
  }
}

const SHARED: unique symbol = Symbol('shared')

/** A name's key at each step: in lower case, normalized (`key`), without spaces, its words in order. */
function stepKeys(name: string, key: string): readonly [string, string, string, string] {
  return [name.trim().toLowerCase(), key, key.replace(/ /g, ''), key.split(' ').sort().join(' ')]
}

/** How a name was found by a NameLookup: the contract's match types of steps 1-3. */
export type LookupMatch = 'exact' | 'normalized' | 'alias'

/**
 * Steps 1-3 of contract section 4 over one set of names: a canonical name as written, a
 * canonical name written otherwise (NameMatcher), an alias of one (case ignored, then as
 * NameMatcher compares).
 */
export class NameLookup<T> {
  private readonly exact = new Map<string, T>()
  private readonly names = new NameMatcher<T>()
  private readonly aliases = new NameMatcher<T>()

  name(name: string, value: T): void {
    this.exact.set(name, value)
    this.names.add(name, value)
  }

  alias(alias: string, value: T): void {
    this.aliases.add(alias, value)
  }

  find(text: string): { readonly value: T; readonly match: LookupMatch } | undefined {
    const exact = this.exact.get(text)
    if (exact !== undefined) return { value: exact, match: 'exact' }
    const named = this.names.find(text)
    if (named !== undefined) return { value: named, match: 'normalized' }
    const aliased = this.aliases.find(text)
    return aliased === undefined ? undefined : { value: aliased, match: 'alias' }
  }
}

/**
 * Marketplaces' catch-all entries (Otomoto's `Inny`, `other`), which name no make or
 * model: a row that gives one is rejected (contract 1.1), and a request that asks for one
 * is told it names nothing.
 */
const CATCH_ALLS = new Set(['inny', 'inne', 'inna', 'other', 'others', 'pozostale'])

export function isCatchAll(name: string): boolean {
  return CATCH_ALLS.has(normalize(name))
}

/**
 * The ways a name splits into a leading name and the words after it (contract 4.1: the
 * model is the longest model name the parameter starts with), longest leading name
 * first: at the request's own white space (`A4 Avant` + `2.0 TDI`), then between the words
 * normalize() makes of it (`Golf-GTI`: `golf` + `gti`). The whole name comes first, with
 * nothing after it.
 */
export function splits(text: string): { readonly head: string; readonly rest: string }[] {
  const words = text.trim().split(/\s+/)
  const out: { head: string; rest: string; size: number }[] = []
  const seen = new Set<string>()
  const add = (head: string, rest: string) => {
    const key = normalize(head)
    if (key === '' || seen.has(key)) return
    seen.add(key)
    out.push({ head, rest, size: key.split(' ').length })
  }
  for (let n = words.length; n >= 1; n--) add(words.slice(0, n).join(' '), words.slice(n).join(' '))
  const normalized = normalize(text).split(' ')
  for (let n = normalized.length; n >= 1; n--) add(normalized.slice(0, n).join(' '), normalized.slice(n).join(' '))
  // Stable: at the same length, the request's own spelling goes first.
  return out.sort((a, b) => b.size - a.size).map(({ head, rest }) => ({ head, rest }))
}
