import { FUEL_ALIASES, GEARBOX_ALIASES, VOIVODESHIPS, type FuelType, type Gearbox } from '../format/vocabulary.js'
import type { Random } from './random.js'

/**
 * The untidiness of a real scrape in the values of a row, so a sample export exercises
 * the build's cleaning: English fuel and gearbox names, voivodeships with or without
 * diacritics and "województwo", regions outside Poland (imported cars listed from where
 * they stand), conditions in Polish or English or not at all, booleans as true/1/tak,
 * date-times instead of dates. The names are spellings.ts's; the rows no build may keep,
 * spoilage.ts's.
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
}

/** Where cars listed in Poland also stand: German and Czech regions, as sellers write them. */
const FOREIGN_REGIONS = [
  'Berlin',
  'Bawaria',
  'Moravian-Silesian Region',
  'Nordrhein-Westfalen',
  'Saksonia',
  'Brandenburgia',
]
