/** The widest line, in characters, that prettyJson keeps a value on. */
const WIDTH = 72

/**
 * JSON indented like JSON.stringify(value, null, 2), except that an object or array
 * that fits on its line stays on it: examples read in a screenful, not three.
 * `used` is how much of the line is taken before the value (its indent and key).
 */
export function prettyJson(value: unknown, indent = '', used = indent.length): string {
  const flat = inline(value)
  if (typeof value !== 'object' || value === null || used + flat.length <= WIDTH) return flat
  const inner = `${indent}  `
  const items = Array.isArray(value)
    ? value.map((v: unknown) => inner + prettyJson(v, inner))
    : Object.entries(value).map(([k, v]) => {
        const key = `${inner}${JSON.stringify(k)}: `
        return key + prettyJson(v, inner, key.length)
      })
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
  return `${open}\n${items.join(',\n')}\n${indent}${close}`
}

/** One line, spaced like the indented form. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`)
      .join(', ')}}`
  return JSON.stringify(value)
}
