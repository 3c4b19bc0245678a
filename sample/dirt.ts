import {
  BODY_ALIASES,
  FUEL_ALIASES,
  GEARBOX_ALIASES,
  VOIVODESHIPS,
  type BodyType,
  type FuelType,
  type Gearbox,
} from '../format/vocabulary.js'
import type { Random } from './random.js'

/**
 * The untidiness of a real scrape in the values of a row, so a sample export exercises
 * the build's cleaning: English fuel and gearbox names, voivodeships with or without
 * diacritics and "województwo", regions outside Poland (imported cars listed from where
 * they stand), conditions in Polish or English or not at all, booleans as true/1/tak,
 * date-times instead of dates; and in the detail of a car, versions with a seller's
 * comment or quotes or as a URL slug, body types in English or none of the contract's,
 * absurd powers, displacements read with the unit's `3`. The names are spellings.ts's; the
 * rows no build may keep, spoilage.ts's.
 */
export class Dirt {
  constructor(private readonly random: Random) {}

  fuel(fuel: FuelType): string {
    return this.random.chance(0.12) ? this.random.pick(FUEL_ALIASES[fuel]) : fuel
  }

  gearbox(gearbox: Gearbox): string {
    return this.random.chance(0.12) ? this.random.pick(GEARBOX_ALIASES[gearbox]) : gearbox
  }

  /** The listing's voivodeship; for an imported car sometimes the foreign region it is still in. */
  voivodeship(code: number, imported: boolean): string {
    if (imported && this.random.chance(0.01)) return this.random.pick(FOREIGN_REGIONS)
    const name = VOIVODESHIPS[code]!
    const r = this.random.next()
    if (r < 0.05) return `województwo ${name}`
    if (r < 0.08) return name.normalize('NFKD').replace(/\p{M}/gu, '').replace(/ł/g, 'l')
    if (r < 0.1) return name.charAt(0).toUpperCase() + name.slice(1)
    return name
  }

  /** A condition as Otomoto labels it (`Nowe`, `Używane`) or otherwise; often not given at all. */
  condition(isNew: boolean): string {
    const r = this.random.next()
    if (r < 0.5) return ''
    if (r < 0.85) return isNew ? 'Nowe' : 'Używane'
    if (r < 0.95) return isNew ? 'new' : 'used'
    if (r < 0.98) return isNew ? 'Nowy' : 'Używany'
    return this.random.pick(isNew ? ['NOWE', 'nowe', 'New'] : ['UŻYWANE', 'uzywane', 'Used'])
  }

  boolean(value: boolean): string {
    const r = this.random.next()
    if (r < 0.85) return value ? 'true' : 'false'
    if (r < 0.95) return value ? '1' : '0'
    return value ? 'tak' : 'nie'
  }

  /** A date as YYYY-MM-DD, sometimes as a date-time (with an offset that keeps its UTC date). */
  date(iso: string): string {
    const r = this.random.next()
    if (r < 0.04)
      return `${iso}T${String(8 + this.random.int(10)).padStart(2, '0')}:${String(this.random.int(60)).padStart(2, '0')}:00Z`
    if (r < 0.05) return `${iso}T12:30:00+01:00`
    return iso
  }

  /**
   * A version as the listing names it; now and then with a comment after a comma, its trim
   * in quotes, or as the URL slug a scraper took (`ver-1-0-tsi-xcellence-s-s-dsg`).
   */
  version(text: string): string {
    const r = this.random.next()
    if (r < 0.002) return `${text}, ${this.random.pick(VERSION_COMMENTS)}`
    if (r < 0.003) return text.replace(/ (\S+)$/, ' "$1"')
    if (r < 0.004)
      return `ver-${text
        .toLowerCase()
        .replace(/[^a-z\d]+/g, '-')
        .replace(/^-|-$/g, '')}`
    return text
  }

  /** A body type as Otomoto writes it, sometimes in English, rarely one that is none of the contract's. */
  bodyType(body: BodyType): string {
    const r = this.random.next()
    if (r < 0.003) return this.random.pick(NOT_BODY_TYPES)
    if (r < 0.013) return this.random.pick(BODY_ALIASES[body])
    return body
  }

  /** KM, rarely absurd: a placeholder 0 or a typo's 15,000. */
  power(hp: number): number {
    return this.random.chance(0.002) ? this.random.pick(ABSURD_POWERS) : hp
  }

  /**
   * A displacement as scrapers read Otomoto's `1 968 cm3`: often with the unit's 3, as
   * 19683. An electric car's is left empty or 0.
   */
  displacement(cm3: number): number | '' {
    if (cm3 === 0) return this.random.chance(0.5) ? 0 : ''
    return this.random.chance(0.3) ? cm3 * 10 + 3 : cm3
  }
}

const VERSION_COMMENTS = ['salon PL', 'FV23%', 'bezwypadkowy', 'po serwisie']
/** What scrapers find in the body field that is not a body type: a pick-up, the catch-all. */
const NOT_BODY_TYPES = ['Pick-up', 'Inny']
const ABSURD_POWERS = [0, 15_000]

/** Where cars listed in Poland also stand: German and Czech regions, as sellers write them. */
const FOREIGN_REGIONS = [
  'Berlin',
  'Bawaria',
  'Moravian-Silesian Region',
  'Nordrhein-Westfalen',
  'Saksonia',
  'Brandenburgia',
]
