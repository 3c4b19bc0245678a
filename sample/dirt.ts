import { FUEL_ALIASES, GEARBOX_ALIASES, VOIVODESHIPS, type FuelType, type Gearbox } from '../format/vocabulary.js'
import type { AliasTable } from '../build/alias-table.js'
import type { Random } from './random.js'

/**
 * The untidiness of a real scrape, so a sample export exercises the build's cleaning:
 * makes and models written as aliases or in another case, English fuel and gearbox
 * names, voivodeships with or without diacritics and "województwo", booleans as
 * true/1/tak, date-times instead of dates, and a small share of rows no build may keep.
 */
export class Dirt {
  private readonly makeAliases = new Map<string, readonly string[]>()
  private readonly modelAliases = new Map<string, readonly string[]>()

  constructor(
    private readonly random: Random,
    table: AliasTable,
  ) {
    for (const make of table.makes) {
      this.makeAliases.set(make.name, make.aliases)
      for (const model of make.models) this.modelAliases.set(`${make.name}\u0000${model.name}`, model.aliases)
    }
  }

  make(name: string): string {
    const r = this.random.next()
    if (r < 0.015) {
      const aliases = this.makeAliases.get(name) ?? []
      if (aliases.length > 0) return this.random.pick(aliases)
    }
    if (r < 0.025) return name.toUpperCase()
    if (r < 0.035) return name.toLowerCase()
    if (r < 0.04) return ` ${name} `
    return name
  }

  model(make: string, name: string): string {
    const r = this.random.next()
    if (r < 0.02) {
      const aliases = this.modelAliases.get(`${make}\u0000${name}`) ?? []
      if (aliases.length > 0) return this.random.pick(aliases)
    }
    if (r < 0.03) return name.toLowerCase()
    if (r < 0.035) return name.toUpperCase()
    return name
  }

  fuel(fuel: FuelType): string {
    return this.random.chance(0.12) ? this.random.pick(FUEL_ALIASES[fuel]) : fuel
  }

  gearbox(gearbox: Gearbox): string {
    return this.random.chance(0.12) ? this.random.pick(GEARBOX_ALIASES[gearbox]) : gearbox
  }

  voivodeship(code: number): string {
    const name = VOIVODESHIPS[code]!
    const r = this.random.next()
    if (r < 0.05) return `województwo ${name}`
    if (r < 0.08) return name.normalize('NFKD').replace(/\p{M}/gu, '').replace(/ł/g, 'l')
    if (r < 0.1) return name.charAt(0).toUpperCase() + name.slice(1)
    return name
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

/** Ways a row can be unusable, each a rejection reason the build must count. */
export const INVALID_KINDS = [
  'price_zero',
  'price_text',
  'year_too_old',
  'mileage_negative',
  'unknown_fuel',
  'unknown_gearbox',
  'unknown_voivodeship',
  'unknown_currency',
  'last_before_first',
  'missing_model',
  'imported_maybe',
] as const
export type InvalidKind = (typeof INVALID_KINDS)[number]
