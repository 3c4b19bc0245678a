import { FUEL_TYPES, type BodyType, type FuelType } from '../format/vocabulary.js'
import type { MakeSpec, ModelSpec } from './catalogue.js'
import type { Random } from './random.js'

/**
 * What a sample listing is in more detail than its model: its version (engine and trim,
 * as Otomoto's "Wersja" names them: `2.0 TDI Highline`, `320d xDrive M Sport`), its
 * generation (`VII (2012-2020)`), its body, its power and displacement. The most listed
 * models have a table of their generations and versions (DETAIL); every other model is
 * described by its name alone, as many real listings are. A version fits the listing's
 * production year, its fuel and its gearbox (a version that names an automatic gearbox,
 * `DSG`, is an automatic), and prices the listing by its factor against the mean of the
 * versions the listing could have been, so a model-year's median stays where it was.
 */

/** The fuel an engine runs on as its version says it: a car converted to gas or ethanol has a petrol engine. */
type EngineFuel = 'Benzyna' | 'Diesel' | 'Hybryda' | 'Hybryda Plug-in' | 'Elektryczny'

export interface Version {
  readonly text: string
  /** First and last production year it was sold in. */
  readonly years: readonly [number, number]
  readonly fuel: EngineFuel
  /** KM. */
  readonly hp: number
  /** cm3; 0 for an electric car. */
  readonly cm3: number
  /** Relative number of listings among the versions of a year and fuel. */
  readonly share: number
  /** Asking price relative to the model's other versions of its year and fuel. */
  readonly factor: number
}

export interface Generation {
  /** As Otomoto writes it, production years included (which are Otomoto's, not always the car's). */
  readonly text: string
  /** The production years whose listings it is drawn for. */
  readonly years: readonly [number, number]
  readonly bodies: Bodies
}

type Bodies = Readonly<Partial<Record<BodyType, number>>>
type GenerationRow = readonly [text: string, from: number, to: number, bodies: Bodies]
type VersionRow = readonly [
  text: string,
  from: number,
  to: number,
  fuel: EngineFuel,
  hp: number,
  cm3: number,
  share: number,
  factor: number,
]
interface ModelRows {
  readonly generations: readonly GenerationRow[]
  readonly versions: readonly VersionRow[]
}

export interface ModelDetail {
  readonly generations: readonly Generation[]
  readonly versions: readonly Version[]
}

/** One listing's detail: a version only where one of the table fits its year, fuel and gearbox. */
export interface CarDetail {
  readonly version: Version | undefined
  readonly generation: string | undefined
  readonly body: BodyType | undefined
  /** The version's factor over the mean of the versions it was drawn from; 1 without a version. */
  readonly priceFactor: number
}

/** The engine fuel a listing's fuel type takes its versions from. */
export function engineFuel(fuel: FuelType): FuelType {
  return fuel === 'Benzyna+LPG' || fuel === 'Benzyna+CNG' || fuel === 'Etanol' ? 'Benzyna' : fuel
}

/** Words of Otomoto's versions that name an automatic gearbox. */
const AUTOMATIC_WORDS = /\b(DSG|S tronic|Multitronic|tiptronic|Steptronic|[79]G-TRONIC|PowerShift|Automatik|EDC)\b/

/** A version that names an automatic gearbox is one that only automatic cars have. */
export function automaticOnly(version: Version): boolean {
  return AUTOMATIC_WORDS.test(version.text)
}

/** The table of a model of the sample catalogue, or undefined for a model without one. */
export function modelDetail(make: string, model: string): ModelDetail | undefined {
  const rows = DETAIL[make]?.[model]
  if (rows === undefined) return undefined
  return {
    generations: rows.generations.map(([text, from, to, bodies]) => ({ text, years: [from, to], bodies })),
    versions: rows.versions.map(([text, from, to, fuel, hp, cm3, share, factor]) => ({
      text,
      years: [from, to],
      fuel,
      hp,
      cm3,
      share,
      factor,
    })),
  }
}

/**
 * Draws the detail of sample listings. What the listings of one model and production year
 * may be is sorted out once (ModelYear), so that drawing a listing's detail costs little
 * more than its random draws.
 */
export class Details {
  /** null for a model without a table. */
  private readonly tables = new Map<ModelSpec, ModelDetail | null>()

  constructor(private readonly random: Random) {}

  /** How listings of a model and production year are described; undefined for a model without a table. */
  of(make: MakeSpec, model: ModelSpec, year: number): ModelYear | undefined {
    let table = this.tables.get(model)
    if (table === undefined) {
      table = modelDetail(make.name, model.name) ?? null
      this.tables.set(model, table)
    }
    return table === null ? undefined : new ModelYear(table, year, this.random)
  }
}

/** What a listing of one model, production year, fuel and gearbox may be. */
interface Choice {
  readonly versions: readonly Version[]
  readonly weights: readonly number[]
  readonly total: number
  readonly meanFactor: number
  /** Per version, the generations it may be of; the last entry, those of a listing without a version. */
  readonly generations: readonly (readonly PreparedGeneration[])[]
}

interface PreparedGeneration {
  readonly text: string
  readonly years: readonly [number, number]
  readonly bodies: readonly BodyType[]
  readonly weights: readonly number[]
  readonly total: number
}

/** The listings of one model and production year: their versions by fuel and gearbox, their generations. */
export class ModelYear {
  /** By fuel (its index in FUEL_TYPES) and gearbox, made when a listing first needs it. */
  private readonly choices = new Array<Choice | undefined>(FUEL_TYPES.length * 2)
  private readonly generations: readonly PreparedGeneration[]

  constructor(
    private readonly detail: ModelDetail,
    private readonly year: number,
    private readonly random: Random,
  ) {
    this.generations = detail.generations
      .filter((g) => g.years[0] <= year && year <= g.years[1])
      .map((g) => {
        const bodies = Object.entries(g.bodies) as [BodyType, number][]
        const weights = bodies.map(([, w]) => w)
        const total = weights.reduce((s, w) => s + w, 0)
        return { text: g.text, years: g.years, bodies: bodies.map(([b]) => b), weights, total }
      })
  }

  draw(fuel: FuelType, automatic: boolean): CarDetail {
    const key = FUEL_TYPES.indexOf(fuel) * 2 + (automatic ? 1 : 0)
    const choice = this.choices[key] ?? (this.choices[key] = this.choice(engineFuel(fuel), automatic))
    const random = this.random
    const index = choice.versions.length === 0 ? 0 : random.weighted(choice.weights, choice.total)
    const version = choice.versions[index]
    const generations = choice.generations[version === undefined ? choice.versions.length : index]!
    const generation = generations.length === 0 ? undefined : random.pick(generations)
    return {
      version,
      generation: generation?.text,
      body:
        generation === undefined ? undefined : generation.bodies[random.weighted(generation.weights, generation.total)],
      priceFactor: version === undefined ? 1 : version.factor / choice.meanFactor,
    }
  }

  private choice(fuel: FuelType, automatic: boolean): Choice {
    const year = this.year
    const versions = this.detail.versions.filter(
      (v) => v.fuel === fuel && v.years[0] <= year && year <= v.years[1] && (automatic || !automaticOnly(v)),
    )
    const weights = versions.map((v) => v.share)
    const total = weights.reduce((s, w) => s + w, 0)
    // In a year two generations share, a version sold only within one of them tells which.
    const generationsOf = (v: Version) => {
      const within = this.generations.filter((g) => g.years[0] <= v.years[0] && v.years[1] <= g.years[1])
      return within.length > 0 ? within : this.generations
    }
    return {
      versions,
      weights,
      total,
      meanFactor: versions.reduce((s, v) => s + v.share * v.factor, 0) / total,
      generations: [...versions.map(generationsOf), this.generations],
    }
  }
}

const P = 'Benzyna'
const D = 'Diesel'
const HY = 'Hybryda'
const PH = 'Hybryda Plug-in'
const EV = 'Elektryczny'

/**
 * Generations and versions of the most listed models. Versions are written as Otomoto's
 * listings write them (engine, then trim, sometimes the gearbox), with their power and
 * displacement; shares and price factors are approximate, the gaps between versions of
 * one year and fuel as the market asks them (a Golf GTI about 1.45 times a 1.0 TSI, an
 * R about 1.85 times; a 330d 1.3 times a 318d). Performance versions are rare, as they
 * are on the market: a Golf R or an M340i has a handful of listings a year.
 */
const DETAIL: Readonly<Record<string, Readonly<Record<string, ModelRows>>>> = {
  Volkswagen: {
    Golf: {
      generations: [
        ['II (1983-1992)', 1985, 1991, { Kompakt: 1 }],
        ['III (1991-1997)', 1991, 1998, { Kompakt: 85, Kombi: 10, Kabriolet: 5 }],
        ['IV (1997-2003)', 1997, 2003, { Kompakt: 83, Kombi: 14, Kabriolet: 3 }],
        ['V (2003-2009)', 2003, 2009, { Kompakt: 88, Kombi: 12 }],
        ['VI (2008-2013)', 2008, 2013, { Kompakt: 82, Kombi: 14, Kabriolet: 4 }],
        ['VII (2012-2020)', 2012, 2020, { Kompakt: 78, Kombi: 22 }],
        ['VIII (2020-)', 2020, 2026, { Kompakt: 75, Kombi: 25 }],
      ],
      versions: [
        ['1.6', 1985, 1997, P, 75, 1595, 5, 0.95],
        ['1.8', 1985, 1997, P, 90, 1781, 4, 1],
        ['1.4', 1991, 1997, P, 60, 1390, 4, 0.9],
        ['2.0 GTI', 1991, 1997, P, 115, 1984, 0.5, 1.3],
        ['1.6 D', 1985, 1992, D, 54, 1588, 3, 0.9],
        ['1.9 D', 1991, 1997, D, 64, 1896, 3, 0.9],
        ['1.9 TDI', 1993, 2003, D, 90, 1896, 6, 1],
        ['1.4 16V', 1997, 2008, P, 75, 1390, 6, 0.92],
        ['1.6 Comfortline', 1997, 2003, P, 101, 1595, 5, 1],
        ['1.6 16V', 2000, 2003, P, 105, 1598, 3, 1],
        ['1.8 T GTI', 1998, 2003, P, 150, 1781, 0.8, 1.35],
        ['2.8 V6 4Motion', 1998, 2003, P, 204, 2792, 0.1, 1.35],
        ['3.2 R32 4Motion', 2002, 2008, P, 250, 3189, 0.1, 1.75],
        ['1.9 SDI', 1997, 2003, D, 68, 1896, 1.5, 0.85],
        ['1.9 TDI Comfortline', 1997, 2009, D, 105, 1896, 4, 1.02],
        ['1.9 TDI Highline', 1999, 2003, D, 130, 1896, 2, 1.08],
        ['1.6 FSI Comfortline', 2003, 2008, P, 115, 1598, 3, 1],
        ['1.6 Trendline', 2003, 2009, P, 102, 1595, 4, 0.95],
        ['1.4 TSI Comfortline', 2007, 2012, P, 122, 1390, 5, 1.05],
        ['2.0 TFSI GTI', 2004, 2009, P, 200, 1984, 1, 1.45],
        ['1.9 TDI Trendline', 2003, 2009, D, 105, 1896, 5, 0.95],
        ['2.0 TDI Comfortline', 2003, 2009, D, 140, 1968, 4, 1.1],
        ['2.0 TDI GT Sport', 2005, 2008, D, 170, 1968, 0.6, 1.2],
        ['1.2 TSI Comfortline', 2009, 2014, P, 105, 1197, 6, 1],
        ['1.4 TSI Highline', 2008, 2013, P, 160, 1390, 2.5, 1.12],
        ['1.4 TSI Highline DSG', 2008, 2013, P, 160, 1390, 1.5, 1.16],
        ['2.0 TSI GTI', 2009, 2012, P, 211, 1984, 1, 1.45],
        ['2.0 TSI R 4Motion', 2010, 2013, P, 270, 1984, 0.08, 1.8],
        ['1.6 TDI Trendline', 2009, 2017, D, 105, 1598, 4, 0.93],
        ['1.6 TDI Comfortline', 2009, 2012, D, 105, 1598, 6, 1],
        ['1.6 TDI Highline', 2009, 2020, D, 110, 1598, 2, 1.05],
        ['2.0 TDI Highline', 2008, 2012, D, 140, 1968, 3, 1.1],
        ['2.0 TDI GTD', 2009, 2013, D, 170, 1968, 0.8, 1.35],
        ['1.2 TSI Trendline', 2012, 2017, P, 110, 1197, 4, 0.95],
        ['1.2 TSI BlueMotion Technology Cup', 2013, 2015, P, 110, 1197, 1, 1],
        ['1.4 TSI ACT Highline', 2013, 2017, P, 150, 1395, 3, 1.12],
        ['1.0 TSI Trendline', 2015, 2020, P, 110, 999, 5, 1],
        ['1.0 TSI Comfortline', 2017, 2020, P, 110, 999, 4, 1.05],
        ['1.5 TSI Comfortline', 2017, 2020, P, 130, 1498, 5, 1.1],
        ['1.5 TSI Highline DSG', 2017, 2020, P, 150, 1498, 2, 1.2],
        ['2.0 TSI GTI', 2013, 2020, P, 230, 1984, 1.2, 1.45],
        ['2.0 TSI GTI Performance', 2013, 2020, P, 245, 1984, 0.3, 1.5],
        ['2.0 TSI R 4Motion', 2014, 2020, P, 300, 1984, 0.08, 1.85],
        ['1.6 TDI Comfortline', 2013, 2020, D, 110, 1598, 6, 1],
        ['2.0 TDI Comfortline', 2013, 2020, D, 150, 1968, 4, 1.1],
        ['2.0 TDI Highline', 2013, 2020, D, 150, 1968, 4, 1.15],
        ['2.0 TDI Highline DSG', 2013, 2020, D, 150, 1968, 2, 1.2],
        ['2.0 TDI GTD', 2013, 2020, D, 184, 1968, 0.8, 1.35],
        ['1.4 TSI GTE', 2014, 2020, PH, 204, 1395, 1, 1],
        ['e-Golf', 2014, 2020, EV, 136, 0, 1, 1],
        ['1.0 TSI Life', 2020, 2026, P, 110, 999, 4, 1],
        ['1.5 TSI EVO Life', 2020, 2026, P, 130, 1498, 4, 1.08],
        ['1.5 TSI EVO Style', 2020, 2026, P, 150, 1498, 3, 1.18],
        ['2.0 TSI GTI', 2021, 2026, P, 245, 1984, 1.2, 1.45],
        ['2.0 TSI R 4Motion', 2021, 2026, P, 320, 1984, 0.08, 1.85],
        ['1.0 eTSI Life DSG', 2020, 2026, HY, 110, 999, 2, 0.95],
        ['1.5 eTSI Life DSG', 2020, 2026, HY, 150, 1498, 3, 1.05],
        ['1.5 eTSI Style DSG', 2020, 2026, HY, 150, 1498, 2, 1.15],
        ['2.0 TDI Life', 2020, 2026, D, 115, 1968, 3, 1],
        ['2.0 TDI Style', 2020, 2026, D, 150, 1968, 3, 1.15],
        ['2.0 TDI GTD', 2021, 2026, D, 200, 1968, 0.6, 1.35],
        ['1.4 eHybrid Style', 2020, 2026, PH, 204, 1395, 1, 1],
        ['1.4 eHybrid GTE', 2020, 2026, PH, 245, 1395, 0.6, 1.15],
      ],
    },
    Passat: {
      generations: [
        ['B3 (1988-1993)', 1988, 1993, { Sedan: 45, Kombi: 55 }],
        ['B4 (1993-1996)', 1993, 1997, { Sedan: 40, Kombi: 60 }],
        ['B5 (1996-2005)', 1996, 2005, { Kombi: 75, Sedan: 25 }],
        ['B6 (2005-2010)', 2005, 2010, { Kombi: 75, Sedan: 25 }],
        ['B7 (2010-2014)', 2010, 2014, { Kombi: 75, Sedan: 25 }],
        ['B8 (2014-2023)', 2014, 2023, { Kombi: 75, Sedan: 25 }],
        ['B9 (2023-)', 2023, 2026, { Kombi: 1 }],
      ],
      versions: [
        ['1.8', 1988, 1996, P, 90, 1781, 4, 1],
        ['2.0', 1988, 1996, P, 115, 1984, 3, 1.05],
        ['1.9 TD', 1991, 1996, D, 75, 1896, 3, 0.95],
        ['1.9 TDI', 1993, 2005, D, 110, 1896, 6, 1],
        ['1.9 TDI Comfortline', 2000, 2005, D, 130, 1896, 4, 1.05],
        ['2.5 TDI V6 Highline', 1998, 2005, D, 163, 2496, 2, 1.15],
        ['1.6', 1996, 2005, P, 101, 1595, 3, 0.95],
        ['1.8 T', 1996, 2005, P, 150, 1781, 4, 1.05],
        ['2.0 Comfortline', 2000, 2005, P, 130, 1984, 2, 1],
        ['1.9 TDI Trendline', 2005, 2010, D, 105, 1896, 5, 0.95],
        ['2.0 TDI Comfortline', 2005, 2009, D, 140, 1968, 6, 1.03],
        ['2.0 TDI Highline', 2006, 2009, D, 170, 1968, 3, 1.12],
        ['1.6 FSI', 2005, 2008, P, 115, 1598, 2, 0.95],
        ['2.0 FSI Comfortline', 2005, 2008, P, 150, 1984, 2, 1.02],
        ['1.8 TSI Comfortline', 2007, 2010, P, 160, 1798, 3, 1.08],
        ['1.4 TSI Trendline', 2008, 2010, P, 122, 1390, 1.5, 0.98],
        ['1.6 TDI Comfortline', 2010, 2014, D, 105, 1598, 4, 0.95],
        ['2.0 TDI Comfortline', 2010, 2014, D, 140, 1968, 6, 1.03],
        ['2.0 TDI Comfortline R-Style', 2010, 2014, D, 140, 1968, 1, 1.08],
        ['2.0 TDI Highline', 2010, 2014, D, 170, 1968, 3, 1.12],
        ['1.4 TSI Comfortline', 2010, 2014, P, 122, 1390, 4, 1],
        ['1.8 TSI Highline', 2010, 2014, P, 160, 1798, 2, 1.1],
        ['1.6 TDI Comfortline', 2015, 2019, D, 120, 1598, 4, 0.95],
        ['2.0 TDI Comfortline', 2015, 2019, D, 150, 1968, 6, 1.03],
        ['2.0 TDI Highline', 2015, 2019, D, 190, 1968, 4, 1.15],
        ['2.0 TDI Highline DSG', 2015, 2019, D, 190, 1968, 3, 1.18],
        ['2.0 BiTDI 4Motion Highline', 2015, 2019, D, 240, 1968, 0.4, 1.35],
        ['1.4 TSI Comfortline', 2015, 2019, P, 150, 1395, 4, 1],
        ['1.8 TSI BMT Highline DSG', 2015, 2018, P, 180, 1798, 2, 1.12],
        ['2.0 TSI 4Motion R-Line DSG', 2016, 2023, P, 272, 1984, 0.4, 1.3],
        ['2.0 TDI Business', 2020, 2023, D, 150, 1968, 3, 1],
        ['2.0 TDI EVO Essence DSG', 2020, 2023, D, 150, 1968, 4, 1.03],
        ['2.0 TDI EVO Elegance DSG', 2020, 2023, D, 150, 1968, 3, 1.12],
        ['1.5 TSI EVO Business', 2019, 2023, P, 150, 1498, 3, 1],
        ['1.4 TSI GTE', 2015, 2023, PH, 218, 1395, 1, 1],
        ['2.0 TDI Business', 2024, 2026, D, 122, 1968, 2, 0.92],
        ['2.0 TDI EVO Business DSG', 2024, 2026, D, 150, 1968, 3, 1],
        ['2.0 TDI EVO Elegance DSG', 2024, 2026, D, 150, 1968, 4, 1.08],
        ['1.5 eTSI Business DSG', 2024, 2026, HY, 150, 1498, 2, 1],
        ['1.5 eTSI Business DSG', 2024, 2026, P, 150, 1498, 3, 1],
        ['2.0 TSI 4Motion Elegance DSG', 2024, 2026, P, 204, 1984, 1, 1.15],
        ['1.5 eHybrid Elegance DSG', 2024, 2026, PH, 204, 1498, 1, 1],
      ],
    },
    Polo: {
      generations: [
        ['II (1981-1994)', 1990, 1994, { 'Auta małe': 60, 'Auta miejskie': 40 }],
        ['III (1994-2001)', 1994, 2001, { 'Auta miejskie': 55, 'Auta małe': 25, Kombi: 12, Sedan: 8 }],
        ['IV (2001-2009)', 2001, 2009, { 'Auta miejskie': 55, 'Auta małe': 25, Kompakt: 15, Sedan: 5 }],
        ['V (2009-2017)', 2009, 2017, { 'Auta miejskie': 60, 'Auta małe': 20, Kompakt: 20 }],
        ['VI (2017-)', 2017, 2026, { 'Auta miejskie': 60, 'Auta małe': 15, Kompakt: 25 }],
      ],
      versions: [
        ['1.0', 1990, 2001, P, 50, 999, 4, 0.9],
        ['1.3', 1990, 1994, P, 55, 1272, 4, 1],
        ['1.4', 1994, 2001, P, 60, 1390, 5, 1],
        ['1.6', 1994, 2001, P, 75, 1598, 3, 1.05],
        ['1.9 SDI', 1995, 2001, D, 64, 1896, 3, 0.95],
        ['1.9 TDI', 1999, 2001, D, 90, 1896, 2, 1.05],
        ['1.2', 2001, 2009, P, 64, 1198, 6, 0.95],
        ['1.2 Trendline', 2005, 2009, P, 60, 1198, 4, 0.97],
        ['1.4 16V Comfortline', 2001, 2009, P, 80, 1390, 5, 1.05],
        ['1.8 T GTI', 2006, 2009, P, 150, 1781, 0.3, 1.45],
        ['1.4 TDI', 2001, 2009, D, 75, 1422, 4, 1],
        ['1.9 TDI', 2001, 2009, D, 100, 1896, 3, 1.05],
        ['1.2 Team', 2009, 2014, P, 60, 1198, 3, 0.95],
        ['1.2 TSI Comfortline', 2009, 2017, P, 90, 1197, 5, 1.05],
        ['1.4 Comfortline', 2009, 2014, P, 85, 1390, 4, 1],
        ['1.0 Trendline', 2014, 2017, P, 75, 999, 4, 0.95],
        ['1.4 TSI GTI', 2010, 2014, P, 180, 1390, 0.3, 1.45],
        ['1.8 TSI GTI', 2015, 2017, P, 192, 1798, 0.3, 1.45],
        ['1.2 TDI', 2009, 2014, D, 75, 1199, 3, 0.95],
        ['1.6 TDI Comfortline', 2009, 2014, D, 90, 1598, 4, 1.02],
        ['1.4 TDI', 2014, 2017, D, 90, 1422, 3, 1],
        ['1.0 Trendline', 2018, 2021, P, 65, 999, 4, 0.9],
        ['1.0 TSI Comfortline', 2017, 2021, P, 95, 999, 5, 1],
        ['1.0 TSI Highline', 2017, 2021, P, 115, 999, 3, 1.08],
        ['1.0 TGI Comfortline', 2017, 2021, P, 90, 999, 0.5, 1],
        ['1.0 TSI Life', 2021, 2026, P, 95, 999, 5, 1],
        ['1.0 TSI Style DSG', 2021, 2026, P, 110, 999, 2, 1.12],
        ['2.0 TSI GTI', 2018, 2026, P, 207, 1984, 0.3, 1.45],
        ['1.6 TDI Comfortline', 2017, 2021, D, 95, 1598, 3, 1],
      ],
    },
    Tiguan: {
      generations: [
        ['I (2007-2016)', 2007, 2016, { SUV: 1 }],
        ['II (2016-2024)', 2016, 2024, { SUV: 1 }],
        ['III (2024-)', 2024, 2026, { SUV: 1 }],
      ],
      versions: [
        ['2.0 TDI Trend&Fun', 2007, 2011, D, 140, 1968, 4, 0.95],
        ['2.0 TDI 4Motion Sport&Style', 2007, 2016, D, 140, 1968, 6, 1.02],
        ['2.0 TDI 4Motion Highline', 2011, 2016, D, 177, 1968, 3, 1.1],
        ['1.4 TSI Trend&Fun', 2007, 2016, P, 150, 1390, 5, 0.95],
        ['2.0 TSI 4Motion Sport&Style', 2007, 2016, P, 200, 1984, 2, 1.1],
        ['2.0 TDI Comfortline', 2016, 2024, D, 150, 1968, 5, 1],
        ['2.0 TDI 4Motion Highline', 2016, 2024, D, 190, 1968, 4, 1.12],
        ['2.0 TDI 4Motion R-Line DSG', 2016, 2024, D, 190, 1968, 2, 1.18],
        ['1.4 TSI Comfortline', 2016, 2018, P, 150, 1395, 5, 0.95],
        ['1.5 TSI Comfortline', 2018, 2020, P, 150, 1498, 5, 1],
        ['1.5 TSI EVO Life DSG', 2020, 2024, P, 150, 1498, 4, 1.02],
        ['2.0 TSI 4Motion R-Line', 2016, 2024, P, 220, 1984, 1.5, 1.2],
        ['2.0 TSI R 4Motion', 2020, 2024, P, 320, 1984, 0.15, 1.6],
        ['1.4 TSI eHybrid Elegance', 2021, 2024, PH, 245, 1395, 1, 1],
        ['1.5 eTSI Life DSG', 2024, 2026, HY, 150, 1498, 3, 0.97],
        ['1.5 eTSI Elegance DSG', 2024, 2026, HY, 150, 1498, 2, 1.06],
        ['2.0 TDI Life', 2024, 2026, D, 150, 1968, 2, 0.95],
        ['2.0 TDI 4Motion Elegance DSG', 2024, 2026, D, 193, 1968, 3, 1.08],
        ['2.0 TSI 4Motion R-Line DSG', 2024, 2026, P, 204, 1984, 2, 1],
        ['1.5 eHybrid Elegance DSG', 2024, 2026, PH, 272, 1498, 1, 1],
      ],
    },
  },
  Skoda: {
    Octavia: {
      generations: [
        ['I (1996-2010)', 1996, 2010, { Sedan: 60, Kombi: 40 }],
        ['II (2004-2013)', 2004, 2013, { Kombi: 60, Sedan: 35, Kompakt: 5 }],
        ['III (2013-)', 2013, 2020, { Kombi: 65, Sedan: 35 }],
        ['IV (2020-)', 2020, 2026, { Kombi: 70, Sedan: 30 }],
      ],
      versions: [
        ['1.6', 1996, 2010, P, 102, 1595, 5, 1],
        ['2.0', 1999, 2004, P, 115, 1984, 2, 1.05],
        ['1.8 T RS', 2001, 2005, P, 180, 1781, 0.4, 1.35],
        ['1.9 TDI', 1996, 2010, D, 90, 1896, 5, 0.95],
        ['1.9 TDI Elegance', 1998, 2004, D, 110, 1896, 3, 1.05],
        ['1.6 Active', 2004, 2013, P, 102, 1595, 5, 0.95],
        ['1.4 TSI Ambiente', 2008, 2013, P, 122, 1390, 4, 1.02],
        ['1.8 TSI Elegance', 2007, 2013, P, 160, 1798, 2, 1.1],
        ['1.2 TSI Active', 2010, 2013, P, 105, 1197, 3, 0.98],
        ['2.0 TFSI RS', 2005, 2013, P, 200, 1984, 0.8, 1.35],
        ['1.9 TDI Ambiente', 2004, 2009, D, 105, 1896, 5, 0.95],
        ['1.6 TDI Elegance', 2009, 2013, D, 105, 1598, 4, 1],
        ['2.0 TDI Elegance', 2004, 2013, D, 140, 1968, 4, 1.08],
        ['2.0 TDI RS', 2006, 2013, D, 170, 1968, 0.8, 1.3],
        ['1.2 TSI Active', 2014, 2016, P, 105, 1197, 3, 0.93],
        ['1.4 TSI Ambition', 2013, 2018, P, 150, 1395, 4, 1],
        ['1.0 TSI Ambition', 2017, 2020, P, 115, 999, 4, 0.95],
        ['1.5 TSI Style', 2018, 2020, P, 150, 1498, 3, 1.05],
        ['1.5 TSI ACT Ambition DSG', 2018, 2020, P, 150, 1498, 2, 1.05],
        ['1.8 TSI L&K DSG', 2013, 2020, P, 180, 1798, 0.8, 1.25],
        ['2.0 TSI RS', 2013, 2020, P, 230, 1984, 0.8, 1.4],
        ['1.6 TDI Ambition', 2013, 2020, D, 110, 1598, 6, 0.97],
        ['2.0 TDI Style', 2013, 2020, D, 150, 1968, 4, 1.05],
        ['2.0 TDI RS', 2013, 2020, D, 184, 1968, 1, 1.3],
        ['1.0 TSI Ambition', 2021, 2026, P, 110, 999, 3, 0.92],
        ['1.5 TSI Ambition', 2021, 2026, P, 150, 1498, 4, 1],
        ['1.5 TSI Style', 2021, 2026, P, 150, 1498, 3, 1.06],
        ['2.0 TSI RS', 2021, 2026, P, 245, 1984, 0.7, 1.4],
        ['2.0 TDI Ambition DSG', 2020, 2026, D, 150, 1968, 4, 1.02],
        ['2.0 TDI Style', 2020, 2026, D, 150, 1968, 3, 1.05],
        ['2.0 TDI RS', 2021, 2026, D, 200, 1968, 0.8, 1.3],
        ['1.5 e-TEC Style DSG', 2020, 2026, HY, 150, 1498, 1, 1],
        ['1.4 TSI iV Style', 2020, 2024, PH, 204, 1395, 1, 1],
        ['1.4 TSI iV RS', 2020, 2024, PH, 245, 1395, 0.6, 1.15],
      ],
    },
    Fabia: {
      generations: [
        ['I (1999-2007)', 1999, 2007, { Kompakt: 45, 'Auta miejskie': 25, Kombi: 25, Sedan: 5 }],
        ['II (2007-2014)', 2007, 2014, { Kompakt: 40, 'Auta miejskie': 30, Kombi: 25, 'Auta małe': 5 }],
        ['III (2014-2021)', 2014, 2021, { Kompakt: 40, 'Auta miejskie': 30, Kombi: 25, 'Auta małe': 5 }],
        ['IV (2021-)', 2021, 2026, { Kompakt: 55, 'Auta miejskie': 40, 'Auta małe': 5 }],
      ],
      versions: [
        ['1.4', 1999, 2007, P, 60, 1397, 5, 1],
        ['1.2', 2002, 2007, P, 54, 1198, 5, 0.95],
        ['1.4 16V Comfort', 1999, 2007, P, 75, 1390, 3, 1.05],
        ['1.9 SDI', 1999, 2007, D, 64, 1896, 2, 0.95],
        ['1.4 TDI', 2003, 2007, D, 75, 1422, 3, 1],
        ['1.9 TDI', 2000, 2007, D, 100, 1896, 3, 1.05],
        ['1.2 12V Elegance', 2007, 2014, P, 64, 1198, 4, 1],
        ['1.2 12V Active', 2007, 2014, P, 70, 1198, 5, 0.95],
        ['1.4 16V Ambiente', 2007, 2010, P, 86, 1390, 3, 1.02],
        ['1.2 TSI Active', 2010, 2014, P, 86, 1197, 4, 1.05],
        ['1.4 TSI RS', 2010, 2014, P, 180, 1390, 0.2, 1.45],
        ['1.4 TDI', 2007, 2010, D, 80, 1422, 3, 0.97],
        ['1.6 TDI Ambition', 2010, 2014, D, 90, 1598, 3, 1.03],
        ['1.0 Active', 2014, 2021, P, 75, 999, 4, 0.92],
        ['1.2 TSI Ambition', 2014, 2018, P, 90, 1197, 5, 1],
        ['1.0 TSI Ambition', 2017, 2021, P, 95, 999, 5, 1.02],
        ['1.4 TDI Ambition', 2014, 2018, D, 90, 1422, 3, 1],
        ['1.0 MPI Active', 2021, 2026, P, 80, 999, 3, 0.9],
        ['1.0 TSI Active', 2021, 2026, P, 110, 999, 4, 1],
        ['1.0 TSI Style', 2021, 2026, P, 110, 999, 3, 1.08],
        ['1.5 TSI Monte Carlo DSG', 2022, 2026, P, 150, 1498, 1, 1.2],
      ],
    },
    Superb: {
      generations: [
        ['I (2001-2008)', 2001, 2008, { Sedan: 1 }],
        ['II (2008-2018)', 2008, 2015, { Kombi: 55, Sedan: 45 }],
        ['III (2015-2023)', 2015, 2023, { Kombi: 60, Sedan: 40 }],
        ['IV (2023-)', 2023, 2026, { Kombi: 65, Sedan: 35 }],
      ],
      versions: [
        ['1.9 TDI Comfort', 2001, 2008, D, 130, 1896, 5, 1],
        ['2.5 TDI V6 Elegance', 2001, 2008, D, 163, 2496, 2, 1.1],
        ['1.8 T', 2001, 2008, P, 150, 1781, 4, 1],
        ['2.8 V6', 2001, 2006, P, 193, 2771, 1, 1.05],
        ['1.6 TDI Comfort', 2010, 2015, D, 105, 1598, 3, 0.92],
        ['2.0 TDI Elegance', 2008, 2015, D, 140, 1968, 6, 1],
        ['2.0 TDI L&K DSG', 2008, 2015, D, 170, 1968, 1.5, 1.15],
        ['1.8 TSI Elegance', 2008, 2015, P, 160, 1798, 4, 1],
        ['3.6 FSI 4x4 L&K DSG', 2008, 2015, P, 260, 3597, 0.5, 1.3],
        ['2.0 TDI Style', 2015, 2023, D, 150, 1968, 5, 1],
        ['2.0 TDI DSG Style', 2015, 2023, D, 150, 1968, 4, 1.03],
        ['2.0 TDI SCR Style DSG', 2019, 2023, D, 200, 1968, 2, 1.12],
        ['2.0 TDI 4x4 L&K DSG', 2015, 2023, D, 190, 1968, 1, 1.25],
        ['1.4 TSI Ambition', 2015, 2018, P, 150, 1395, 3, 0.95],
        ['1.5 TSI ACT Active DSG', 2018, 2023, P, 150, 1498, 3, 1],
        ['2.0 TSI 4x4 Sportline DSG', 2015, 2023, P, 280, 1984, 0.7, 1.3],
        ['1.4 TSI iV Style', 2020, 2023, PH, 218, 1395, 1, 1],
        ['2.0 TDI Selection DSG', 2024, 2026, D, 150, 1968, 4, 1],
        ['2.0 TDI 4x4 L&K DSG', 2024, 2026, D, 193, 1968, 1, 1.2],
        ['1.5 TSI Selection DSG', 2024, 2026, P, 150, 1498, 3, 1],
        ['1.5 TSI iV Selection DSG', 2024, 2026, PH, 204, 1498, 1, 1],
      ],
    },
  },
  BMW: {
    'Seria 3': {
      generations: [
        ['E36 (1990-2000)', 1990, 2000, { Sedan: 55, Coupe: 15, Kompakt: 12, Kombi: 10, Kabriolet: 8 }],
        ['E46 (1998-2007)', 1998, 2007, { Sedan: 50, Kombi: 33, Coupe: 12, Kabriolet: 5 }],
        ['E90/E91/E92/E93 (2005-2012)', 2005, 2012, { Sedan: 50, Kombi: 35, Coupe: 10, Kabriolet: 5 }],
        ['F30/F31 (2012-2020)', 2012, 2019, { Sedan: 50, Kombi: 50 }],
        ['G20/G21 (2019-)', 2019, 2026, { Sedan: 45, Kombi: 55 }],
      ],
      versions: [
        ['316i', 1990, 2000, P, 102, 1596, 4, 0.9],
        ['318i', 1990, 2000, P, 115, 1796, 5, 1],
        ['320i', 1990, 2000, P, 150, 1991, 3, 1.1],
        ['318tds', 1994, 2000, D, 90, 1665, 3, 0.95],
        ['325td', 1990, 1993, D, 115, 2497, 2, 1],
        ['325tds', 1993, 2000, D, 143, 2498, 2, 1.05],
        ['316i', 2001, 2005, P, 105, 1796, 3, 0.9],
        ['318i', 2001, 2005, P, 143, 1995, 5, 1],
        ['320i', 2001, 2005, P, 170, 2171, 3, 1.08],
        ['330i', 2000, 2006, P, 231, 2979, 1, 1.25],
        ['318d', 2003, 2007, D, 116, 1995, 2, 0.95],
        ['320d', 1998, 2007, D, 150, 1995, 6, 1],
        ['330d', 1999, 2007, D, 204, 2926, 2, 1.2],
        ['318i', 2005, 2012, P, 143, 1995, 5, 1],
        ['320i', 2005, 2012, P, 170, 1995, 4, 1.05],
        ['325i', 2005, 2012, P, 218, 2996, 1.5, 1.2],
        ['335i', 2006, 2012, P, 306, 2979, 0.5, 1.4],
        ['318d', 2007, 2012, D, 143, 1995, 4, 0.95],
        ['320d', 2005, 2012, D, 177, 1995, 6, 1],
        ['320d xDrive', 2008, 2012, D, 184, 1995, 2, 1.08],
        ['330d', 2005, 2012, D, 245, 2993, 1.5, 1.25],
        ['318i GPF Advantage', 2015, 2019, P, 136, 1499, 3, 0.92],
        ['320i', 2012, 2019, P, 184, 1997, 4, 1],
        ['328i', 2012, 2015, P, 245, 1997, 1.5, 1.15],
        ['330i', 2016, 2019, P, 252, 1998, 1.5, 1.2],
        ['340i xDrive', 2016, 2019, P, 326, 2998, 0.3, 1.5],
        ['316d', 2012, 2019, D, 116, 1995, 3, 0.92],
        ['318d', 2012, 2019, D, 150, 1995, 5, 0.95],
        ['318d xDrive Sport Line', 2013, 2019, D, 143, 1995, 2, 1],
        ['320d', 2012, 2019, D, 190, 1995, 6, 1.03],
        ['320d xDrive M Sport', 2012, 2019, D, 190, 1995, 4, 1.15],
        ['330d xDrive', 2012, 2019, D, 258, 2993, 2, 1.25],
        ['335d xDrive', 2013, 2019, D, 313, 2993, 0.6, 1.35],
        ['330e', 2016, 2019, PH, 252, 1998, 1, 1],
        ['318i', 2020, 2026, P, 156, 1998, 3, 0.9],
        ['320i M Sport', 2019, 2026, P, 184, 1998, 4, 1],
        ['330i', 2019, 2026, P, 258, 1998, 3, 1.12],
        ['M340i xDrive', 2019, 2026, P, 374, 2998, 0.25, 1.55],
        ['318d', 2019, 2026, D, 150, 1995, 5, 0.92],
        ['320d', 2019, 2026, D, 190, 1995, 4, 1],
        ['320d xDrive M Sport', 2019, 2026, D, 190, 1995, 5, 1.1],
        ['330d xDrive', 2019, 2026, D, 286, 2993, 1.5, 1.2],
        ['330e', 2019, 2026, PH, 292, 1998, 2, 1.05],
        ['320e', 2021, 2026, PH, 204, 1998, 1, 0.95],
      ],
    },
    'Seria 5': {
      generations: [
        ['E34 (1988-1996)', 1990, 1995, { Sedan: 75, Kombi: 25 }],
        ['E39 (1995-2004)', 1995, 2004, { Sedan: 70, Kombi: 30 }],
        ['E60/E61 (2003-2010)', 2003, 2010, { Sedan: 60, Kombi: 40 }],
        ['F10/F11 (2009-2017)', 2009, 2017, { Sedan: 55, Kombi: 45 }],
        ['G30/G31 (2017-2023)', 2017, 2023, { Sedan: 55, Kombi: 45 }],
        ['G60/G61 (2023-)', 2023, 2026, { Sedan: 50, Kombi: 50 }],
      ],
      versions: [
        ['520i', 1990, 2003, P, 150, 1991, 5, 1],
        ['525i', 1990, 2003, P, 192, 2494, 3, 1.1],
        ['525tds', 1990, 2000, D, 143, 2498, 3, 1],
        ['523i', 1995, 2000, P, 170, 2494, 3, 1.05],
        ['528i', 1995, 2000, P, 193, 2793, 2, 1.1],
        ['540i', 1996, 2003, P, 286, 4398, 0.5, 1.35],
        ['520d', 2000, 2003, D, 136, 1951, 3, 0.95],
        ['525d', 2000, 2003, D, 163, 2497, 3, 1],
        ['530d', 1998, 2003, D, 193, 2926, 4, 1.1],
        ['520i', 2003, 2010, P, 170, 2171, 3, 0.95],
        ['525i', 2003, 2010, P, 218, 2497, 3, 1],
        ['530i', 2005, 2010, P, 258, 2996, 2, 1.12],
        ['520d', 2005, 2010, D, 177, 1995, 6, 0.95],
        ['525d', 2004, 2010, D, 197, 2993, 3, 1],
        ['525xd Edition Exclusive', 2008, 2010, D, 197, 2993, 1, 1.05],
        ['530d', 2003, 2010, D, 235, 2993, 4, 1.1],
        ['535d', 2004, 2010, D, 286, 2993, 1, 1.2],
        ['520i', 2011, 2017, P, 184, 1997, 3, 0.95],
        ['528i', 2011, 2016, P, 245, 1997, 3, 1.05],
        ['535i', 2009, 2016, P, 306, 2979, 1, 1.2],
        ['520d', 2010, 2017, D, 184, 1995, 7, 0.95],
        ['520d xDrive', 2012, 2017, D, 190, 1995, 3, 1],
        ['525d', 2011, 2017, D, 218, 1995, 3, 1.02],
        ['525d xDrive', 2011, 2017, D, 218, 1995, 2, 1.06],
        ['530d', 2009, 2017, D, 245, 2993, 4, 1.12],
        ['535d xDrive', 2010, 2017, D, 313, 2993, 1, 1.25],
        ['520i', 2017, 2023, P, 184, 1998, 3, 0.95],
        ['530i xDrive', 2017, 2023, P, 252, 1998, 3, 1.08],
        ['540i xDrive', 2017, 2023, P, 340, 2998, 1, 1.25],
        ['M550i xDrive', 2017, 2023, P, 530, 4395, 0.2, 1.7],
        ['520d', 2017, 2023, D, 190, 1995, 6, 0.95],
        ['520d xDrive M Sport', 2017, 2023, D, 190, 1995, 4, 1.05],
        ['530d xDrive', 2017, 2023, D, 286, 2993, 3, 1.15],
        ['540d xDrive', 2017, 2023, D, 340, 2993, 0.8, 1.3],
        ['530e', 2017, 2023, PH, 292, 1998, 3, 1],
        ['545e xDrive', 2020, 2023, PH, 394, 2998, 0.5, 1.25],
        ['520i', 2024, 2026, P, 208, 1998, 3, 1],
        ['520d xDrive', 2024, 2026, D, 197, 1995, 4, 1],
        ['530e', 2024, 2026, PH, 299, 1998, 2, 1],
        ['550e xDrive', 2024, 2026, PH, 489, 2998, 0.5, 1.3],
      ],
    },
    X5: {
      generations: [
        ['E53 (1999-2006)', 1999, 2006, { SUV: 1 }],
        ['E70 (2007-2013)', 2007, 2013, { SUV: 1 }],
        ['F15 (2013-2018)', 2013, 2018, { SUV: 1 }],
        ['G05 (2018-)', 2018, 2026, { SUV: 1 }],
      ],
      versions: [
        ['3.0d', 1999, 2006, D, 218, 2993, 6, 1],
        ['3.0i', 1999, 2006, P, 231, 2979, 3, 0.95],
        ['4.4i', 1999, 2006, P, 320, 4398, 2, 1.1],
        ['xDrive30d', 2007, 2013, D, 245, 2993, 7, 1],
        ['xDrive35d', 2008, 2010, D, 286, 2993, 2, 1.08],
        ['xDrive40d', 2010, 2013, D, 306, 2993, 2, 1.12],
        ['xDrive30i', 2007, 2010, P, 272, 2996, 2, 0.95],
        ['xDrive50i', 2010, 2013, P, 407, 4395, 1, 1.2],
        ['xDrive25d', 2013, 2018, D, 231, 1995, 3, 0.92],
        ['xDrive30d', 2013, 2018, D, 258, 2993, 6, 1],
        ['xDrive30d M Sport', 2013, 2018, D, 258, 2993, 2, 1.08],
        ['xDrive40d', 2013, 2018, D, 313, 2993, 2, 1.1],
        ['M50d', 2013, 2018, D, 381, 2993, 0.6, 1.3],
        ['xDrive35i', 2013, 2018, P, 306, 2979, 2, 1],
        ['xDrive50i', 2013, 2018, P, 450, 4395, 1, 1.2],
        ['xDrive40e', 2015, 2018, PH, 313, 1997, 1, 1],
        ['xDrive30d', 2018, 2026, D, 286, 2993, 6, 1],
        ['xDrive30d M Sport', 2018, 2026, D, 286, 2993, 3, 1.08],
        ['xDrive40d', 2020, 2026, D, 352, 2993, 2, 1.1],
        ['M50d', 2018, 2020, D, 400, 2993, 0.5, 1.3],
        ['xDrive40i', 2018, 2026, P, 381, 2998, 3, 1],
        ['M50i', 2020, 2026, P, 530, 4395, 0.5, 1.3],
        ['xDrive45e', 2019, 2023, PH, 394, 2998, 2, 1],
        ['xDrive50e', 2023, 2026, PH, 489, 2998, 2, 1.08],
      ],
    },
  },
  Toyota: {
    Corolla: {
      generations: [
        ['Seria E10 (1991-1997)', 1990, 1997, { Kompakt: 50, Sedan: 35, Kombi: 15 }],
        ['Seria E11 (1997-2001)', 1997, 2001, { Kompakt: 50, Sedan: 30, Kombi: 20 }],
        ['Seria E12 (2001-2007)', 2001, 2007, { Kompakt: 45, Sedan: 35, Kombi: 20 }],
        ['Seria E15 (2007-2013)', 2007, 2013, { Sedan: 1 }],
        ['Seria E16 (2012-2019)', 2013, 2019, { Sedan: 1 }],
        ['Seria E21 (2019-)', 2019, 2026, { Kompakt: 40, Kombi: 35, Sedan: 25 }],
      ],
      versions: [
        ['1.3', 1990, 1997, P, 75, 1295, 4, 0.95],
        ['1.6', 1990, 2001, P, 110, 1587, 4, 1.05],
        ['1.4', 1997, 2001, P, 97, 1398, 4, 1],
        ['2.0 D', 1990, 2001, D, 72, 1975, 3, 1],
        ['1.4 VVT-i Sol', 2001, 2007, P, 97, 1398, 5, 1],
        ['1.6 VVT-i Terra', 2001, 2007, P, 110, 1598, 4, 1.02],
        ['2.0 D-4D', 2001, 2007, D, 116, 1995, 3, 1.05],
        ['1.4 D-4D', 2004, 2007, D, 90, 1364, 3, 1],
        ['1.33 Dual VVT-i', 2009, 2013, P, 101, 1329, 4, 0.95],
        ['1.6 Dual VVT-i Sol', 2007, 2013, P, 124, 1598, 5, 1.02],
        ['1.4 D-4D Luna', 2007, 2013, D, 90, 1364, 4, 0.97],
        ['2.0 D-4D', 2007, 2009, D, 126, 1998, 2, 1.05],
        ['1.33 Active', 2013, 2019, P, 99, 1329, 4, 0.93],
        ['1.6 Comfort', 2013, 2022, P, 132, 1598, 6, 1],
        ['1.6 Prestige MS EU6', 2015, 2019, P, 132, 1598, 1, 1.05],
        ['1.2 Turbo Comfort', 2016, 2020, P, 116, 1197, 2, 1],
        ['1.4 D-4D Active', 2013, 2018, D, 90, 1364, 4, 1],
        ['1.5 Comfort', 2019, 2026, P, 125, 1490, 4, 1.02],
        ['1.8 Hybrid Comfort', 2019, 2022, HY, 122, 1798, 6, 1],
        ['1.8 Hybrid Style', 2019, 2022, HY, 122, 1798, 3, 1.06],
        ['2.0 Hybrid Executive', 2019, 2022, HY, 184, 1987, 2, 1.2],
        ['1.8 Hybrid Comfort', 2023, 2026, HY, 140, 1798, 6, 1],
        ['2.0 Hybrid Executive', 2023, 2026, HY, 196, 1987, 2, 1.2],
        ['2.0 Hybrid GR Sport', 2020, 2026, HY, 196, 1987, 1.5, 1.3],
      ],
    },
    Yaris: {
      generations: [
        ['I (1999-2005)', 1999, 2005, { Kompakt: 20, 'Auta małe': 40, 'Auta miejskie': 40 }],
        ['II (2005-2011)', 2005, 2011, { 'Auta miejskie': 55, 'Auta małe': 35, Kompakt: 10 }],
        ['III (2011-2019)', 2011, 2019, { 'Auta miejskie': 55, 'Auta małe': 35, Kompakt: 10 }],
        ['IV (2020-)', 2020, 2026, { 'Auta miejskie': 60, 'Auta małe': 30, Kompakt: 10 }],
      ],
      versions: [
        ['1.0', 1999, 2005, P, 68, 998, 5, 0.95],
        ['1.3 VVT-i', 1999, 2005, P, 87, 1298, 4, 1.05],
        ['1.4 D-4D', 2002, 2011, D, 75, 1364, 3, 1],
        ['1.0 VVT-i', 2005, 2011, P, 69, 998, 5, 0.95],
        ['1.3 VVT-i Luna', 2005, 2011, P, 87, 1298, 4, 1.05],
        ['1.0 VVT-i Active', 2011, 2019, P, 69, 998, 4, 0.93],
        ['1.33 Trend', 2011, 2019, P, 99, 1329, 5, 1.02],
        ['1.4 D-4D', 2012, 2019, D, 90, 1364, 2, 1],
        ['1.5 Hybrid Premium', 2012, 2019, HY, 100, 1497, 5, 1],
        ['1.0 VVT-i Active', 2020, 2026, P, 72, 998, 3, 0.92],
        ['1.5 Comfort', 2020, 2026, P, 125, 1490, 3, 1.05],
        ['1.5 Hybrid Comfort', 2020, 2026, HY, 116, 1490, 6, 1],
        ['1.5 Hybrid Executive', 2020, 2026, HY, 116, 1490, 3, 1.1],
      ],
    },
    RAV4: {
      generations: [
        ['I (1994-2000)', 1994, 2000, { SUV: 1 }],
        ['II (2000-2005)', 2000, 2005, { SUV: 1 }],
        ['III (2006-2012)', 2006, 2012, { SUV: 1 }],
        ['IV (2012-2018)', 2013, 2018, { SUV: 1 }],
        ['V (2018-)', 2018, 2026, { SUV: 1 }],
      ],
      versions: [
        ['2.0 4x4', 1994, 2000, P, 129, 1998, 5, 1],
        ['2.0 VVT-i 4x4', 2000, 2005, P, 150, 1998, 5, 1],
        ['2.0 D-4D 4x4', 2001, 2005, D, 116, 1995, 5, 1],
        ['2.0 VVT-i 4x4 Sol', 2006, 2012, P, 152, 1998, 5, 1],
        ['2.2 D-4D Premium', 2006, 2012, D, 136, 2231, 5, 1],
        ['2.2 D-CAT 4x4', 2006, 2012, D, 177, 2231, 2, 1.08],
        ['2.0 Silver 4x4', 2013, 2018, P, 152, 1987, 5, 1],
        ['2.0 D-4D Premium', 2013, 2018, D, 143, 1995, 5, 1],
        ['2.5 Hybrid Premium', 2015, 2018, HY, 197, 2494, 4, 1],
        ['2.5 Hybrid Prestige 4x4', 2015, 2018, HY, 197, 2494, 2, 1.08],
        ['2.0 Comfort', 2018, 2022, P, 175, 1987, 5, 1],
        ['2.5 Hybrid Comfort', 2018, 2026, HY, 218, 2487, 5, 1],
        ['2.5 Hybrid Selection 4x4', 2019, 2026, HY, 222, 2487, 3, 1.1],
        ['2.5 Hybrid Executive 4x4', 2019, 2026, HY, 222, 2487, 2, 1.15],
        ['2.5 Plug-in Hybrid Executive 4x4', 2020, 2026, PH, 306, 2487, 1, 1],
      ],
    },
  },
  Opel: {
    Astra: {
      generations: [
        ['F (1991-1998)', 1991, 1998, { Kompakt: 55, Kombi: 25, Sedan: 20 }],
        ['G (1998-2009)', 1998, 2004, { Kompakt: 55, Kombi: 28, Sedan: 12, Coupe: 3, Kabriolet: 2 }],
        ['H (2004-2014)', 2004, 2010, { Kompakt: 55, Kombi: 35, Sedan: 7, Kabriolet: 3 }],
        ['J (2009-2019)', 2009, 2016, { Kompakt: 55, Kombi: 40, Sedan: 5 }],
        ['K (2015-2021)', 2015, 2021, { Kompakt: 55, Kombi: 45 }],
        ['L (2021-)', 2021, 2026, { Kompakt: 55, Kombi: 45 }],
      ],
      versions: [
        ['1.4', 1991, 1998, P, 60, 1389, 5, 0.95],
        ['1.6', 1991, 2004, P, 75, 1598, 5, 1],
        ['1.7 TD', 1991, 1998, D, 68, 1686, 3, 1],
        ['1.4 16V', 1998, 2004, P, 90, 1389, 4, 1],
        ['1.6 16V', 1998, 2004, P, 100, 1598, 4, 1.03],
        ['1.8 16V', 1998, 2004, P, 125, 1796, 2, 1.08],
        ['1.7 DTI', 2000, 2004, D, 75, 1686, 3, 0.97],
        ['2.0 DTI', 1998, 2004, D, 100, 1995, 3, 1.03],
        ['1.4 Enjoy', 2004, 2010, P, 90, 1364, 5, 0.97],
        ['1.6 Cosmo', 2004, 2010, P, 115, 1598, 4, 1.03],
        ['1.6 111 EasyTronic', 2009, 2010, P, 115, 1598, 0.5, 1],
        ['2.0 Turbo OPC', 2005, 2010, P, 240, 1998, 0.2, 1.45],
        ['1.3 CDTI', 2005, 2010, D, 90, 1248, 3, 0.95],
        ['1.7 CDTI', 2004, 2010, D, 110, 1686, 5, 1],
        ['1.9 CDTI Cosmo', 2004, 2010, D, 150, 1910, 3, 1.08],
        ['1.4 Enjoy', 2010, 2016, P, 100, 1398, 3, 0.92],
        ['1.4 Turbo', 2010, 2016, P, 140, 1364, 4, 1],
        ['1.4 Turbo Cosmo', 2010, 2016, P, 140, 1364, 3, 1.05],
        ['1.6 Enjoy', 2009, 2015, P, 115, 1598, 4, 0.95],
        ['2.0 Turbo OPC', 2012, 2015, P, 280, 1998, 0.2, 1.5],
        ['1.7 CDTI Enjoy', 2009, 2015, D, 125, 1686, 5, 1],
        ['1.6 CDTI', 2013, 2016, D, 136, 1598, 2, 1.05],
        ['2.0 CDTI Cosmo', 2009, 2015, D, 165, 1956, 2, 1.1],
        ['1.0 Turbo Start/Stop Edition', 2015, 2019, P, 105, 999, 3, 0.93],
        ['1.4 T Dynamic', 2015, 2019, P, 125, 1399, 3, 1],
        ['1.4 Turbo Start/Stop Business', 2015, 2019, P, 150, 1399, 3, 1.03],
        ['1.4 Turbo Start/Stop Automatik Dynamic', 2015, 2021, P, 150, 1399, 1, 1.08],
        ['1.6 Turbo Start/Stop Dynamic', 2016, 2019, P, 200, 1598, 0.4, 1.2],
        ['1.2 Turbo Edition', 2019, 2021, P, 130, 1199, 3, 1],
        ['1.6 CDTI Enjoy', 2015, 2019, D, 110, 1598, 5, 1],
        ['1.6 CDTI Dynamic', 2015, 2019, D, 136, 1598, 3, 1.06],
        ['1.5 CDTI Edition', 2019, 2021, D, 122, 1496, 3, 1],
        ['1.2 T Edition', 2021, 2026, P, 110, 1199, 4, 0.95],
        ['1.2 T GS Line', 2021, 2026, P, 130, 1199, 3, 1.05],
        ['1.5 D Business Edition', 2021, 2026, D, 130, 1499, 4, 1],
        ['1.6 T Plug-in Hybrid GS Line', 2022, 2026, PH, 180, 1598, 1, 1],
      ],
    },
    Insignia: {
      generations: [
        ['A (2008-2017)', 2008, 2017, { Kombi: 55, Sedan: 45 }],
        ['B (2017-)', 2017, 2022, { Kombi: 55, Sedan: 45 }],
      ],
      versions: [
        ['2.0 CDTI', 2008, 2017, D, 160, 1956, 6, 1],
        ['2.0 CDTI Cosmo', 2008, 2013, D, 130, 1956, 4, 0.97],
        ['2.0 CDTI ecoFLEXStart/Stop', 2011, 2017, D, 140, 1956, 4, 1],
        ['1.6 CDTI', 2015, 2017, D, 136, 1598, 2, 1],
        ['1.8 Edition', 2008, 2013, P, 140, 1796, 4, 0.95],
        ['1.4 Turbo', 2010, 2017, P, 140, 1364, 4, 1],
        ['2.0 Turbo 4x4 Cosmo', 2008, 2017, P, 250, 1998, 1, 1.2],
        ['2.8 V6 OPC', 2009, 2013, P, 325, 2792, 0.1, 1.5],
        ['1.6 CDTI Sport', 2017, 2022, D, 136, 1598, 4, 0.95],
        ['2.0 CDTI Elite S&S', 2017, 2020, D, 170, 1956, 3, 1.08],
        ['2.0 CDTI Business Elegance S&S', 2020, 2022, D, 174, 1995, 3, 1.05],
        ['2.0 BiTurbo CDTI 4x4 GSi', 2017, 2020, D, 210, 1956, 0.5, 1.3],
        ['1.5 Turbo Innovation', 2017, 2022, P, 165, 1490, 4, 1],
        ['2.0 Turbo 4x4 GSi', 2017, 2022, P, 260, 1998, 0.5, 1.3],
      ],
    },
    Corsa: {
      generations: [
        ['B (1993-2000)', 1993, 2000, { 'Auta małe': 50, 'Auta miejskie': 45, Kompakt: 5 }],
        ['C (2000-2006)', 2000, 2006, { 'Auta małe': 40, 'Auta miejskie': 50, Kompakt: 10 }],
        ['D (2006-2014)', 2006, 2014, { 'Auta miejskie': 55, 'Auta małe': 30, Kompakt: 15 }],
        ['E (2014-2019)', 2014, 2019, { 'Auta miejskie': 55, 'Auta małe': 30, Kompakt: 15 }],
        ['F (2019-)', 2019, 2026, { 'Auta miejskie': 60, 'Auta małe': 25, Kompakt: 15 }],
      ],
      versions: [
        ['1.2', 1993, 2000, P, 45, 1196, 5, 0.95],
        ['1.4', 1993, 2000, P, 60, 1389, 4, 1.05],
        ['1.0 12V', 1997, 2006, P, 58, 973, 4, 0.93],
        ['1.5 D', 1993, 2000, D, 50, 1488, 3, 1],
        ['1.2 16V', 2000, 2006, P, 75, 1199, 5, 1],
        ['1.4 16V', 2000, 2006, P, 90, 1389, 3, 1.05],
        ['1.7 DI', 2000, 2006, D, 65, 1686, 3, 0.97],
        ['1.3 CDTI', 2003, 2014, D, 75, 1248, 4, 1],
        ['1.0 12V', 2006, 2014, P, 60, 998, 3, 0.9],
        ['1.2 16V Energy', 2006, 2014, P, 70, 1229, 4, 0.97],
        ['1.2 16V Limited Edition', 2009, 2014, P, 80, 1229, 2, 1],
        ['1.4 16V Cosmo', 2006, 2014, P, 100, 1364, 3, 1.07],
        ['1.6 Turbo OPC', 2007, 2014, P, 192, 1598, 0.2, 1.45],
        ['1.2 16V Enjoy', 2014, 2019, P, 70, 1229, 4, 0.95],
        ['1.4 16V Color Edition', 2014, 2019, P, 90, 1364, 3, 1],
        ['1.0 Turbo Cosmo', 2014, 2019, P, 115, 999, 2, 1.08],
        ['1.3 CDTI Enjoy', 2014, 2019, D, 95, 1248, 3, 1],
        ['1.2 Edition', 2019, 2026, P, 75, 1199, 4, 0.92],
        ['1.2 Turbo Elegance', 2019, 2026, P, 100, 1199, 3, 1.03],
        ['1.2 Turbo GS Line', 2019, 2026, P, 130, 1199, 2, 1.1],
        ['1.5 Diesel Edition', 2019, 2023, D, 102, 1499, 3, 1],
        ['50kWh Edition', 2020, 2026, EV, 136, 0, 2, 0.95],
        ['50kWh GS Line', 2020, 2026, EV, 136, 0, 1, 1.08],
      ],
    },
  },
  Audi: {
    A4: {
      generations: [
        ['B5 (1994-2001)', 1994, 2001, { Sedan: 50, Kombi: 50 }],
        ['B6 (2000-2004)', 2000, 2004, { Kombi: 55, Sedan: 35, Kabriolet: 10 }],
        ['B7 (2004-2007)', 2004, 2008, { Kombi: 55, Sedan: 35, Kabriolet: 10 }],
        ['B8 (2007-2015)', 2008, 2015, { Kombi: 60, Sedan: 40 }],
        ['B9 (2015-)', 2015, 2025, { Kombi: 62, Sedan: 38 }],
      ],
      versions: [
        ['1.6', 1994, 2004, P, 101, 1595, 3, 0.95],
        ['1.8', 1994, 2001, P, 125, 1781, 4, 1],
        ['1.8 T', 1995, 2004, P, 150, 1781, 4, 1.05],
        ['2.4 V6', 1997, 2001, P, 165, 2393, 1, 1.05],
        ['1.9 TDI', 1995, 2004, D, 110, 1896, 6, 1],
        ['2.5 TDI V6 quattro', 1997, 2004, D, 150, 2496, 2, 1.08],
        ['2.0', 2000, 2004, P, 130, 1984, 3, 1],
        ['3.0 V6 quattro', 2001, 2004, P, 220, 2976, 0.5, 1.2],
        ['1.9 TDI', 2004, 2008, D, 116, 1896, 5, 0.95],
        ['2.0 TDI', 2004, 2008, D, 140, 1968, 6, 1],
        ['2.7 TDI Multitronic', 2005, 2008, D, 180, 2698, 1.5, 1.08],
        ['3.0 TDI quattro', 2004, 2008, D, 233, 2967, 1, 1.18],
        ['2.0 TFSI', 2004, 2008, P, 200, 1984, 2, 1.08],
        ['1.8 T quattro', 2004, 2008, P, 163, 1781, 2, 1],
        ['1.8 TFSI', 2008, 2015, P, 160, 1798, 4, 0.95],
        ['1.8 TFSI Multitronic', 2008, 2015, P, 170, 1798, 2, 1],
        ['2.0 TFSI quattro', 2008, 2015, P, 211, 1984, 2, 1.12],
        ['2.0 TDI', 2008, 2015, D, 143, 1968, 6, 0.95],
        ['2.0 TDI Multitronic', 2008, 2015, D, 150, 1968, 3, 1],
        ['2.0 TDI quattro S line', 2008, 2015, D, 177, 1968, 2, 1.12],
        ['3.0 TDI quattro', 2008, 2015, D, 245, 2967, 1.5, 1.2],
        ['1.4 TFSI', 2015, 2018, P, 150, 1395, 3, 0.92],
        ['2.0 TFSI quattro S tronic', 2015, 2019, P, 252, 1984, 1.5, 1.12],
        ['35 TFSI S tronic', 2019, 2025, P, 150, 1984, 3, 1],
        ['35 TFSI Advanced', 2019, 2025, P, 150, 1984, 1.5, 0.97],
        ['45 TFSI quattro S tronic', 2019, 2025, P, 265, 1984, 1, 1.15],
        ['2.0 TDI', 2015, 2019, D, 150, 1968, 5, 0.95],
        ['2.0 TDI S tronic', 2015, 2019, D, 190, 1968, 4, 1.02],
        ['3.0 TDI quattro tiptronic', 2015, 2019, D, 272, 2967, 1, 1.2],
        ['35 TDI S tronic', 2019, 2025, D, 163, 1968, 4, 1],
        ['35 TDI Advanced', 2019, 2025, D, 163, 1968, 2, 0.97],
        ['40 TDI quattro S tronic S line', 2019, 2025, D, 204, 1968, 3, 1.12],
        ['35 TFSI mHEV S tronic', 2020, 2025, HY, 150, 1984, 1, 1],
      ],
    },
    A6: {
      generations: [
        ['C4 (1994-1997)', 1994, 1997, { Sedan: 60, Kombi: 40 }],
        ['C5 (1999-2005)', 1997, 2004, { Sedan: 50, Kombi: 50 }],
        ['C6 (2006-2011)', 2004, 2011, { Sedan: 50, Kombi: 50 }],
        ['C7 (2011-2018)', 2011, 2018, { Sedan: 50, Kombi: 50 }],
        ['C8 (2018-)', 2018, 2026, { Sedan: 45, Kombi: 55 }],
      ],
      versions: [
        ['2.0', 1994, 1997, P, 101, 1984, 3, 0.95],
        ['2.6 V6', 1994, 1997, P, 150, 2598, 2, 1.05],
        ['2.5 TDI', 1994, 1997, D, 140, 2461, 4, 1],
        ['1.8 T', 1997, 2004, P, 150, 1781, 3, 0.95],
        ['2.4 V6', 1997, 2004, P, 170, 2393, 3, 1],
        ['2.7 T quattro', 1999, 2004, P, 250, 2671, 0.8, 1.2],
        ['1.9 TDI', 1997, 2004, D, 130, 1896, 5, 0.95],
        ['2.5 TDI V6', 1997, 2004, D, 163, 2496, 5, 1.03],
        ['2.4', 2004, 2008, P, 177, 2393, 3, 0.95],
        ['2.0 TFSI', 2004, 2011, P, 170, 1984, 3, 1],
        ['3.2 FSI quattro', 2004, 2008, P, 255, 3123, 1, 1.12],
        ['2.8 FSI', 2008, 2011, P, 210, 2773, 1, 1.08],
        ['2.0 TDI', 2004, 2011, D, 140, 1968, 5, 0.95],
        ['2.7 TDI', 2004, 2011, D, 190, 2698, 4, 1.03],
        ['3.0 TDI quattro', 2004, 2011, D, 240, 2967, 3, 1.12],
        ['2.0 TFSI', 2011, 2018, P, 252, 1984, 3, 1],
        ['3.0 TFSI quattro', 2011, 2018, P, 333, 2995, 1, 1.2],
        ['2.0 TDI Multitronic', 2011, 2014, D, 177, 1968, 4, 0.95],
        ['2.0 TDI ultra S tronic', 2014, 2018, D, 190, 1968, 4, 1],
        ['3.0 TDI quattro', 2011, 2018, D, 204, 2967, 3, 1.05],
        ['3.0 TDI Quattro S tronic', 2011, 2018, D, 218, 2967, 3, 1.1],
        ['3.0 BiTDI quattro', 2011, 2018, D, 326, 2967, 0.5, 1.3],
        ['40 TFSI S tronic', 2018, 2026, P, 204, 1984, 3, 0.95],
        ['40 TFSI Sport', 2018, 2026, P, 204, 1984, 1, 0.95],
        ['45 TFSI quattro S tronic', 2018, 2026, P, 265, 1984, 2, 1.05],
        ['55 TFSI quattro S tronic', 2018, 2026, P, 340, 2995, 1, 1.25],
        ['40 TDI S tronic', 2018, 2026, D, 204, 1968, 5, 0.95],
        ['40 TDI Sport', 2018, 2026, D, 204, 1968, 1, 0.95],
        ['45 TDI quattro tiptronic', 2018, 2026, D, 231, 2967, 3, 1.08],
        ['50 TDI quattro tiptronic', 2018, 2026, D, 286, 2967, 2, 1.15],
        ['50 TFSI e quattro S tronic', 2019, 2026, PH, 299, 1984, 2, 0.97],
        ['55 TFSI e quattro S tronic', 2019, 2026, PH, 367, 1984, 1, 1.06],
      ],
    },
    A3: {
      generations: [
        ['8L (1996-2003)', 1996, 2003, { Kompakt: 1 }],
        ['8P (2003-2012)', 2003, 2012, { Kompakt: 93, Kabriolet: 7 }],
        ['8V (2012-2020)', 2012, 2020, { Kompakt: 70, Sedan: 22, Kabriolet: 8 }],
        ['8Y (2020-)', 2020, 2026, { Kompakt: 75, Sedan: 25 }],
      ],
      versions: [
        ['1.6', 1996, 2003, P, 101, 1595, 5, 0.95],
        ['1.8', 1996, 2003, P, 125, 1781, 3, 1],
        ['1.8 T', 1996, 2003, P, 150, 1781, 3, 1.08],
        ['1.9 TDI', 1996, 2003, D, 110, 1896, 6, 1],
        ['1.6 Attraction', 2003, 2008, P, 102, 1595, 4, 0.95],
        ['1.4 TFSI Ambition', 2007, 2012, P, 125, 1390, 4, 1],
        ['1.2 TFSI', 2010, 2012, P, 105, 1197, 2, 0.95],
        ['1.8 TFSI', 2006, 2012, P, 160, 1798, 2, 1.05],
        ['2.0 TFSI', 2004, 2012, P, 200, 1984, 1, 1.15],
        ['1.9 TDI Ambition', 2003, 2009, D, 105, 1896, 5, 0.97],
        ['1.6 TDI', 2009, 2012, D, 105, 1598, 3, 0.97],
        ['2.0 TDI Ambition', 2003, 2012, D, 140, 1968, 4, 1.05],
        ['1.4 TFSI Ambition', 2012, 2018, P, 125, 1395, 5, 1],
        ['1.0 TFSI', 2016, 2020, P, 116, 999, 3, 0.93],
        ['35 TFSI S tronic', 2017, 2020, P, 150, 1498, 2, 1.05],
        ['1.8 TFSI quattro', 2012, 2016, P, 180, 1798, 1, 1.12],
        ['1.6 TDI Attraction', 2012, 2020, D, 110, 1598, 5, 0.95],
        ['2.0 TDI Ambition', 2012, 2020, D, 150, 1968, 4, 1.03],
        ['2.0 TDI quattro S line', 2012, 2020, D, 184, 1968, 1, 1.15],
        ['1.4 TFSI e-tron', 2014, 2020, PH, 204, 1395, 1, 1],
        ['30 TFSI', 2020, 2026, P, 110, 999, 3, 0.93],
        ['35 TFSI S tronic', 2020, 2026, P, 150, 1498, 4, 1.03],
        ['40 TFSI quattro S tronic', 2020, 2026, P, 190, 1984, 1, 1.15],
        ['30 TDI', 2020, 2026, D, 116, 1968, 3, 0.95],
        ['35 TDI S tronic', 2020, 2026, D, 150, 1968, 4, 1.03],
        ['40 TFSI e S tronic', 2020, 2026, PH, 204, 1395, 1, 1],
        ['45 TFSI e S tronic', 2021, 2026, PH, 245, 1395, 0.5, 1.1],
      ],
    },
  },
  'Mercedes-Benz': {
    'Klasa C': {
      generations: [
        ['W202 (1993-2000)', 1993, 2000, { Sedan: 70, Kombi: 30 }],
        ['W203 (2000-2007)', 2000, 2007, { Sedan: 55, Kombi: 38, Coupe: 7 }],
        ['W204 (2007-2014)', 2007, 2014, { Sedan: 50, Kombi: 42, Coupe: 8 }],
        ['W205 (2014-2021)', 2014, 2021, { Sedan: 48, Kombi: 42, Coupe: 7, Kabriolet: 3 }],
        ['W206 (2021-)', 2021, 2026, { Sedan: 45, Kombi: 55 }],
      ],
      versions: [
        ['180', 1993, 2000, P, 122, 1799, 5, 0.95],
        ['200', 1993, 2000, P, 136, 1998, 3, 1],
        ['250 D', 1993, 2000, D, 113, 2497, 4, 1],
        ['220 CDI', 1997, 2000, D, 125, 2151, 4, 1.05],
        ['180 Kompressor Classic', 2002, 2007, P, 143, 1796, 3, 0.97],
        ['200 Kompressor', 2000, 2007, P, 163, 1796, 3, 1],
        ['200 CDI', 2000, 2007, D, 122, 2148, 5, 0.95],
        ['220 CDI Elegance', 2000, 2007, D, 150, 2148, 4, 1.03],
        ['270 CDI Avantgarde', 2000, 2005, D, 170, 2685, 1.5, 1.08],
        ['320 CDI', 2005, 2007, D, 224, 2987, 0.5, 1.15],
        ['180 Kompressor', 2007, 2010, P, 156, 1796, 3, 0.95],
        ['180 CGI', 2009, 2014, P, 156, 1796, 3, 1],
        ['200 Kompressor', 2007, 2010, P, 184, 1796, 2, 1],
        ['200 CDI', 2007, 2014, D, 136, 2148, 5, 0.95],
        ['220 CDI Avantgarde', 2007, 2014, D, 170, 2143, 4, 1.03],
        ['220 CDI 7G-TRONIC', 2008, 2014, D, 170, 2143, 2, 1.06],
        ['250 CDI 4Matic', 2010, 2014, D, 204, 2143, 1, 1.1],
        ['350 CDI', 2007, 2014, D, 265, 2987, 0.5, 1.2],
        ['180 Avantgarde', 2014, 2021, P, 156, 1595, 3, 0.95],
        ['200 Avantgarde', 2014, 2021, P, 184, 1991, 4, 1],
        ['300 AMG Line 9G-TRONIC', 2016, 2021, P, 258, 1991, 1, 1.2],
        ['180 (BlueTEC) d Avantgarde', 2014, 2018, D, 116, 1598, 1.5, 0.92],
        ['200 d AMG Line', 2014, 2021, D, 160, 1598, 4, 1],
        ['220 d 9G-TRONIC', 2016, 2021, D, 194, 1950, 4, 1.06],
        ['220 d 4Matic AMG Line', 2016, 2021, D, 194, 1950, 2, 1.12],
        ['250 d 4Matic', 2014, 2018, D, 204, 2143, 1, 1.12],
        ['350 e', 2015, 2018, PH, 279, 1991, 1, 0.95],
        ['300 de 9G-TRONIC', 2019, 2021, PH, 306, 1950, 1, 1.05],
        ['180', 2021, 2026, P, 170, 1496, 2, 0.93],
        ['200 4Matic 9G-TRONIC', 2021, 2026, P, 204, 1496, 3, 1.02],
        ['300 AMG Line 4Matic', 2021, 2026, P, 258, 1999, 1, 1.15],
        ['200 d AMG Line', 2021, 2026, D, 163, 1993, 3, 0.97],
        ['220 d 9G-TRONIC', 2021, 2026, D, 200, 1993, 4, 1.02],
        ['300 e 4Matic', 2022, 2026, PH, 313, 1999, 1, 1],
      ],
    },
    'Klasa E': {
      generations: [
        ['W124 (1984-1995)', 1993, 1995, { Sedan: 70, Kombi: 20, Coupe: 7, Kabriolet: 3 }],
        ['W210 (1995-2002)', 1995, 2002, { Sedan: 65, Kombi: 35 }],
        ['W211 (2002-2009)', 2002, 2009, { Sedan: 60, Kombi: 40 }],
        ['W212 (2009-2016)', 2009, 2016, { Sedan: 55, Kombi: 35, Coupe: 7, Kabriolet: 3 }],
        ['W213 (2016-2023)', 2016, 2023, { Sedan: 55, Kombi: 37, Coupe: 5, Kabriolet: 3 }],
        ['W214 (2023-)', 2023, 2026, { Sedan: 55, Kombi: 45 }],
      ],
      versions: [
        ['200', 1993, 1999, P, 136, 1998, 4, 0.95],
        ['250 D', 1993, 1999, D, 113, 2497, 4, 0.95],
        ['300 D', 1993, 1995, D, 136, 2996, 2, 1],
        ['240', 1997, 2002, P, 170, 2398, 3, 1],
        ['320', 1995, 2002, P, 224, 3199, 1.5, 1.1],
        ['220 CDI', 1998, 2002, D, 143, 2151, 5, 1],
        ['290 TD', 1996, 1999, D, 129, 2874, 2, 1],
        ['270 CDI', 1999, 2002, D, 170, 2685, 2, 1.08],
        ['200 Kompressor', 2002, 2009, P, 184, 1796, 3, 0.95],
        ['350', 2004, 2009, P, 272, 3498, 1.5, 1.1],
        ['220 CDI Elegance', 2002, 2009, D, 170, 2148, 5, 0.97],
        ['270 CDI Avantgarde', 2002, 2005, D, 177, 2685, 2, 1],
        ['280 CDI', 2005, 2009, D, 190, 2987, 3, 1.05],
        ['320 CDI', 2002, 2009, D, 224, 2987, 3, 1.1],
        ['200 CGI', 2009, 2013, P, 184, 1796, 3, 0.95],
        ['200', 2013, 2016, P, 184, 1991, 3, 1],
        ['350', 2009, 2016, P, 306, 3498, 1, 1.15],
        ['220 CDI', 2009, 2013, D, 170, 2143, 5, 0.95],
        ['220 BlueTEC', 2013, 2016, D, 170, 2143, 3, 1],
        ['250 CDI 7G-TRONIC', 2009, 2016, D, 204, 2143, 3, 1.03],
        ['350 CDI', 2009, 2013, D, 265, 2987, 2, 1.12],
        ['350 BlueTEC 4Matic', 2013, 2016, D, 258, 2987, 1, 1.18],
        ['200 Avantgarde', 2016, 2023, P, 197, 1991, 3, 0.95],
        ['300 AMG Line', 2016, 2023, P, 258, 1991, 1.5, 1.08],
        ['450 4Matic', 2018, 2023, P, 367, 2996, 0.5, 1.3],
        ['200 d', 2016, 2023, D, 160, 1950, 3, 0.92],
        ['220 d Avantgarde', 2016, 2023, D, 194, 1950, 4, 1],
        ['220 d 4Matic 9G-TRONIC AMG Line', 2016, 2023, D, 200, 1993, 3, 1.1],
        ['220 d 4-Matic All-Terrain Exclusive', 2017, 2023, D, 194, 1950, 1, 1.12],
        ['350 d 4Matic', 2016, 2019, D, 258, 2987, 1.5, 1.15],
        ['400 d 4Matic', 2019, 2023, D, 340, 2925, 1, 1.25],
        ['350 e', 2017, 2019, PH, 286, 1991, 1, 0.95],
        ['300 e', 2019, 2023, PH, 320, 1991, 1, 1],
        ['300 de', 2019, 2023, PH, 306, 1950, 1, 1],
        ['200', 2024, 2026, P, 204, 1999, 3, 1],
        ['220 d 9G-TRONIC', 2024, 2026, D, 197, 1993, 4, 1],
        ['220 d 4Matic AMG Line', 2024, 2026, D, 197, 1993, 2, 1.1],
        ['300 e 4Matic', 2024, 2026, PH, 313, 1999, 2, 1],
        ['400 e 4Matic', 2024, 2026, PH, 381, 2999, 1, 1.15],
      ],
    },
  },
  Ford: {
    Focus: {
      generations: [
        ['Mk1 (1998-2004)', 1998, 2004, { Kompakt: 55, Kombi: 35, Sedan: 10 }],
        ['Mk2 (2004-2011)', 2004, 2011, { Kompakt: 55, Kombi: 35, Sedan: 8, Kabriolet: 2 }],
        ['Mk3 (2010-2018)', 2010, 2018, { Kompakt: 55, Kombi: 40, Sedan: 5 }],
        ['Mk4 (2018-)', 2018, 2025, { Kompakt: 55, Kombi: 45 }],
      ],
      versions: [
        ['1.4 Ambiente', 1998, 2004, P, 75, 1388, 4, 0.95],
        ['1.6 Ambiente', 1998, 2004, P, 100, 1596, 5, 1],
        ['2.0 Ghia', 1998, 2004, P, 131, 1989, 2, 1.05],
        ['1.8 TDDi', 1998, 2001, D, 90, 1753, 3, 0.95],
        ['1.8 TDCi', 2001, 2004, D, 115, 1753, 4, 1.02],
        ['1.4 Ambiente', 2004, 2011, P, 80, 1388, 3, 0.92],
        ['1.6 Ti-VCT Connection', 2004, 2011, P, 115, 1596, 4, 1.02],
        ['1.6 Gold X', 2006, 2011, P, 100, 1596, 4, 1],
        ['2.5 ST', 2005, 2010, P, 225, 2522, 0.3, 1.45],
        ['1.6 TDCi Trend', 2004, 2011, D, 109, 1560, 6, 1],
        ['1.8 TDCi Ghia', 2005, 2011, D, 115, 1753, 3, 1.02],
        ['2.0 TDCi Titanium', 2004, 2011, D, 136, 1997, 3, 1.08],
        ['1.6 Trend', 2010, 2018, P, 105, 1596, 4, 0.95],
        ['1.0 EcoBoost Trend', 2012, 2018, P, 125, 999, 5, 1],
        ['1.6 EcoBoost Titanium', 2010, 2014, P, 150, 1596, 2, 1.05],
        ['1.5 EcoBoost Titanium', 2014, 2018, P, 150, 1499, 2, 1.08],
        ['2.0 EcoBoost ST', 2012, 2018, P, 250, 1999, 0.4, 1.45],
        ['2.3 EcoBoost RS', 2016, 2018, P, 350, 2261, 0.1, 1.9],
        ['1.6 TDCi Trend', 2010, 2015, D, 115, 1560, 5, 0.97],
        ['1.5 TDCi Titanium', 2014, 2018, D, 120, 1498, 4, 1.02],
        ['2.0 TDCi Titanium', 2010, 2018, D, 150, 1997, 3, 1.08],
        ['2.0 TDCi Titanium PowerShift', 2010, 2018, D, 163, 1997, 1, 1.12],
        ['1.0 EcoBoost Trend Edition', 2018, 2025, P, 100, 999, 3, 0.93],
        ['1.0 EcoBoost Titanium Design', 2018, 2025, P, 125, 999, 4, 1],
        ['1.5 EcoBoost ST-Line', 2018, 2025, P, 182, 1497, 2, 1.12],
        ['2.3 EcoBoost ST', 2019, 2025, P, 280, 2261, 0.3, 1.5],
        ['1.5 EcoBlue Titanium', 2018, 2025, D, 120, 1499, 5, 1],
        ['2.0 EcoBlue ST-Line', 2018, 2025, D, 150, 1995, 2, 1.1],
        ['1.0 EcoBoost mHEV Titanium', 2020, 2025, HY, 125, 999, 3, 1],
        ['1.0 EcoBoost mHEV ST-Line X', 2020, 2025, HY, 155, 999, 2, 1.1],
      ],
    },
    Mondeo: {
      generations: [
        ['Mk1 (1993-1996)', 1993, 1996, { Sedan: 45, Kombi: 40, Kompakt: 15 }],
        ['Mk2 (1996-2000)', 1996, 2000, { Sedan: 40, Kombi: 45, Kompakt: 15 }],
        ['Mk3 (2000-2007)', 2000, 2007, { Kombi: 55, Sedan: 25, Kompakt: 20 }],
        ['Mk4 (2007-2014)', 2007, 2014, { Kombi: 60, Sedan: 15, Kompakt: 25 }],
        ['Mk5 (2014-)', 2014, 2022, { Kombi: 60, Sedan: 25, Kompakt: 15 }],
      ],
      versions: [
        ['1.8', 1993, 2000, P, 115, 1796, 5, 1],
        ['2.0 Ghia', 1993, 2000, P, 131, 1988, 3, 1.05],
        ['2.5 V6', 1994, 2000, P, 170, 2544, 1, 1.1],
        ['1.8 TD', 1993, 2000, D, 90, 1753, 4, 1],
        ['1.8 16V Ambiente', 2000, 2007, P, 125, 1798, 4, 0.97],
        ['2.0 16V Trend', 2000, 2007, P, 145, 1999, 3, 1],
        ['2.5 V6', 2000, 2007, P, 170, 2495, 1, 1.05],
        ['2.0 TDDi', 2000, 2002, D, 115, 1998, 3, 0.95],
        ['2.0 TDCi Ghia', 2002, 2007, D, 130, 1998, 5, 1],
        ['2.2 TDCi', 2004, 2007, D, 155, 2198, 2, 1.05],
        ['1.6 Ti-VCT', 2007, 2014, P, 125, 1596, 3, 0.95],
        ['2.0 Trend', 2007, 2014, P, 145, 1999, 4, 1],
        ['2.0 EcoBoost Titanium', 2010, 2014, P, 203, 1999, 1, 1.12],
        ['1.6 TDCi', 2010, 2014, D, 115, 1560, 3, 0.95],
        ['1.8 TDCi Trend', 2007, 2010, D, 125, 1753, 3, 0.95],
        ['2.0 TDCi Ambiente', 2007, 2014, D, 140, 1997, 4, 0.98],
        ['2.0 TDCi Titanium', 2007, 2014, D, 140, 1997, 5, 1.03],
        ['2.2 TDCi Titanium', 2008, 2014, D, 200, 2179, 1, 1.1],
        ['1.5 EcoBoost Titanium', 2014, 2022, P, 160, 1499, 4, 1],
        ['2.0 EcoBoost', 2015, 2019, P, 240, 1999, 0.5, 1.15],
        ['1.5 TDCi', 2015, 2018, D, 120, 1499, 2, 0.93],
        ['2.0 TDCi Start-Stopp Trend', 2014, 2018, D, 150, 1997, 4, 0.97],
        ['2.0 TDCi Titanium PowerShift', 2014, 2018, D, 150, 1997, 3, 1.03],
        ['2.0 TDCi Bi-Turbo Vignale', 2015, 2018, D, 210, 1997, 0.7, 1.2],
        ['2.0 EcoBlue Trend', 2018, 2022, D, 150, 1995, 4, 1],
        ['2.0 EcoBlue Titanium', 2018, 2022, D, 190, 1995, 2, 1.1],
        ['2.0 Hybrid Titanium', 2015, 2022, HY, 187, 1999, 3, 1],
      ],
    },
  },
  Renault: {
    Clio: {
      generations: [
        ['I (1990-1998)', 1991, 1998, { 'Auta małe': 50, 'Auta miejskie': 50 }],
        ['II (1998-2012)', 1998, 2005, { 'Auta miejskie': 50, 'Auta małe': 35, Kompakt: 15 }],
        ['III (2005-2012)', 2005, 2012, { 'Auta miejskie': 45, 'Auta małe': 25, Kompakt: 18, Kombi: 12 }],
        ['IV (2012-2018)', 2012, 2019, { 'Auta miejskie': 45, 'Auta małe': 25, Kompakt: 15, Kombi: 15 }],
        ['V (2019-)', 2019, 2026, { 'Auta miejskie': 50, 'Auta małe': 20, Kompakt: 30 }],
      ],
      versions: [
        ['1.2', 1991, 1998, P, 58, 1171, 5, 0.95],
        ['1.4', 1991, 1998, P, 75, 1390, 4, 1.05],
        ['1.9 D', 1991, 1998, D, 64, 1870, 3, 1],
        ['1.2', 1998, 2005, P, 60, 1149, 5, 0.95],
        ['1.2 16V', 2001, 2005, P, 75, 1149, 4, 1],
        ['1.4 16V', 1998, 2005, P, 98, 1390, 3, 1.05],
        ['2.0 16V Sport', 2000, 2005, P, 172, 1998, 0.2, 1.45],
        ['1.5 dCi', 2001, 2005, D, 82, 1461, 5, 1],
        ['1.2 16V', 2005, 2012, P, 75, 1149, 5, 0.95],
        ['1.2 TCE', 2007, 2012, P, 100, 1149, 2, 1.02],
        ['1.6 16V Dynamique', 2005, 2012, P, 112, 1598, 2, 1.05],
        ['2.0 16V RS', 2006, 2012, P, 203, 1998, 0.2, 1.5],
        ['1.5 dCi Expression', 2005, 2012, D, 86, 1461, 5, 1],
        ['1.2 16V Alize', 2012, 2019, P, 75, 1149, 4, 0.93],
        ['0.9 TCe Dynamique', 2012, 2019, P, 90, 898, 5, 1],
        ['0.9 Energy TCe Limited', 2016, 2019, P, 90, 898, 2, 1.02],
        ['1.2 TCe EDC', 2013, 2019, P, 120, 1197, 1, 1.1],
        ['1.6 TCe RS', 2013, 2019, P, 200, 1618, 0.2, 1.45],
        ['1.5 dCi Life', 2012, 2019, D, 75, 1461, 3, 0.97],
        ['1.5 dCi Energy Intens', 2013, 2019, D, 90, 1461, 3, 1.03],
        ['1.0 SCe Life', 2019, 2026, P, 65, 999, 3, 0.9],
        ['1.0 TCe Zen', 2019, 2026, P, 100, 999, 5, 1],
        ['1.0 TCe Intens', 2019, 2026, P, 100, 999, 3, 1.05],
        ['1.3 TCe Intens EDC', 2019, 2021, P, 130, 1332, 1, 1.12],
        ['1.5 Blue dCi Intens', 2019, 2023, D, 100, 1461, 3, 1],
        ['1.6 E-TECH Hybrid Intens', 2020, 2023, HY, 140, 1598, 3, 1],
        ['1.6 E-TECH Full Hybrid 145 Esprit Alpine', 2024, 2026, HY, 145, 1598, 3, 1.05],
      ],
    },
    Megane: {
      generations: [
        ['I (1995-2002)', 1995, 2002, { Kompakt: 55, Sedan: 15, Kombi: 15, Coupe: 10, Kabriolet: 5 }],
        ['II (2002-2008)', 2002, 2008, { Kompakt: 55, Kombi: 30, Sedan: 10, Kabriolet: 5 }],
        ['III (2008-2016)', 2008, 2016, { Kompakt: 55, Kombi: 35, Coupe: 7, Kabriolet: 3 }],
        ['IV (2016-)', 2016, 2024, { Kompakt: 55, Kombi: 40, Sedan: 5 }],
      ],
      versions: [
        ['1.4', 1995, 2002, P, 75, 1390, 4, 0.95],
        ['1.6', 1995, 2002, P, 90, 1598, 5, 1],
        ['2.0', 1995, 2002, P, 114, 1998, 2, 1.05],
        ['1.9 D', 1995, 1999, D, 64, 1870, 3, 0.93],
        ['1.9 dTi', 1997, 2002, D, 98, 1870, 4, 1.02],
        ['1.4 16V', 2002, 2008, P, 98, 1390, 4, 0.95],
        ['1.6 16V Dynamique', 2002, 2008, P, 113, 1598, 5, 1.02],
        ['2.0 T RS', 2004, 2008, P, 225, 1998, 0.2, 1.45],
        ['1.5 dCi', 2002, 2008, D, 106, 1461, 6, 1],
        ['1.9 dCi', 2002, 2008, D, 130, 1870, 3, 1.03],
        ['1.6 16V Authentique', 2008, 2016, P, 110, 1598, 5, 0.97],
        ['1.4 TCe', 2009, 2012, P, 130, 1397, 2, 1.02],
        ['1.2 TCe', 2012, 2016, P, 130, 1197, 3, 1.03],
        ['2.0 T RS', 2010, 2016, P, 265, 1998, 0.2, 1.5],
        ['1.5 dCi', 2008, 2016, D, 110, 1461, 6, 1],
        ['1.9 dCi', 2008, 2011, D, 130, 1870, 2, 1.03],
        ['2.0 dCi', 2009, 2016, D, 160, 1995, 1, 1.08],
        ['1.2 16V TCE Energy Dynamique', 2016, 2018, P, 130, 1197, 3, 1],
        ['1.3 TCe Intens', 2018, 2024, P, 140, 1332, 4, 1.05],
        ['1.8 TCe RS', 2018, 2024, P, 300, 1798, 0.2, 1.6],
        ['1.5 dCi Zen', 2016, 2018, D, 110, 1461, 4, 0.97],
        ['1.5 dCi Privilege', 2016, 2018, D, 110, 1461, 2, 1],
        ['1.6 dCi', 2016, 2018, D, 130, 1598, 2, 1.05],
        ['1.5 Blue dCi Intens', 2019, 2024, D, 116, 1461, 5, 1],
      ],
    },
  },
}
