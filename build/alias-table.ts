import { readFileSync } from 'node:fs'
import { NameMatcher } from '../format/name-matcher.js'
import { normalize } from '../format/normalize.js'
import { BODY_TYPES, FUEL_TYPES, GEARBOXES, type BodyType, type FuelType, type Gearbox } from '../format/vocabulary.js'
import { BuildError } from './build-error.js'
import { messageOf } from '../format/message-of.js'

/**
 * The alias table: canonical makes and models with the other spellings that stand for
 * them, the engines and generations that name a model and narrow it, model families,
 * renamed models, and the words of a model name that narrow a filter (contract 3.1, 4.1).
 * The curated one is build/aliases.json (our names, misspellings, engine and generation
 * codes, English families, engine badges and body words) joined with a marketplace's
 * catalogue (build/otomoto-catalogue.json: every make and model Otomoto lists, with its
 * display name and URL slug); an operator's own file in the aliases.json format extends
 * it (`carmarket build --aliases FILE`).
 */
export interface AliasTable {
  readonly makes: readonly AliasMake[]
  readonly words: DetailWords
}
export interface AliasMake {
  readonly name: string
  readonly aliases: readonly string[]
  readonly models: readonly AliasModel[]
  readonly families: readonly AliasFamily[]
  /** A model the marketplace renamed without changing the car: both names are one family (contract 3.1). */
  readonly renames: readonly AliasRename[]
  /**
   * Models named as another model and body words that are other cars all the same
   * (`Genesis Coupe`, `Dolphin Mini`): no body variant of the model their name starts with.
   */
  readonly apart: readonly string[]
}
export interface AliasModel {
  readonly name: string
  /** Other spellings of the model itself (`3er`, `C-Klasse`, `CHR`). */
  readonly aliases: readonly string[]
  /**
   * Names that stand for the model with more detail (contract 4.1): an engine (`320d`,
   * `E 220`) or a generation (`W212`, `E90`), each with the detail it means (`320d`, `220`,
   * `W212`), which narrows the model as words after its name would.
   */
  readonly detail: readonly AliasDetail[]
}
export interface AliasDetail {
  readonly alias: string
  readonly detail: string
}
export interface AliasRename {
  readonly from: string
  readonly to: string
}

/**
 * The words of a model name that name a filter rather than a version (contract 4.1, rule 1):
 * engine badges that tell the fuel (`TDI`), gearbox words (`DSG`), and body words (`Avant`),
 * beside the contract's own fuel, gearbox and body names, which need no entry. A body word
 * of `body_variants` names no body type (`Sportback`): it only makes a model name a body
 * variant of its base (`A3 Sportback` of `A3`).
 */
export interface DetailWords {
  readonly fuel_type: Readonly<Partial<Record<FuelType, readonly string[]>>>
  readonly gearbox: Readonly<Partial<Record<Gearbox, readonly string[]>>>
  readonly body_type: Readonly<Partial<Record<BodyType, readonly string[]>>>
  readonly body_variants: readonly string[]
}
export interface AliasFamily {
  readonly name: string
  readonly models: readonly string[]
}

export const CURATED_ALIASES = new URL('../../build/aliases.json', import.meta.url)
export const MARKETPLACE_CATALOGUE = new URL('../../build/otomoto-catalogue.json', import.meta.url)

/** A marketplace's own list of makes and models: what its search form offers, as it displays and slugs them. */
export interface MarketplaceCatalogue {
  readonly makes: readonly {
    readonly name: string
    readonly slug: string
    readonly models: readonly { readonly name: string; readonly slug: string }[]
  }[]
}

/** The table the build resolves names with: the curated aliases and the marketplace catalogue, or an operator's extension of it. */
export function curatedTable(extension?: string): AliasTable {
  // The curated files are part of the code: read and joined once per process, however many builds it runs.
  curated ??= checked(
    withCatalogue(loadAliasTable(CURATED_ALIASES), loadCatalogue(MARKETPLACE_CATALOGUE)),
    String(CURATED_ALIASES),
  )
  return extension === undefined ? curated : checked(extendAliasTable(curated, loadAliasTable(extension)), extension)
}

let curated: AliasTable | undefined

function checked(table: AliasTable, source: string): AliasTable {
  checkTable(table, source)
  return table
}

/** Reads and checks an alias table file; a mistake names the file and the entry. */
export function loadAliasTable(path: string | URL): AliasTable {
  return parseAliasTable(readJson(path, 'alias table'), String(path))
}

/** Reads and checks a marketplace catalogue file (MarketplaceCatalogue); a mistake names the file and the entry. */
export function loadCatalogue(path: string | URL): MarketplaceCatalogue {
  const { top, record, name, list } = reader(readJson(path, 'catalogue'), `catalogue ${String(path)}`)
  const named = (x: unknown, where: string) => {
    const entry = record(x, where)
    return { entry, name: name(entry.name, `${where}.name`), slug: name(entry.slug, `${where}.slug`) }
  }
  const makes = list(top.makes, 'makes', (x, at) => {
    const make = named(x, at)
    return { name: make.name, slug: make.slug, models: list(make.entry.models, `${at}.models`, named) }
  })
  return { makes }
}

function readJson(path: string | URL, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new BuildError('invalid_alias_table', `cannot read the ${what} ${String(path)}: ${messageOf(error)}`)
  }
}

/** Readers of a JSON file's parts that name the file and the entry of a mistake. */
function reader(json: unknown, source: string) {
  const fail = (where: string, what: string): never => {
    throw new BuildError('invalid_alias_table', `${source}: ${where} ${what}`)
  }
  const record = (x: unknown, where: string): Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x)
      ? (x as Record<string, unknown>)
      : fail(where, 'must be an object')
  const name = (x: unknown, where: string): string =>
    typeof x === 'string' && normalize(x) !== '' ? x.trim() : fail(where, 'must be a non-empty name')
  const list = <T>(x: unknown, where: string, item: (x: unknown, where: string) => T): T[] =>
    x === undefined
      ? []
      : Array.isArray(x)
        ? x.map((e, i) => item(e, `${where}[${i}]`))
        : fail(where, 'must be an array')
  return { top: record(json, 'the file'), fail, record, name, list }
}

export function parseAliasTable(json: unknown, source: string): AliasTable {
  const { top, fail, record, name, list } = reader(json, `alias table ${source}`)
  const makes = list(top.makes, 'makes', (m, at) => {
    const make = record(m, at)
    return {
      name: name(make.name, `${at}.name`),
      aliases: list(make.aliases, `${at}.aliases`, name),
      models: list(make.models, `${at}.models`, (x, where) => {
        const model = record(x, where)
        const detail = model.detail === undefined ? {} : record(model.detail, `${where}.detail`)
        return {
          name: name(model.name, `${where}.name`),
          aliases: list(model.aliases, `${where}.aliases`, name),
          detail: Object.entries(detail).map(([alias, meaning]) => ({
            alias: name(alias, `${where}.detail`),
            detail: name(meaning, `${where}.detail[${JSON.stringify(alias)}]`),
          })),
        }
      }),
      families: list(make.families, `${at}.families`, (x, where) => {
        const family = record(x, where)
        const models = list(family.models, `${where}.models`, name)
        if (models.length === 0) fail(`${where}.models`, 'must name at least one model')
        return { name: name(family.name, `${where}.name`), models }
      }),
      renames: list(make.renames, `${at}.renames`, (x, where) => {
        const rename = record(x, where)
        return { from: name(rename.from, `${where}.from`), to: name(rename.to, `${where}.to`) }
      }),
      apart: list(make.apart, `${at}.apart`, name),
    }
  })
  const words = top.words === undefined ? {} : record(top.words, 'words')
  const byValue = <T extends string>(key: string, values: readonly T[]): Partial<Record<T, string[]>> => {
    const table = words[key] === undefined ? {} : record(words[key], `words.${key}`)
    return Object.fromEntries(
      Object.entries(table).map(([value, spellings]) => {
        if (!values.includes(value as T))
          fail(`words.${key}`, `names ${JSON.stringify(value)}, which is none of ${values.join(', ')}`)
        return [value, list(spellings, `words.${key}.${value}`, name)]
      }),
    ) as Partial<Record<T, string[]>>
  }
  return {
    makes,
    words: {
      fuel_type: byValue('fuel_type', FUEL_TYPES),
      gearbox: byValue('gearbox', GEARBOXES),
      body_type: byValue('body_type', BODY_TYPES),
      body_variants: list(words.body_variants, 'words.body_variants', name),
    },
  }
}

/** The curated table extended by `extra`: entries are matched by normalized name and their lists joined. */
export function extendAliasTable(base: AliasTable, extra: AliasTable): AliasTable {
  return { makes: extendMakes(base.makes, extra.makes), words: extendWords(base.words, extra.words) }
}

function extendWords(base: DetailWords, extra: DetailWords): DetailWords {
  const join = <T extends string>(
    a: Partial<Record<T, readonly string[]>>,
    b: Partial<Record<T, readonly string[]>>,
  ) => {
    const out: Partial<Record<T, readonly string[]>> = { ...a }
    for (const [value, spellings] of Object.entries(b) as [T, readonly string[]][])
      out[value] = union(out[value] ?? [], spellings)
    return out
  }
  return {
    fuel_type: join(base.fuel_type, extra.fuel_type),
    gearbox: join(base.gearbox, extra.gearbox),
    body_type: join(base.body_type, extra.body_type),
    body_variants: union(base.body_variants, extra.body_variants),
  }
}

function extendMakes(base: readonly AliasMake[], extra: readonly AliasMake[]): AliasMake[] {
  const makes = new Map(base.map((m) => [normalize(m.name), m]))
  for (const make of extra) {
    const key = normalize(make.name)
    const known = makes.get(key)
    makes.set(
      key,
      known === undefined
        ? make
        : {
            name: known.name,
            aliases: union(known.aliases, make.aliases),
            models: joinByName(known.models, make.models, (a, b) => ({
              name: a.name,
              aliases: union(a.aliases, b.aliases),
              detail: [...a.detail.filter((d) => !b.detail.some((e) => e.alias === d.alias)), ...b.detail],
            })),
            families: joinByName(known.families, make.families, (a, b) => ({
              name: a.name,
              models: union(a.models, b.models),
            })),
            renames: [...known.renames, ...make.renames],
            apart: union(known.apart, make.apart),
          },
    )
  }
  return [...makes.values()]
}

/**
 * The curated table joined with a marketplace's catalogue (contract 3.1): every make and
 * model of the catalogue is a canonical name of its own, with its display name and slug as
 * aliases. Where the curated table already names a model (the same name but for case,
 * spacing or word order: `Rapid` for `RAPID`, `370Z` for `370 Z`), the catalogue's display
 * name becomes canonical, as the marketplace writes it, and the curated name one of its
 * aliases (its families and renames follow). A catalogue entry is claimed by its own name
 * written the same (case aside) first, so that `Ka` goes to `KA` and leaves `Ka+` a model
 * of its own.
 */
export function withCatalogue(curated: AliasTable, catalogue: MarketplaceCatalogue): AliasTable {
  const makeMatcher = new NameMatcher<AliasMake>()
  for (const make of curated.makes) for (const spelling of [make.name, ...make.aliases]) makeMatcher.add(spelling, make)
  const makes = new Map(curated.makes.map((m) => [m, m]))
  for (const entry of catalogue.makes) {
    const known = makeMatcher.find(entry.name) ?? makeMatcher.find(entry.slug)
    const base = (known && makes.get(known)) ?? {
      name: entry.name,
      aliases: [],
      models: [],
      families: [],
      renames: [],
      apart: [],
    }
    const { models, renamed } = claimModels(base.models, entry.models)
    const rename = (name: string) => renamed.get(name) ?? name
    const make: AliasMake = {
      ...base,
      aliases: union(base.aliases, [entry.name, entry.slug]),
      models,
      families: base.families.map((f) => ({ name: f.name, models: f.models.map(rename) })),
      renames: base.renames.map((r) => ({ from: rename(r.from), to: rename(r.to) })),
      apart: base.apart.map(rename),
    }
    makes.set(known ?? make, make)
  }
  return { makes: [...makes.values()], words: curated.words }
}

/** A make's curated models with the catalogue's joined in (withCatalogue), and the curated names the catalogue renamed. */
function claimModels(
  curated: readonly AliasModel[],
  listed: readonly { readonly name: string; readonly slug: string }[],
): { models: AliasModel[]; renamed: Map<string, string> } {
  const claimed = new Map<AliasModel, AliasModel>()
  const renamed = new Map<string, string>()
  const claim = (entry: { name: string; slug: string }, model: AliasModel | undefined) => {
    if (model === undefined || claimed.has(model)) return false
    const name = entry.name
    if (name !== model.name) renamed.set(model.name, name)
    claimed.set(model, {
      name,
      aliases: union(model.aliases, [model.name, entry.name, entry.slug]).filter((a) => a !== name),
      detail: model.detail,
    })
    return true
  }
  const byText = new Map(curated.map((m) => [m.name.toLowerCase(), m]))
  const rest = listed.filter(
    (e) => !claim(e, byText.get(e.name.toLowerCase())) && !claim(e, byText.get(e.slug.toLowerCase())),
  )
  const matcher = new NameMatcher<AliasModel>()
  for (const model of curated) matcher.add(model.name, model)
  const own: AliasModel[] = []
  for (const e of rest) {
    if (!claim(e, matcher.find(e.name) ?? matcher.find(e.slug)))
      own.push({ name: e.name, aliases: [e.slug], detail: [] })
  }
  return { models: [...curated.map((m) => claimed.get(m) ?? m), ...own], renamed }
}

/**
 * Refuses a table that would fold models it keeps apart: an alias (or detail alias) written
 * as another model of its make (`X5 M` as an alias of `X5`, where `X5 M` is a model), or one
 * alias of two models; and a rename, or a model kept apart, the make does not have. Families pool
 * models; aliases never do.
 */
function checkTable(table: AliasTable, source: string): void {
  for (const make of table.makes) {
    const owner = new Map<string, string>()
    for (const model of make.models) owner.set(normalize(model.name), model.name)
    const aliasOf = new Map<string, string>()
    for (const model of make.models) {
      const own = normalize(model.name)
      for (const alias of [...model.aliases, ...model.detail.map((d) => d.alias)]) {
        const key = normalize(alias)
        if (key === own) continue
        const other = owner.get(key) ?? aliasOf.get(key)
        if (other !== undefined && other !== model.name)
          throw new BuildError(
            'invalid_alias_table',
            `alias table ${source}: ${make.name} ${model.name} has the alias "${alias}", which names ${make.name} ` +
              `${other}; models are kept apart (a family may pool them)`,
          )
        aliasOf.set(key, model.name)
      }
    }
    for (const rename of make.renames) {
      for (const name of [rename.from, rename.to]) {
        if (!owner.has(normalize(name)))
          throw new BuildError(
            'invalid_alias_table',
            `alias table ${source}: ${make.name} renames ${rename.from} to ${rename.to}, and ${name} is none of its models`,
          )
      }
    }
    for (const name of make.apart) {
      if (!owner.has(normalize(name)))
        throw new BuildError(
          'invalid_alias_table',
          `alias table ${source}: ${make.name} keeps ${name} apart, and it is none of its models`,
        )
    }
  }
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])]
}

function joinByName<T extends { readonly name: string }>(
  a: readonly T[],
  b: readonly T[],
  join: (a: T, b: T) => T,
): T[] {
  const byName = new Map(a.map((e) => [normalize(e.name), e]))
  for (const e of b) {
    const key = normalize(e.name)
    const known = byName.get(key)
    byName.set(key, known === undefined ? e : join(known, e))
  }
  return [...byName.values()]
}
