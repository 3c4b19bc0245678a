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

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i

/**
 * Day number (days since 1970-01-01) of `YYYY-MM-DD` or an ISO 8601 date-time, counted
 * by its UTC date; a date-time without an offset is taken as UTC.
 */
export function dayNumber(text: string): number | undefined {
  const m = DATE_TIME.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h, mi, s, zone] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const date = Date.UTC(year, month - 1, day)
  const check = new Date(date)
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return undefined
  if (h === undefined) return date / DAY_MS
  const hours = Number(h)
  const minutes = Number(mi)
  const seconds = s === undefined ? 0 : Number(s)
  if (hours > 23 || minutes > 59 || seconds > 60) return undefined
  let offset = 0
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '')
    const zh = Number(digits.slice(1, 3))
    const zm = Number(digits.slice(3, 5))
    if (zh > 23 || zm > 59) return undefined
    offset = (zone.startsWith('-') ? -1 : 1) * (zh * 60 + zm) * 60_000
  }
  const instant = date + ((hours * 60 + minutes) * 60 + seconds) * 1000 - offset
  return Math.floor(instant / DAY_MS)
}
