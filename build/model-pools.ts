import type { DetailWords } from '../format/detail-words.js'
import { normalize } from '../format/normalize.js'
import type { AliasMake } from './alias-table.js'

/**
 * A model name of the table that stands for several of its make's models (contract 3.1):
 * a base and its body variants, named by the base and a body word (`A4`: `A4 Avant`, `A4
 * Limousine`, `A4 Cabrio`; never `A4 Allroad`, `S4` or `RS4`, other cars), and a model
 * the marketplace renamed, under each of its names (`Grandland`, `Grandland X`).
 */
export interface Pool {
  /** The base's name, or a rename's later name: the name of the pool's family. */
  readonly name: string
  /** The table's model names that stand for the whole pool. */
  readonly names: readonly string[]
  /** Every model of the pool, the base (when the table has it) first. */
  readonly models: readonly string[]
  /** The model whose listings a body variant adds its body type's to, when the table has it. */
  readonly base: string | undefined
  /** The body variants, each with the body type its body words name (UNKNOWN for none, `Sportback`). */
  readonly variants: readonly { readonly name: string; readonly body: number }[]
}

/**
 * The pools of one make of the table. A model name is a body variant when the words after
 * some leading name are all body words; its base is the shortest such leading name that is
 * a model of the table, or that two or more variants share (`RS4` of `RS4 Avant` and `RS4
 * Cabrio`), unless the table keeps it apart (`Genesis Coupe`, another car). A model in a
 * pool and in a rename joins the two pools into one.
 */
export function modelPools(make: AliasMake, words: DetailWords): Pool[] {
  const models = new Map(make.models.map((m) => [normalize(m.name), m.name]))
  const apart = new Set(make.apart.map(normalize))
  const candidates = new Map<string, { base: string; variants: { name: string; body: number }[] }>()
  for (const model of make.models) {
    if (apart.has(normalize(model.name))) continue
    const parts = normalize(model.name).split(' ')
    for (let n = 1; n < parts.length; n++) {
      const body = words.bodyOf(parts.slice(n))
      if (body === undefined) continue
      const key = parts.slice(0, n).join(' ')
      const base = models.get(key) ?? model.name.split(/\s+/).slice(0, n).join(' ')
      let candidate = candidates.get(key)
      if (candidate === undefined) candidates.set(key, (candidate = { base, variants: [] }))
      candidate.variants.push({ name: model.name, body })
      break
    }
  }
  const groups = new Groups()
  for (const [key, { base, variants }] of candidates) {
    const tableBase = models.get(key)
    // One variant whose leading name is no model is a name of its own (`2 Active Tourer`, `Space Wagon`).
    if (tableBase === undefined && variants.length < 2) continue
    groups.join(base, tableBase, variants)
  }
  for (const rename of make.renames) {
    const from = models.get(normalize(rename.from))
    const to = models.get(normalize(rename.to))
    if (from !== undefined && to !== undefined) groups.rename(from, to)
  }
  return groups.pools()
}

/** Pools as they are put together: bodies first, then renames, which may join two. */
class Groups {
  private readonly byModel = new Map<string, Draft>()

  join(name: string, base: string | undefined, variants: readonly { name: string; body: number }[]): void {
    this.add({
      name,
      names: new Set(base === undefined ? [] : [base]),
      models: new Set([...(base === undefined ? [] : [base]), ...variants.map((v) => v.name)]),
      base,
      variants: [...variants],
    })
  }

  rename(from: string, to: string): void {
    this.add({ name: to, names: new Set([from, to]), models: new Set([to, from]), base: undefined, variants: [] })
  }

  /** A draft, joined with every draft that has one of its models. */
  private add(draft: Draft): void {
    let joined = draft
    for (const model of [...draft.models]) joined = this.merge(this.byModel.get(model), joined)
    for (const model of joined.models) this.byModel.set(model, joined)
  }

  pools(): Pool[] {
    const seen = new Set<Draft>()
    const out: Pool[] = []
    for (const draft of this.byModel.values()) {
      if (seen.has(draft)) continue
      seen.add(draft)
      const models = [...draft.models]
      if (draft.base !== undefined) models.sort((a, b) => Number(b === draft.base) - Number(a === draft.base))
      out.push({ name: draft.name, names: [...draft.names], models, base: draft.base, variants: draft.variants })
    }
    return out
  }

  /** One draft of two (the first may be missing). */
  private merge(a: Draft | undefined, b: Draft): Draft {
    if (a === undefined || a === b) return b
    // A body pool keeps its base's name; a rename joined to it adds its names.
    const keep = a.base !== undefined || b.base === undefined ? a : b
    const gone = keep === a ? b : a
    for (const name of gone.names) keep.names.add(name)
    for (const model of gone.models) keep.models.add(model)
    keep.variants.push(...gone.variants)
    keep.base ??= gone.base
    return keep
  }
}

interface Draft {
  readonly name: string
  readonly names: Set<string>
  readonly models: Set<string>
  base: string | undefined
  readonly variants: { name: string; body: number }[]
}
