import { domainToASCII } from 'node:url'

/**
 * E-mail addresses from outside, checked once and put in two forms: the address mail is
 * sent to, and the mailbox: the key under which every spelling that reaches one inbox
 * counts as one (`A.b+x@GoogleMail.com` and `ab@gmail.com`), so the signup bonus, codes
 * and per-address limits cannot be had again by spelling an address another way.
 */

/** RFC 5321, 4.5.3.1: what SMTP carries at the most (a path is 256 octets with its `<>`). */
export const LOCAL_PART_MAX_BYTES = 64
export const ADDRESS_MAX_BYTES = 254

/**
 * Domains whose mail ignores dots in the local part, and the domain their mailboxes are
 * kept under. Source: Google's help, "Dots don't matter in Gmail addresses"
 * (support.google.com/mail/answer/7436150); googlemail.com is Gmail under its older name,
 * same inboxes. Other providers deliver `a.b` and `ab` to different people.
 */
export const DOTLESS_DOMAINS: ReadonlyMap<string, string> = new Map([
  ['gmail.com', 'gmail.com'],
  ['googlemail.com', 'gmail.com'],
])

/** Why a text is refused, by stable code; each message is safe to show (it never repeats the input). */
export const EMAIL_PROBLEMS = {
  not_a_string: 'email must be a string',
  empty: 'email is empty',
  control_character: 'email holds a control character or a line break',
  invisible_character: 'email holds an invisible character (zero-width, direction or format mark)',
  unpaired_surrogate: 'email holds a broken character (an unpaired surrogate)',
  private_use_character: 'email holds a private-use character',
  unassigned_character: 'email holds a character Unicode has not assigned',
  whitespace: 'email holds a space',
  not_one_at_sign: 'email must hold exactly one @',
  empty_local_part: 'email has nothing before the @',
  empty_domain: 'email has nothing after the @',
  local_part_syntax:
    'the part before the @ holds a character or dots an address cannot have (quoted forms are not accepted)',
  domain_syntax: 'the domain must be letters, digits, hyphens and dots (IP literals are not accepted)',
  domain_idna: 'the domain is not a valid internationalized domain name',
  domain_without_dot: 'the domain must have a dot',
  label_too_long: 'a part of the domain is longer than 63 characters',
  numeric_tld: 'the domain ends in a number',
  local_part_too_long: `the part before the @ is longer than ${LOCAL_PART_MAX_BYTES} bytes`,
  address_too_long: `email is longer than ${ADDRESS_MAX_BYTES} bytes`,
  empty_mailbox: 'nothing is left before the @ without its +tag and accents',
} as const
export type EmailProblemCode = keyof typeof EMAIL_PROBLEMS

/** An accepted address in its two forms. */
export interface ParsedEmail {
  readonly ok: true
  /**
   * Where mail goes, what is shown and stored: NFKC, lower case, ASCII domain, local part as typed (+tag and dots
   * kept).
   */
  readonly address: string
  /** The key of the inbox behind it: marks folded away, +tag removed, dots removed where the domain ignores them. */
  readonly mailbox: string
}
export interface EmailProblem {
  readonly ok: false
  readonly code: EmailProblemCode
  readonly message: string
}

// Looked for in the text as given, before anything is trimmed or mapped, so nothing hides
// behind a normalization. The mapping below never turns an allowed character into one of
// these (test/mailbox.test.ts checks every code point).
const REFUSED: readonly (readonly [RegExp, EmailProblemCode])[] = [
  [/[\p{Cc}\p{Zl}\p{Zp}]/u, 'control_character'],
  [/[\p{Cf}\p{Default_Ignorable_Code_Point}]/u, 'invisible_character'],
  [/\p{Cs}/u, 'unpaired_surrogate'],
  [/\p{Co}/u, 'private_use_character'],
  [/\p{Cn}/u, 'unassigned_character'],
]
// RFC 5322 dot-atom with RFC 6531's non-ASCII characters: no quotes, brackets, commas or
// backslashes, no dot first, last or twice. A signup never needs a quoted local part.
const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~\\u0080-\\u{10ffff}-]+"
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u')
// IDNA alone would also decode percent escapes and read IP numbers such as `0x7f.1`, so
// the only ASCII let through to it is what a host name is made of.
const NOT_HOST_ASCII = /[^a-z0-9.\-\u0080-\u{10ffff}]/u
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/
// A last label that reads as a number makes IDNA take the domain for an IPv4 address
// (`0x7f.1` is 127.0.0.1) or refuse it; either way it is no mail domain.
const NUMERIC_TLD = /(?:^|[.。])(?:[0-9]+|0x[0-9a-f]*)[.。]?$/u

/**
 * Checks an e-mail address from outside and gives its delivery form and its mailbox key,
 * or the coded reason it is refused. Byte limits are measured in UTF-8 on `address`, after
 * IDNA: the ASCII domain is what SMTP carries.
 *
 * @example
 * parseEmail(' A.B+news@GoogleMail.com ') // { ok: true, address: 'a.b+news@googlemail.com', mailbox: 'ab@gmail.com' }
 * parseEmail('a\u200b@example.com')       // { ok: false, code: 'invisible_character', message: '…' }
 */
export function parseEmail(raw: unknown): ParsedEmail | EmailProblem {
  if (typeof raw !== 'string') return problem('not_a_string')
  for (const [pattern, code] of REFUSED) if (pattern.test(raw)) return problem(code)
  // Of what trim() removes, only spaces are left after the check above. NFKC again after
  // lower case: lowering can undo a composition (`Ώͅ`), and the address must parse to itself.
  const text = raw.trim().normalize('NFKC').toLowerCase().normalize('NFKC')
  if (text === '') return problem('empty')
  if (/\p{White_Space}/u.test(text)) return problem('whitespace')
  const parts = text.split('@')
  if (parts.length !== 2) return problem('not_one_at_sign')
  const [local = '', typedDomain = ''] = parts
  if (local === '') return problem('empty_local_part')
  if (typedDomain === '') return problem('empty_domain')
  if (!LOCAL_PART.test(local)) return problem('local_part_syntax')
  const domain = asciiDomain(typedDomain)
  if (typeof domain !== 'string') return domain
  const address = `${local}@${domain}`
  if (Buffer.byteLength(local) > LOCAL_PART_MAX_BYTES) return problem('local_part_too_long')
  if (Buffer.byteLength(address) > ADDRESS_MAX_BYTES) return problem('address_too_long')
  const mailbox = mailboxOf(local, domain)
  return mailbox === undefined ? problem('empty_mailbox') : { ok: true, address, mailbox }
}

/** The domain as SMTP sees it: IDNA ASCII (`bücher.de` is `xn--bcher-kva.de`), no trailing dot. */
function asciiDomain(typed: string): string | EmailProblem {
  if (NOT_HOST_ASCII.test(typed)) return problem('domain_syntax')
  if (NUMERIC_TLD.test(typed)) return problem('numeric_tld')
  const ascii = domainToASCII(typed)
  if (ascii === '') return problem('domain_idna')
  const domain = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii
  const labels = domain.split('.')
  if (labels.some((label) => label.length > 63)) return problem('label_too_long')
  if (!labels.every((label) => LABEL.test(label))) return problem('domain_syntax')
  return labels.length < 2 ? problem('domain_without_dot') : domain
}

/** The inbox key, or undefined when nothing is left of the local part. */
function mailboxOf(local: string, domain: string): string | undefined {
  // `á` and `a`, `i̇` (from `İ`) and `i` are one: the marks go, the letters stay.
  const bare = local
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFC')
  // Sub-addressing: `a+news` is delivered to `a`.
  const untagged = bare.split('+', 1)[0] ?? ''
  const dotless = DOTLESS_DOMAINS.get(domain)
  const user = dotless === undefined ? untagged : untagged.replaceAll('.', '')
  return user === '' ? undefined : `${user}@${dotless ?? domain}`
}

function problem(code: EmailProblemCode): EmailProblem {
  return { ok: false, code, message: EMAIL_PROBLEMS[code] }
}
