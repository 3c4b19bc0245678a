/**
 * Text from outside (stored e-mails and references, names from a request or an export,
 * paths, error messages quoting them) on an operator's terminal. A terminal acts on
 * control characters: ESC, or the C1 CSI U+009B, starts sequences that recolour,
 * retitle or rewrite the screen. Bidi and zero-width characters reorder or hide what is
 * shown. So each such character in a value is shown as an escape (`\x1b`, `\u202e`):
 * a value stays on its line and reads as what is stored.
 */

// Cc: C0 controls, DEL, C1 controls. Cf: format characters (bidi controls, zero-width
// ones, tags). Zl, Zp: line and paragraph separators. Cs: half of a surrogate pair,
// which written as UTF-8 would become U+FFFD and hide what is stored.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0')

/**
 * `text` with every character that acts on a terminal or hides itself written as an
 * escape; all else, backslashes included, as it is (--json is the unambiguous form).
 *
 * @example
 * visible('a\u001b[31mb\n') // 'a\\x1b[31mb\\x0a'
 */
export function visible(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.codePointAt(0)!
    return code <= 0xff ? `\\x${hex(code, 2)}` : code <= 0xffff ? `\\u${hex(code, 4)}` : `\\u{${hex(code, 1)}}`
  })
}

// JSON.stringify escapes C0 controls and lone surrogates itself; these it writes raw.
const UNSAFE_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu

/**
 * JSON, indented, that shows on a terminal as it is and parses back to `value`: the
 * characters above can only stand inside its strings, where `\uXXXX` means the same.
 */
export function terminalJson(value: object): string {
  return escapedJson(JSON.stringify(value, null, 2))
}

/** The same on one line, a record of a JSON Lines log: no line separator of any kind stands raw in it. */
export function terminalJsonLine(value: object): string {
  return escapedJson(JSON.stringify(value))
}

function escapedJson(json: string): string {
  const escape = (c: string) => Array.from({ length: c.length }, (_, i) => `\\u${hex(c.charCodeAt(i), 4)}`).join('')
  return json.replace(UNSAFE_IN_JSON, escape)
}

/**
 * Text written to a terminal as it is. Only `terminal` and `lines` make one, so a
 * function that takes one cannot be handed a value that was not made visible.
 */
class TerminalText {
  constructor(private readonly text: string) {}

  toString(): string {
    return this.text
  }
}
export type { TerminalText }

/**
 * A template whose own text, line breaks included, is kept and whose values are made
 * visible; a TerminalText among them is put in as it is.
 *
 * @example
 * terminal`granted (${reference})`
 */
export function terminal(
  strings: TemplateStringsArray,
  ...values: readonly (string | number | TerminalText)[]
): TerminalText {
  let text = strings[0] ?? ''
  values.forEach((value, i) => {
    text += (value instanceof TerminalText ? value.toString() : visible(String(value))) + (strings[i + 1] ?? '')
  })
  return new TerminalText(text)
}

/** One text of `lines`, each on its own line. */
export function lines(list: readonly TerminalText[]): TerminalText {
  return new TerminalText(list.join('\n'))
}
