import { compact } from '../format/normalize.js'
import {
  BODY_ALIASES,
  BODY_TYPES,
  FUEL_ALIASES,
  FUEL_TYPES,
  GEARBOXES,
  GEARBOX_ALIASES,
  type BodyType,
  type FuelType,
  type Gearbox,
} from '../format/vocabulary.js'

/** An enumerated request parameter: its canonical values and every spelling a request may give each. */
export interface Vocabulary<T extends string> {
  readonly canonical: readonly T[]
  /** The spellings of each canonical value besides itself, as they are listed to callers. */
  readonly aliases: Readonly<Record<T, readonly string[]>>
  /** The canonical value a spelling stands for; undefined for none. */
  resolve(value: string): T | undefined
}

/**
 * A vocabulary of the data contract's aliases (section 3.2, which exports use too) and
 * the further spellings callers type. Every spelling is compared after compact(), as the
 * contract's are (case, accents, spaces and punctuation do not count); one that would
 * stand for two values is a mistake in this table, refused when the module loads.
 */
function vocabulary<T extends string>(
  canonical: readonly T[],
  contract: Readonly<Record<T, readonly string[]>>,
  further: Readonly<Record<T, readonly string[]>>,
): Vocabulary<T> {
  const aliases = Object.fromEntries(
    canonical.map((value) => [value, [...contract[value], ...further[value]]]),
  ) as Record<T, string[]>
  const table = new Map<string, T>()
  for (const value of canonical) {
    for (const spelling of [value, ...aliases[value]]) {
      const key = compact(spelling)
      const taken = table.get(key)
      if (taken !== undefined && taken !== value)
        throw new Error(`the spelling ${spelling} stands for both ${taken} and ${value}`)
      table.set(key, value)
    }
  }
  return { canonical, aliases, resolve: (value) => table.get(compact(value)) }
}

/**
 * The one table of what the enumerated parameters accept (fuel_type, gearbox and
 * body_type), resolved to the canonical values the spec names and answers echo. Requests
 * only: a build reads an export with the contract's aliases alone, so what it keeps or
 * rejects does not depend on the colloquial spellings here (`ON` is the diesel pump's
 * label, `Pb95` the petrol's, `A` and `M` a gear lever's).
 */
export const REQUEST_VALUES: {
  readonly fuel_type: Vocabulary<FuelType>
  readonly gearbox: Vocabulary<Gearbox>
  readonly body_type: Vocabulary<BodyType>
} = {
  fuel_type: vocabulary(FUEL_TYPES, FUEL_ALIASES, {
    Benzyna: ['pb', 'pb95', 'pb98', 'benzin'],
    Diesel: ['on', 'olej napędowy', 'ropa'],
    Hybryda: ['hev', 'full hybrid', 'hybrydowy'],
    'Hybryda Plug-in': ['plug-in'],
    Elektryczny: ['bev', 'elektryk', 'elektryczna'],
    'Benzyna+LPG': ['petrol+lpg', 'autogas', 'gaz', 'benzyna+gaz'],
    'Benzyna+CNG': ['petrol+cng'],
    Wodór: ['h2', 'fcev'],
    Etanol: ['bioetanol', 'flexfuel', 'flex fuel'],
  }),
  gearbox: vocabulary(GEARBOXES, GEARBOX_ALIASES, {
    Manualna: ['m', 'man', 'mt', 'manualny', 'ręczna'],
    Automatyczna: ['a', 'at', 'auto', 'automat', 'automatyczny'],
  }),
  body_type: vocabulary(BODY_TYPES, BODY_ALIASES, {
    'Auta małe': [],
    'Auta miejskie': [],
    Coupe: [],
    Kabriolet: ['kabrio'],
    Kombi: ['combi', 'sw'],
    Kompakt: ['hatch'],
    Minivan: [],
    Sedan: [],
    SUV: ['4x4'],
  }),
}

/** "Manualna (manual, m, ...), Automatyczna (automatic, a, ...); case, accents and spaces do not matter" */
export function spellings<T extends string>(vocabulary: Vocabulary<T>): string {
  const each = vocabulary.canonical.map((value) => `${value} (${vocabulary.aliases[value].join(', ')})`)
  return `${each.join(', ')}; case, accents and spaces do not matter`
}
