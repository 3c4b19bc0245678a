import { compact, normalize } from './normalize.js'
import type { DetailWordIndex } from './schema.js'
import {
  BODY_ALIASES,
  BODY_TYPES,
  FUEL_ALIASES,
  FUEL_TYPES,
  GEARBOXES,
  GEARBOX_ALIASES,
  UNKNOWN,
} from './vocabulary.js'

/**
 * The words of a model name after the model (contract 4.1), read one by one: a word (or a
 * few, `S tronic`, `Shooting Brake`) that names a fuel, a gearbox or a body type narrows
 * that filter; a body word without a body type (`Sportback`) only names a body variant;
 * every other word is a version word, matched against the listings' versions and
 * generations. A number with a `d` (`320d`, `xDrive30d`, `220 d`) is an engine badge of a
 * diesel: it names the fuel and stays a version word.
 */

export type DetailWord =
  | { readonly kind: 'fuel_type' | 'gearbox' | 'body_type'; readonly code: number; readonly text: string }
  | { readonly kind: 'body_variant'; readonly text: string }
  | {
      readonly kind: 'version'
      /** As the request wrote it. */
      readonly text: string
      /** Normalized: one or more words that must stand together in a version or generation. */
      readonly phrase: string
      /** A diesel's engine badge (`320d`): it narrows the fuel too. */
      readonly diesel: boolean
    }

/** The longest run of request words one filter word may span (`plug in hybrid`). */
const MAX_SPAN = 4
const DIESEL_BADGE = /^[a-z]*\d{2,3}d$/
const ENGINE_NUMBER = /^\d{2,3}$/
/** The fuel an engine badge such as `320d` names. */
export const DIESEL = FUEL_TYPES.indexOf('Diesel')

const NO_WORDS: readonly DetailWord[] = []

/** A filter word as one: which filter, which value. */
interface Named {
  readonly kind: 'fuel_type' | 'gearbox' | 'body_type' | 'body_variant'
  readonly code: number
}

export class DetailWords {
  /** Filter words by their compact form (contract 3.2: case, accents, spacing do not count). */
  private readonly named = new Map<string, Named>()

  /** The contract's fuels, gearboxes and body types with their aliases, and the table's words. */
  constructor(index: DetailWordIndex) {
    const add = (kind: Named['kind'], text: string, code: number) => {
      const key = compact(text)
      if (key !== '' && !this.named.has(key)) this.named.set(key, { kind, code })
    }
    FUEL_TYPES.forEach((fuel, code) => [fuel, ...FUEL_ALIASES[fuel]].forEach((w) => add('fuel_type', w, code)))
    GEARBOXES.forEach((g, code) => [g, ...GEARBOX_ALIASES[g]].forEach((w) => add('gearbox', w, code)))
    BODY_TYPES.forEach((b, code) => [b, ...BODY_ALIASES[b]].forEach((w) => add('body_type', w, code)))
    for (const [word, code] of index.fuel_type) add('fuel_type', word, code)
    for (const [word, code] of index.gearbox) add('gearbox', word, code)
    for (const [word, code] of index.body_type) add('body_type', word, code)
    for (const word of index.body_variants) add('body_variant', word, UNKNOWN)
  }

  /** The words of `text` (split at white space), each read as a filter word or a version word, in order. */
  read(text: string): readonly DetailWord[] {
    // Most questions name a model and nothing more.
    if (text === '') return NO_WORDS
    const words = text
      .trim()
      .split(/\s+/)
      .filter((w) => w !== '')
    const out: DetailWord[] = []
    for (let i = 0; i < words.length;) {
      let found: { named: Named; end: number } | undefined
      let joined = ''
      for (let j = i; j < Math.min(words.length, i + MAX_SPAN); j++) {
        joined += compact(words[j]!)
        const named = this.named.get(joined)
        if (named !== undefined) found = { named, end: j + 1 }
      }
      if (found !== undefined) {
        const spelled = words.slice(i, found.end).join(' ')
        out.push(
          found.named.kind === 'body_variant'
            ? { kind: 'body_variant', text: spelled }
            : { kind: found.named.kind, code: found.named.code, text: spelled },
        )
        i = found.end
        continue
      }
      const word = words[i]!
      const phrase = normalize(word)
      if (phrase !== '') {
        const next = words[i + 1]
        const diesel =
          DIESEL_BADGE.test(phrase) || (ENGINE_NUMBER.test(phrase) && next !== undefined && normalize(next) === 'd')
        out.push({ kind: 'version', text: word, phrase, diesel })
      }
      i++
    }
    return out
  }

  /** The body type a run of normalized words ending a model name names, UNKNOWN for a body word without one; undefined when they are not all body words. */
  bodyOf(words: readonly string[]): number | undefined {
    const read = this.read(words.join(' '))
    if (read.length === 0 || read.some((w) => w.kind !== 'body_type' && w.kind !== 'body_variant')) return undefined
    const codes = new Set(read.map((w) => (w.kind === 'body_type' ? w.code : UNKNOWN)))
    codes.delete(UNKNOWN)
    return codes.size === 1 ? [...codes][0]! : UNKNOWN
  }
}

/**
 * Whether a normalized version or generation text holds `phrase` (normalized words) as
 * whole words, together and in order (`2 0` in `2 0 tdi highline`, `b8` in `b8 2014 2023`).
 */
export function holdsPhrase(normalized: string, phrase: string): boolean {
  const at = normalized.indexOf(phrase)
  if (at < 0) return false
  // The common case, the first place it occurs, without building strings.
  if (
    (at === 0 || normalized[at - 1] === ' ') &&
    (at + phrase.length === normalized.length || normalized[at + phrase.length] === ' ')
  )
    return true
  return ` ${normalized} `.includes(` ${phrase} `)
}
