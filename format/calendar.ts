/**
 * Days are counted from 1970-01-01 (UTC) and months as year * 12 + (month - 1), so that
 * spans of either are subtractions.
 */

export const DAY_MS = 86_400_000

/**
 * Day number of a proleptic Gregorian date, by integer arithmetic (the days-from-civil
 * algorithm): exact, and far cheaper than a Date per row.
 */
export function dayOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

/** Calendar year of a day number. */
export function yearOfDay(day: number): number {
  return new Date(day * DAY_MS).getUTCFullYear()
}

/** YYYY-MM-DD of a day number. */
export function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

/** Month number of a day number (days since 1970-01-01, UTC). */
export function monthOfDay(day: number): number {
  const date = new Date(day * DAY_MS)
  return date.getUTCFullYear() * 12 + date.getUTCMonth()
}

/** YYYY-MM of a month number. */
export function monthLabel(month: number): string {
  return `${Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}`
}

/** Month number of YYYY-MM. */
export function monthOfLabel(label: string): number {
  return Number(label.slice(0, 4)) * 12 + Number(label.slice(5, 7)) - 1
}
