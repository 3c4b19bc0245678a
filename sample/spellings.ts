import { MARKETPLACE_CATALOGUE, loadCatalogue, type AliasTable } from '../build/alias-table.js'
import { makeLookup, modelLookup } from '../build/name-mapping.js'
import { normalize } from '../format/normalize.js'
import type { Random } from './random.js'

/**
 * How an export writes makes and models: mostly as the marketplace displays them (Otomoto's
 * catalogue, build/otomoto-catalogue.json: `Mercedes-Benz`, `Klasa E`, `RAPID`, `370 Z`),
 * some as its URL slugs (`mercedes-benz`, `klasa-e`, and for Mercedes classes the 2021
 * form `e-klasa`), in another case (`I30`, `bmw`) or spacing (`370Z`), or as an alias of
 * the curated table (`VW`, `Golf IV`). Only spellings that the build's name table resolves
 * to the model meant are written (contract 4, steps 1-3, which the build maps an export's
 * names with), so every listing still counts where it belongs.
 */
export class Spellings {
  private readonly makes = new Map<string, Written>()
  private readonly models = new Map<string, Map<string, Written>>()

  constructor(
    private readonly random: Random,
    table: AliasTable,
  ) {
    const makes = makeLookup(table)
    const display = displayNames(makes)
    for (const make of table.makes) {
      const shown = display.get(make.name) ?? { name: make.name, slug: slug(make.name), models: new Map() }
      const earlier = EARLIER_MAKE_NAMES[make.name]
      this.makes.set(
        make.name,
        writtenAs(make.name, shown, make.aliases, (s) => makes.find(s)?.value === make, [
          [PADDED_SHARE, [` ${shown.name} `]],
          [EARLIER_SHARE, earlier === undefined ? [] : [earlier]],
        ]),
      )
      const models = modelLookup(make)
      const written = new Map<string, Written>()
      this.models.set(make.name, written)
      for (const model of make.models) {
        const own = shown.models.get(model.name) ?? { name: model.name, slug: slug(model.name) }
        const classOf = /^Klasa (\S+)$/.exec(model.name)?.[1]
        written.set(
          model.name,
          writtenAs(model.name, own, model.aliases, (s) => models.find(s)?.value === model.name, [
            [CLASS_SLUG_SHARE, classOf === undefined ? [] : [`${classOf.toLowerCase()}-klasa`]],
          ]),
        )
      }
    }
  }

  make(name: string): string {
    return this.makes.get(name)?.pick(this.random) ?? name
  }

  model(make: string, name: string): string {
    return this.models.get(make)?.get(name)?.pick(this.random) ?? name
  }

  /** As model(), the spelling drawn from another stream than the export's. */
  modelFrom(random: Random, make: string, name: string): string {
    return this.models.get(make)?.get(name)?.pick(random) ?? name
  }
}

/** Shares of the rows that write a name each way other than as displayed, where the name has such a spelling. */
const SLUG_SHARE = 0.02
const ALIAS_SHARE = 0.012
const UPPER_SHARE = 0.005
const LOWER_SHARE = 0.005
const SPACING_SHARE = 0.003
/** A make with blanks around it, as a careless scraper leaves it. */
const PADDED_SHARE = 0.005
/** Mercedes classes slugged the 2021 way, `e-klasa` for `Klasa E` (beside the slug of today). */
const CLASS_SLUG_SHARE = 0.01

/**
 * Make names Otomoto displayed otherwise in 2021 (../shared/realdata/
 * otomoto-2021-04-display-names.csv.gz), which exports gathered over the years still hold.
 */
const EARLIER_MAKE_NAMES: Readonly<Record<string, string>> = { Skoda: 'Škoda' }
const EARLIER_SHARE = 0.3

/** The spellings of one name, each with the share of rows that write it; the rest write its display name. */
class Written {
  constructor(
    private readonly display: string,
    private readonly others: readonly { readonly below: number; readonly spellings: readonly string[] }[],
  ) {}

  pick(random: Random): string {
    const r = random.next()
    for (const other of this.others) if (r < other.below) return random.pick(other.spellings)
    return this.display
  }
}

/**
 * How one name is written: as displayed, but for the shares of the rows that write it in
 * one of its `own` ways or the common ones. A way with no spelling the build resolves to
 * `canonical` is left out; so is a display name that does not resolve (the canonical name
 * is written instead).
 */
function writtenAs(
  canonical: string,
  shown: { readonly name: string; readonly slug: string },
  aliases: readonly string[],
  resolves: (spelling: string) => boolean,
  own: readonly (readonly [number, readonly string[]])[],
): Written {
  const ways: (readonly [number, readonly string[]])[] = [
    ...own,
    [SLUG_SHARE, [shown.slug]],
    [ALIAS_SHARE, aliases],
    [UPPER_SHARE, [shown.name.toUpperCase()]],
    [LOWER_SHARE, [shown.name.toLowerCase()]],
    [SPACING_SHARE, respaced(shown.name)],
  ]
  const others: { below: number; spellings: string[] }[] = []
  let below = 0
  for (const [share, spellings] of ways) {
    const valid = spellings.filter((s) => s !== shown.name && resolves(s))
    if (valid.length === 0) continue
    below += share
    others.push({ below, spellings: valid })
  }
  return new Written(resolves(shown.name) ? shown.name : canonical, others)
}

/** The same short name spaced otherwise, as sellers write it: `370 Z` and `370Z`, `X5 M` and `X5M`, `A4` and `A 4`. */
function respaced(name: string): string[] {
  if (name.length > 6) return []
  if (name.includes(' ')) return [name.replace(/ /g, '')]
  const spaced = name.replace(/(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u, ' ')
  return spaced === name ? [] : [spaced]
}

/** A URL slug as the marketplace makes them, for names its catalogue does not list. */
function slug(name: string): string {
  return normalize(name).replace(/ /g, '-')
}

interface Shown {
  readonly name: string
  readonly slug: string
}

/**
 * The marketplace's display name and slug of each canonical make and model of the table.
 * A make the catalogue lists under a name of its own wins over one it lists under an
 * alias (`Opel`, not `Vauxhall`).
 */
function displayNames(
  makes: ReturnType<typeof makeLookup>,
): Map<string, Shown & { readonly models: Map<string, Shown> }> {
  const entries = loadCatalogue(MARKETPLACE_CATALOGUE)
    .makes.map((entry) => ({ entry, found: makes.find(entry.name) ?? makes.find(entry.slug) }))
    .sort((a, b) => Number(a.found?.match === 'alias') - Number(b.found?.match === 'alias'))
  const shown = new Map<string, Shown & { readonly models: Map<string, Shown> }>()
  for (const { entry, found } of entries) {
    if (found === undefined || shown.has(found.value.name)) continue
    const lookup = modelLookup(found.value)
    const models = new Map<string, Shown>()
    for (const model of entry.models) {
      const name = lookup.find(model.name)?.value
      if (name !== undefined && !models.has(name)) models.set(name, model)
    }
    shown.set(found.value.name, { name: entry.name, slug: entry.slug, models })
  }
  return shown
}
