import { ApiError, invalidParameter, unknownParameter } from '../query/api-error.js'

/** Longest value any parameter may have; names are bounded tighter by their own guard. */
export const MAX_VALUE_LENGTH = 200

/**
 * Parses a query string strictly, as a paid API should: a parameter the route does not
 * know, one given twice, or one whose percent-encoding is broken or does not decode to
 * UTF-8 is an INVALID_PARAMETER naming it, never silently ignored or mangled (a
 * URLSearchParams would keep `%zz` as it is and turn bad UTF-8 into U+FFFD).
 */
export function parseQuery(query: string, known: ReadonlySet<string>): Map<string, string> {
  const params = new Map<string, string>()
  if (query === '') return params
  for (const pair of query.split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const rawName = eq < 0 ? pair : pair.slice(0, eq)
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1)
    const name = decode(rawName, rawName)
    if (!known.has(name)) throw unknownParameter(name, known)
    if (params.has(name)) throw invalidParameter(name, `${name} is given more than once`)
    if (rawValue.length > MAX_VALUE_LENGTH * 3)
      throw invalidParameter(name, `${name} is longer than ${MAX_VALUE_LENGTH} characters`)
    const value = decode(rawValue, name)
    if (value.length > MAX_VALUE_LENGTH)
      throw invalidParameter(name, `${name} is longer than ${MAX_VALUE_LENGTH} characters`)
    params.set(name, value)
  }
  return params
}

function decode(raw: string, parameter: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    throw new ApiError('INVALID_PARAMETER', `${parameter.slice(0, 50)} is not valid percent-encoded UTF-8`, {
      parameter: parameter.slice(0, 50),
    })
  }
}

/** Longer request targets are refused before any parsing (the longest real one is a few hundred bytes). */
export const MAX_URL_LENGTH = 2048
