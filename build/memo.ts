/**
 * A bounded memo of a pure function of short strings. An export repeats the same few
 * hundred fuel names, voivodeships and dates a million times; this turns their
 * parsing into one map look-up. Past `limit` distinct inputs (a column of unique
 * date-times, say) it stops remembering and just computes.
 */
export function memoize<T>(compute: (text: string) => T, limit = 4096): (text: string) => T {
  const memo = new Map<string, T>()
  return (text) => {
    const known = memo.get(text)
    if (known !== undefined || memo.has(text)) return known as T
    const value = compute(text)
    if (memo.size < limit) memo.set(text, value)
    return value
  }
}
