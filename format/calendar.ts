/**
 * Days are counted from 1970-01-01 (UTC) and months as year * 12 + (month - 1), so that
 * spans of either are subtractions.
 */

export const DAY_MS = 86_400_000

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
