/** Markup that is safe to insert as it is: built by `html`. */
export class Html {
  constructor(readonly text: string) {}
}

type Value = string | number | Html | readonly Html[] | false | undefined

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

/**
 * A template of markup in which every interpolated string is escaped, so text taken
 * from the OpenAPI document or the public URL can never break out of its element.
 * `false` and `undefined` insert nothing, for optional parts.
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!
  values.forEach((value, i) => {
    out += piece(value) + strings[i + 1]!
  })
  return new Html(out)
}

function piece(value: Value): string {
  if (value === false || value === undefined) return ''
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map((h: Html) => h.text).join('')
  return escapeHtml(String(value))
}

/**
 * A block of code: preformatted, and focusable, since a long line scrolls it sideways and
 * a keyboard can only scroll what it can reach.
 */
export function codeBlock(code: string | Html, className?: string): Html {
  return html`<pre${className === undefined ? false : html` class="${className}"`} tabindex="0"><code>${code}</code></pre>`
}
