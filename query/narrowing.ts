import { DIESEL } from '../format/detail-words.js'
import { normalize } from '../format/normalize.js'
import { BODY_TYPES, FUEL_TYPES, GEARBOXES, UNKNOWN, type FuelType } from '../format/vocabulary.js'
import { ApiError } from './api-error.js'
import type { KeyTarget, MatchType, Resolution } from './name-resolver.js'

/**
 * The car the caller means (data contract 4.1): what the words after the model, a detail
 * alias and the detail parameters narrow a question to, and the key that answers it. A
 * fuel, gearbox or body word narrows that filter exactly as its parameter would, and a
 * parameter that names another value is refused; the other words are version words,
 * which listings must hold in their version or generation; a body type that a body
 * variant of the pool stands for (`A4` with Kombi is `A4 Avant`) answers from that
 * variant's key. Operations that take the names only apply none of it: their detail
 * words are `unresolved`, and the answer `broader`.
 */
export interface Narrowing {
  readonly key: KeyTarget
  /** Codes of the filters applied (UNKNOWN for none). */
  readonly fuel: number
  readonly gearbox: number
  /** The body type the key's listings must have: UNKNOWN when none is asked, or the key stands for it. */
  readonly scanBody: number
  /** The body type applied, by the key or by the scan (`matched.body_type`). */
  readonly body: number
  readonly power: number | null
  /** Normalized version words (contract 4.1, rule 2). */
  readonly phrases: readonly string[]
  /** The version words as the request wrote them. */
  readonly versionWords: readonly string[]
  /** Words the answer could not apply (rule 3, and every detail word of an operation that takes names only). */
  readonly unresolved: readonly string[]
  readonly matchType: MatchType
}

/** The detail a question gives by its parameters, beside its names (null where not given). */
export interface DetailParams {
  readonly fuel_type: string | null
  readonly gearbox: string | null
  readonly body_type: string | null
  readonly version: string | null
  readonly power_hp: number | null
}

const fuelCode = (fuel: FuelType) => FUEL_TYPES.indexOf(fuel)

/**
 * The fuels that name more than a combustion engine (contract 3.2) that a model's words may
 * add to each engine's badge: a petrol engine may be a hybrid's or run on gas too, a diesel
 * a hybrid's; no engine is an electric car's.
 */
const GOES_WITH: ReadonlyMap<number, ReadonlySet<number>> = new Map([
  [fuelCode('Benzyna'), new Set((['Hybryda', 'Hybryda Plug-in', 'Benzyna+LPG', 'Benzyna+CNG'] as const).map(fuelCode))],
  [fuelCode('Diesel'), new Set((['Hybryda', 'Hybryda Plug-in'] as const).map(fuelCode))],
])

/** The most version words a question may hold: each is looked for in every version of a key. */
export const MAX_VERSION_WORDS = 16

/** The narrowing of an operation that takes detail (valuation, depreciation). */
export function narrow(resolution: Resolution, given: DetailParams): Narrowing {
  let fuel = UNKNOWN
  let gearbox = UNKNOWN
  let body = UNKNOWN
  const phrases: string[] = []
  const versionWords: string[] = []
  const set = (current: number, code: number, word: string, values: readonly string[]) => {
    if (current === UNKNOWN || current === code) return code
    // A word of a hybrid or gas fuel outranks its engine's own badge: the TSI of a GTE is a plug-in's.
    if (values === FUEL_TYPES) {
      if (GOES_WITH.get(current)?.has(code) === true) return code
      if (GOES_WITH.get(code)?.has(current) === true) return current
    }
    throw contradiction('model', `the model names both ${values[current]} and ${values[code]} (${word})`)
  }
  const addPhrase = (text: string, phrase: string) => {
    if (phrases.includes(phrase)) return
    phrases.push(phrase)
    versionWords.push(text)
  }
  for (const word of resolution.detail) {
    if (word.kind === 'version') {
      if (word.diesel) fuel = set(fuel, DIESEL, word.text, FUEL_TYPES)
      addPhrase(word.text, word.phrase)
    } else if (word.kind === 'body_variant') addPhrase(word.text, normalize(word.text))
    else if (word.kind === 'fuel_type') fuel = set(fuel, word.code, word.text, FUEL_TYPES)
    else if (word.kind === 'gearbox') gearbox = set(gearbox, word.code, word.text, GEARBOXES)
    else body = set(body, word.code, word.text, BODY_TYPES)
  }
  if (resolution.body !== UNKNOWN) body = set(body, resolution.body, resolution.target.name, BODY_TYPES)
  fuel = agree('fuel_type', fuel, given.fuel_type, FUEL_TYPES)
  gearbox = agree('gearbox', gearbox, given.gearbox, GEARBOXES)
  body = agree('body_type', body, given.body_type, BODY_TYPES)
  if (given.version !== null) {
    for (const word of given.version.split(/\s+/)) {
      const phrase = normalize(word)
      if (phrase !== '') addPhrase(word, phrase)
    }
  }
  if (phrases.length > MAX_VERSION_WORDS)
    throw new ApiError(
      'INVALID_PARAMETER',
      `The model and version hold ${phrases.length} version words; at most ${MAX_VERSION_WORDS} are matched.`,
      { parameter: given.version === null ? 'model' : 'version' },
    )
  // A body type a variant of the pool stands for answers from the variant: `A4` with Kombi is `A4 Avant`.
  const variant = body === UNKNOWN ? undefined : resolution.variants.get(body)
  const key = variant ?? resolution
  const scanBody = body === UNKNOWN || key.body === body ? UNKNOWN : body
  return {
    key,
    fuel,
    gearbox,
    scanBody,
    body,
    power: given.power_hp,
    phrases,
    versionWords,
    unresolved: [],
    matchType: resolution.matchType,
  }
}

/** The narrowing of an operation that takes the names only: every detail word is left unresolved. */
export function namesOnly(resolution: Resolution): Narrowing {
  const unresolved = resolution.detail.map((w) => w.text)
  return {
    key: resolution,
    fuel: UNKNOWN,
    gearbox: UNKNOWN,
    scanBody: UNKNOWN,
    body: resolution.body,
    power: null,
    phrases: [],
    versionWords: [],
    unresolved,
    matchType: unresolved.length > 0 ? 'broader' : resolution.matchType,
  }
}

/** The narrowing with its version words left unapplied: no listing of the key says what they would match (rule 3). */
export function withoutVersions(narrowing: Narrowing): Narrowing {
  return {
    ...narrowing,
    phrases: [],
    versionWords: [],
    unresolved: [...narrowing.unresolved, ...narrowing.versionWords],
    matchType: 'broader',
  }
}

/** Whether the narrowing needs the key's listings scanned: anything but a fuel and a gearbox, which are stored. */
export function scans(narrowing: Narrowing): boolean {
  return narrowing.scanBody !== UNKNOWN || narrowing.power !== null || narrowing.phrases.length > 0
}

/** `matched` of an answer (contract 4, 4.1): the canonical names, how they matched, and what narrowed it. */
export function matchedJson(resolution: Resolution, narrowing: Narrowing): string {
  return (
    `{"makes":${resolution.makesJson},"models":${narrowing.key.modelsJson},` +
    `"match_type":"${narrowing.matchType}","fuel_type":${valueJson(narrowing.fuel, FUEL_TYPES)},` +
    `"gearbox":${valueJson(narrowing.gearbox, GEARBOXES)},"body_type":${valueJson(narrowing.body, BODY_TYPES)},` +
    `"version_words":${wordsJson(narrowing.versionWords)},"unresolved":${wordsJson(narrowing.unresolved)}}`
  )
}

/** A filter's code as JSON: its canonical value, `null` for none. */
export function valueJson(code: number, values: readonly string[]): string {
  return code === UNKNOWN ? 'null' : JSON.stringify(values[code])
}

function wordsJson(words: readonly string[]): string {
  return words.length === 0 ? '[]' : JSON.stringify(words)
}

/** A filter the names narrow to, and the parameter that may name it too: they must agree. */
function agree(parameter: string, fromNames: number, given: string | null, values: readonly string[]): number {
  if (given === null) return fromNames
  const code = values.indexOf(given)
  if (fromNames !== UNKNOWN && fromNames !== code)
    throw contradiction(parameter, `${parameter} ${given} contradicts the model's ${values[fromNames]}`)
  return code
}

function contradiction(parameter: string, what: string): ApiError {
  return new ApiError('INVALID_PARAMETER', `${what}: ask for one or the other.`, { parameter })
}
