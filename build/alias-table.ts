import { readFileSync } from 'node:fs'
import { normalize } from '../format/normalize.js'
import { BuildError } from './build-error.js'
import { messageOf } from '../format/message-of.js'

/**
 * The alias table: canonical makes and models with the other spellings that stand for
 * them, and model families. The curated one ships as build/aliases.json; an operator's
 * own file in the same format extends it (`carmarket build --aliases FILE`).
 */
export interface AliasTable {
  readonly makes: readonly AliasMake[]
}
export interface AliasMake {
  readonly name: string
  readonly aliases: readonly string[]
  readonly models: readonly AliasModel[]
  readonly families: readonly AliasFamily[]
}
export interface AliasModel {
  readonly name: string
  readonly aliases: readonly string[]
}
export interface AliasFamily {
  readonly name: string
  readonly models: readonly string[]
}

export const CURATED_ALIASES = new URL('../../build/aliases.json', import.meta.url)

/** Reads and checks an alias table file; a mistake names the file and the entry. */
export function loadAliasTable(path: string | URL): AliasTable {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new BuildError('invalid_alias_table', `cannot read the alias table ${String(path)}: ${messageOf(error)}`)
  }
  return parseAliasTable(json, String(path))
}

export function parseAliasTable(json: unknown, source: string): AliasTable {
  const fail = (where: string, what: string): never => {
    throw new BuildError('invalid_alias_table', `alias table ${source}: ${where} ${what}`)
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

  const top = record(json, 'the file')
  const makes = list(top.makes, 'makes', (m, at) => {
    const make = record(m, at)
    return {
      name: name(make.name, `${at}.name`),
      aliases: list(make.aliases, `${at}.aliases`, name),
      models: list(make.models, `${at}.models`, (x, where) => {
        const model = record(x, where)
        return { name: name(model.name, `${where}.name`), aliases: list(model.aliases, `${where}.aliases`, name) }
      }),
      families: list(make.families, `${at}.families`, (x, where) => {
        const family = record(x, where)
        const models = list(family.models, `${where}.models`, name)
        if (models.length === 0) fail(`${where}.models`, 'must name at least one model')
        return { name: name(family.name, `${where}.name`), models }
      }),
    }
  })
  return { makes }
}

/** The curated table extended by `extra`: entries are matched by normalized name and their lists joined. */
export function extendAliasTable(base: AliasTable, extra: AliasTable): AliasTable {
  const makes = new Map(base.makes.map((m) => [normalize(m.name), m]))
  for (const make of extra.makes) {
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
            })),
            families: joinByName(known.families, make.families, (a, b) => ({
              name: a.name,
              models: union(a.models, b.models),
            })),
          },
    )
  }
  return { makes: [...makes.values()] }
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
