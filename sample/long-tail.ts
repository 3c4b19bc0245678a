import type { AliasTable } from '../build/alias-table.js'
import { modelPools } from '../build/model-pools.js'
import { detailWordIndex } from '../build/name-mapping.js'
import { DetailWords } from '../format/detail-words.js'
import { isCatchAll } from '../format/name-matcher.js'
import type { FuelType } from '../format/vocabulary.js'
import { CATALOGUE, type MakeSpec, type ModelSpec } from './catalogue.js'
import { Random } from './random.js'

/**
 * The long tail of a real marketplace: every model of the curated name table (which holds
 * Otomoto's catalogue of 179 makes and 2,275 models, build/otomoto-catalogue.json) that
 * catalogue.ts does not describe gets a few to a few hundred listings over a production
 * run of its own. Real exports are like that: most make/model/year keys have fewer than
 * 10 listings, only 21-37% have more (../shared/realdata/README.md). Each model's figures
 * are drawn from its own name, so they do not move when the table gains a model. A body
 * variant or another name of a described model (`A4 Avant`, `Grandland X`) is no model of
 * its own here: the described model's listings carry its bodies and names.
 */
export function longTail(table: AliasTable, asOfYear: number): MakeSpec[] {
  const described = new Map(CATALOGUE.map((make) => [make.name, make]))
  const words = new DetailWords(detailWordIndex(table.words))
  const tail: MakeSpec[] = []
  for (const entry of table.makes) {
    const known = described.get(entry.name)
    const profile = known === undefined ? profileOf(entry.name) : describedProfile(known)
    const names = new Set(known?.models.map((m) => m.name))
    for (const pool of modelPools(entry, words)) {
      if (pool.models.some((m) => names.has(m))) for (const m of pool.models) names.add(m)
    }
    const models = entry.models
      .filter((m) => !names.has(m.name) && !isCatchAll(m.name))
      .map((m) => tailModel(`${entry.name}\u0000${m.name}`, m.name, profile, asOfYear))
    if (models.length > 0) tail.push({ name: entry.name, premium: profile.premium, models })
  }
  return tail
}

/** What a make's rare models are like: when it made cars, at what price, how driven. */
interface Profile {
  readonly years: readonly [number, number]
  readonly newPrice: number
  readonly premium: boolean
  readonly automatic: number
  readonly fuels: Readonly<Partial<Record<FuelType, number>>>
  /** Typical listings of one of its rare models in the whole market. */
  readonly listings: number
}

/**
 * A rare model: 8 to 30 years of its make's within the as-of year (a production run and
 * the years its cars stay on the road), and about as many listings as its make's rare
 * models have, a few to a few hundred.
 */
function tailModel(seed: string, name: string, profile: Profile, asOfYear: number): ModelSpec {
  const random = new Random(seed)
  const [from, to] = [profile.years[0], Math.min(profile.years[1], asOfYear)]
  const run = Math.min(to - from + 1, 8 + random.int(23))
  const last = to - random.int(to - from + 2 - run)
  return {
    name,
    listings: Math.min(500, Math.max(1, Math.round(random.logNormal(profile.listings, 0.7)))),
    years: [last - run + 1, last],
    newPrice: Math.round(random.logNormal(profile.newPrice, 0.3) / 1000) * 1000,
    automatic: profile.automatic,
    fuels: profile.fuels,
  }
}

/**
 * A make of catalogue.ts: its years, its models' median price and their fuels and
 * gearboxes; the rare models of a popular make are listed more than those of a rare make
 * (a VW Corrado more than an Aston Martin Lagonda).
 */
function describedProfile(make: MakeSpec): Profile {
  const listings = make.models.reduce((s, m) => s + m.listings, 0)
  const fuels: Partial<Record<FuelType, number>> = {}
  for (const model of make.models) {
    const total = Object.values(model.fuels).reduce((s, w) => s + w, 0)
    for (const [fuel, w] of Object.entries(model.fuels) as [FuelType, number][])
      fuels[fuel] = (fuels[fuel] ?? 0) + (w / total) * model.listings
  }
  const prices = make.models.map((m) => m.newPrice).sort((a, b) => a - b)
  return {
    years: [Math.min(...make.models.map((m) => m.years[0])), Math.max(...make.models.map((m) => m.years[1]))],
    newPrice: prices[prices.length >> 1]!,
    premium: make.premium,
    automatic: make.models.reduce((s, m) => s + m.automatic * m.listings, 0) / listings,
    fuels,
    listings: 25 + 80 * Math.sqrt(listings / 100_000),
  }
}

/** Makes catalogue.ts does not describe, by kind; the years are roughly those they sold cars in Europe. */
const KINDS: readonly (Omit<Profile, 'listings'> & { readonly makes: readonly string[] })[] = [
  {
    makes: ['Austin', 'Autobianchi', 'DKW', 'Nysa', 'Polonez', 'Simca', 'Syrena', 'Tarpan', 'Trabant', 'Triumph'],
    years: [1955, 2002],
    newPrice: 30_000,
    premium: false,
    automatic: 0.02,
    fuels: { Benzyna: 85, 'Benzyna+LPG': 15 },
  },
  {
    makes: ['Warszawa', 'Wartburg', 'Wołga', 'Zaporożec', 'Zastava', 'Żuk', 'Uaz', 'Gaz', 'Asia', 'Daihatsu', 'Tata'],
    years: [1965, 2013],
    newPrice: 40_000,
    premium: false,
    automatic: 0.05,
    fuels: { Benzyna: 70, 'Benzyna+LPG': 20, Diesel: 10 },
  },
  {
    makes: ['Buick', 'DeLorean', 'Hummer', 'Mercury', 'Oldsmobile', 'Plymouth', 'Pontiac', 'Saturn'],
    years: [1980, 2010],
    newPrice: 110_000,
    premium: false,
    automatic: 0.9,
    fuels: { Benzyna: 80, 'Benzyna+LPG': 20 },
  },
  {
    makes: ['Acura', 'Alpine', 'Genesis', 'GMC', 'Lincoln', 'RAM'],
    years: [1995, 2026],
    newPrice: 260_000,
    premium: true,
    automatic: 0.95,
    fuels: { Benzyna: 80, 'Benzyna+LPG': 10, Diesel: 5, Hybryda: 5 },
  },
  {
    makes: [
      'Aston Martin',
      'Ariel',
      'Artega',
      'BMW-ALPINA',
      'Blaval',
      'Bugatti',
      'Caterham',
      'Ineos',
      'KTM',
      'Lotus',
      'Maybach',
      'McLaren',
      'Morgan',
      'Rolls-Royce',
      'TUATARA',
      'Vanderhall',
    ],
    years: [1995, 2026],
    newPrice: 800_000,
    premium: true,
    automatic: 0.8,
    fuels: { Benzyna: 95, Diesel: 5 },
  },
  {
    makes: ['Biro', 'Casalini', 'Chatenet', 'iamelectric', 'Ligier', 'Microcar', 'Piaggio', 'SARINI'],
    years: [2000, 2026],
    newPrice: 60_000,
    premium: false,
    automatic: 0.95,
    fuels: { Diesel: 60, Elektryczny: 30, Benzyna: 10 },
  },
]

/** Makes new to Europe, most of them Chinese and electric: the catalogue's other makes. */
const NEWCOMER: Omit<Profile, 'listings'> = {
  years: [2019, 2026],
  newPrice: 160_000,
  premium: false,
  automatic: 0.95,
  fuels: { Elektryczny: 50, Benzyna: 25, 'Hybryda Plug-in': 20, Hybryda: 5 },
}

function profileOf(make: string): Profile {
  return { ...(KINDS.find((k) => k.makes.includes(make)) ?? NEWCOMER), listings: 30 }
}
