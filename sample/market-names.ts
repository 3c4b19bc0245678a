import type { BodyType } from '../format/vocabulary.js'
import type { Random } from './random.js'
import type { Spellings } from './spellings.js'

/**
 * The names today's marketplace gives some models, beside the sample catalogue's: Otomoto's
 * 2026 catalogue splits the Audi A4 by body (`A4 Avant`, `A4 Limousine`, `A4 Cabrio`), which
 * recent listings use while older exports say `A4`; and listings of a model Opel has
 * since renamed keep the name their production year was sold under (`Grandland X` until
 * 2021). The build must count both names as the same car (contract 3.1).
 */
export class MarketNames {
  /** `random` is the detail stream: naming a listing this way draws nothing from the export's own. */
  constructor(
    private readonly random: Random,
    private readonly spellings: Spellings,
  ) {}

  /** The model as the export writes it: `spelled` (the catalogue's name as spellings.ts writes it) or today's name. */
  model(make: string, model: string, year: number, body: BodyType | undefined, spelled: string): string {
    const name = this.todaysName(make, model, year, body)
    return name === undefined ? spelled : this.spellings.modelFrom(this.random, make, name)
  }

  private todaysName(make: string, model: string, year: number, body: BodyType | undefined): string | undefined {
    const byBody = BODY_NAMES.get(make)?.get(model)
    if (byBody !== undefined) {
      const name = body === undefined ? undefined : byBody[body]
      return name !== undefined && this.random.chance(BODY_NAME_SHARE) ? name : undefined
    }
    const renamed = EARLIER_NAMES.get(make)?.get(model)
    return renamed !== undefined && renamed.years[0] <= year && year <= renamed.years[1] ? renamed.name : undefined
  }
}

/** Share of the A4 listings that use the 2026 catalogue's names by body. */
const BODY_NAME_SHARE = 0.4
const BODY_NAMES = new Map<string, ReadonlyMap<string, Partial<Record<BodyType, string>>>>([
  ['Audi', new Map([['A4', { Kombi: 'A4 Avant', Sedan: 'A4 Limousine', Kabriolet: 'A4 Cabrio' }]])],
])

/** A model's earlier name and the production years sold under it (the Mokka was the Mokka X from its 2016 facelift). */
const EARLIER_NAMES = new Map<
  string,
  ReadonlyMap<string, { readonly name: string; readonly years: readonly [number, number] }>
>([
  [
    'Opel',
    new Map([
      ['Grandland', { name: 'Grandland X', years: [2017, 2021] }],
      ['Mokka', { name: 'Mokka X', years: [2016, 2019] }],
      ['Crossland', { name: 'Crossland X', years: [2017, 2020] }],
    ]),
  ],
])
