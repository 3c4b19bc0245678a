import fc from 'fast-check'
import t from 'tap'
import { ADDRESS_MAX_BYTES, LOCAL_PART_MAX_BYTES, parseEmail, type EmailProblemCode } from '../ledger/mailbox.js'

/** The accepted forms of a text, or the code it is refused with. */
function parsed(raw: unknown): { address: string; mailbox: string } | EmailProblemCode {
  const result = parseEmail(raw)
  return result.ok ? { address: result.address, mailbox: result.mailbox } : result.code
}
function mailboxOf(raw: string): string | EmailProblemCode {
  const result = parseEmail(raw)
  return result.ok ? result.mailbox : result.code
}

/** A test name in printable ASCII: raw line separators would break the TAP stream. */
function shown(raw: unknown): string {
  return (JSON.stringify(raw) ?? String(raw)).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

// The characters an accepted address must never hold (the classes parseEmail refuses).
const REFUSED = /[\p{Cc}\p{Zl}\p{Zp}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Co}\p{Cn}\p{White_Space}]/u

t.test('the delivery form: trimmed, NFKC, lower case, ASCII domain, +tag and dots kept', async (t) => {
  t.same(parsed(' Anna.Nowak+Auto@Example.PL '), {
    address: 'anna.nowak+auto@example.pl',
    mailbox: 'anna.nowak@example.pl',
  })
  t.same(parsed('A.B+news@GoogleMail.com'), { address: 'a.b+news@googlemail.com', mailbox: 'ab@gmail.com' })
  t.same(parsed('ａ@ｅｘａｍｐｌｅ．com'), { address: 'a@example.com', mailbox: 'a@example.com' })
  t.same(parsed('Á@Bücher.de.'), { address: 'á@xn--bcher-kva.de', mailbox: 'a@xn--bcher-kva.de' })
  t.same(
    parsed('Ώ\u0345@example.com'),
    { address: '\u1ff4@example.com', mailbox: 'ω@example.com' },
    'composed again after lower case',
  )
  t.same(
    parsed('a@example。com'),
    { address: 'a@example.com', mailbox: 'a@example.com' },
    'an ideographic full stop is a dot to IDNA',
  )
})

t.test('every farming variant is the mailbox of its plain form', async (t) => {
  const variants: [string, string][] = [
    ['a+1@gmail.com', 'a@gmail.com'],
    ['a+1+2@example.com', 'a@example.com'],
    ['a.b@gmail.com', 'ab@gmail.com'],
    ['a.b.c+x@googlemail.com', 'abc@gmail.com'],
    ['a@googlemail.com', 'a@gmail.com'],
    ['a@example.com.', 'a@example.com'],
    ['ａ@example.com', 'a@example.com'],
    ['á@example.com', 'a@example.com'],
    ['a\u0301@example.com', 'a@example.com'],
    ['İ@example.com', 'i@example.com'],
    ['a@bücher.de', 'a@xn--bcher-kva.de'],
    ['a@BÜCHER.DE', 'a@xn--bcher-kva.de'],
    ['A@Example.COM', 'a@example.com'],
    ['ﬁ@example.com', 'fi@example.com'],
  ]
  for (const [variant, plain] of variants) t.equal(mailboxOf(variant), mailboxOf(plain), shown(variant))
  t.equal(mailboxOf('a@example.com'), 'a@example.com')
  t.equal(mailboxOf('ab@gmail.com'), 'ab@gmail.com')
})

t.test('dots count everywhere but the domains that ignore them', async (t) => {
  t.not(mailboxOf('a.b@wp.pl'), mailboxOf('ab@wp.pl'))
  t.not(mailboxOf('a.b@example.com'), mailboxOf('ab@example.com'))
  t.not(mailboxOf('a.b@gmail.com.pl'), mailboxOf('ab@gmail.com.pl'))
  t.not(mailboxOf('a@bücher.de'), mailboxOf('a@bucher.de'), 'marks in the domain make another domain')
})

t.test('each refusal has its code', async (t) => {
  const refusals: [unknown, EmailProblemCode][] = [
    [undefined, 'not_a_string'],
    [42, 'not_a_string'],
    [['a@example.com'], 'not_a_string'],
    ['', 'empty'],
    ['   ', 'empty'],
    ['a@exam\u0000ple.com', 'control_character'],
    ['a@example.com\u0000', 'control_character'],
    ['\u001b[31ma@example.com', 'control_character'],
    ['\u001b]0;title\u0007a@example.com', 'control_character'],
    ['a\u009b31m@example.com', 'control_character'],
    ['a@example.com\n', 'control_character'],
    ['a\t@example.com', 'control_character'],
    ['a\u2028@example.com', 'control_character'],
    ['a\u2029@example.com', 'control_character'],
    ['a\u200b@example.com', 'invisible_character'],
    ['\ufeffa@example.com', 'invisible_character'],
    ['a@example.com\ufeff', 'invisible_character'],
    ['a\u2060@example.com', 'invisible_character'],
    ['\u202emoc.elpmaxe@a', 'invisible_character'],
    ['a\u00ad@example.com', 'invisible_character'],
    ['a\u034f@example.com', 'invisible_character'],
    ['a\ufe0f@example.com', 'invisible_character'],
    ['a\u3164@example.com', 'invisible_character'],
    ['a\ud800@example.com', 'unpaired_surrogate'],
    ['a\udc00@example.com', 'unpaired_surrogate'],
    ['a\ue000@example.com', 'private_use_character'],
    ['a\u{f0000}@example.com', 'private_use_character'],
    ['a\u0378@example.com', 'unassigned_character'],
    ['a\u{10ffff}@example.com', 'unassigned_character'],
    ['a b@example.com', 'whitespace'],
    ['a@exam ple.com', 'whitespace'],
    ['a\u00a0b@example.com', 'whitespace'],
    ['a\u3000b@example.com', 'whitespace'],
    ['a@b@example.com', 'not_one_at_sign'],
    ['a＠b@example.com', 'not_one_at_sign'],
    ['example.com', 'not_one_at_sign'],
    ['@example.com', 'empty_local_part'],
    ['a@', 'empty_domain'],
    ['"a b"@example.com', 'whitespace'],
    ['"ab"@example.com', 'local_part_syntax'],
    ['a<b>@example.com', 'local_part_syntax'],
    ['a,b@example.com', 'local_part_syntax'],
    ['.a@example.com', 'local_part_syntax'],
    ['a.@example.com', 'local_part_syntax'],
    ['a..b@gmail.com', 'local_part_syntax'],
    ['a@[1.2.3.4]', 'domain_syntax'],
    ['a@exa_mple.com', 'domain_syntax'],
    ['a@b%c3%bc.de', 'domain_syntax'],
    ['a@exam<ple.com', 'domain_syntax'],
    ['a@example..com', 'domain_syntax'],
    ['a@.example.com', 'domain_syntax'],
    ['a@-example.com', 'domain_syntax'],
    ['a@example-.com', 'domain_syntax'],
    ['a@example.com..', 'domain_syntax'],
    ['a@xn--a.com', 'domain_idna'],
    ['a@localhost', 'domain_without_dot'],
    ['a@com.', 'domain_without_dot'],
    [`a@${'x'.repeat(64)}.com`, 'label_too_long'],
    ['a@1.2.3.4', 'numeric_tld'],
    ['a@0x7f.1', 'numeric_tld'],
    ['a@example.123', 'numeric_tld'],
    ['a@example.123.', 'numeric_tld'],
    ['a@0x7f', 'numeric_tld'],
    ['a@example.0x1f', 'numeric_tld'],
    ['a@example.１２３', 'numeric_tld'],
    [`${'x'.repeat(LOCAL_PART_MAX_BYTES + 1)}@example.com`, 'local_part_too_long'],
    [`${'ą'.repeat(33)}@example.com`, 'local_part_too_long'],
    ['+x@gmail.com', 'empty_mailbox'],
    ['+x@example.com', 'empty_mailbox'],
    ['.+x@gmail.com', 'local_part_syntax'],
    ['\u0301@example.com', 'empty_mailbox'],
  ]
  for (const [raw, code] of refusals) t.equal(parsed(raw), code, shown(raw))
})

/** A domain of so many bytes, in labels of at most 63. */
function domainOf(bytes: number): string {
  let domain = 'com'
  while (domain.length < bytes) domain = `${'d'.repeat(Math.min(63, bytes - domain.length - 1))}.${domain}`
  return domain
}

t.test('byte limits: 64 for the local part, 254 for the address as SMTP sees it', async (t) => {
  const at = (local: string, domainBytes: number) => `${local}@${domainOf(domainBytes)}`
  t.equal(Buffer.byteLength(at('a', ADDRESS_MAX_BYTES - 2)), ADDRESS_MAX_BYTES)
  t.equal(typeof parsed(at('x'.repeat(LOCAL_PART_MAX_BYTES), 20)), 'object', '64 bytes before the @')
  t.equal(typeof parsed(`${'ą'.repeat(32)}@example.com`), 'object', '32 two-byte letters are 64 bytes')
  t.equal(typeof parsed(at('a', ADDRESS_MAX_BYTES - 2)), 'object', '254 bytes')
  t.equal(parsed(at('ab', ADDRESS_MAX_BYTES - 2)), 'address_too_long', '255 bytes')
  t.equal(parsed(at('x'.repeat(60), 1_956 - 61)), 'address_too_long', 'the 1,956-byte address')
  t.equal(Buffer.byteLength(at('x'.repeat(60), 1_956 - 61)), 1_956)
  // A Unicode domain is measured in its IDNA form, which is longer here.
  const unicode = `a@${'bücher.'.repeat(20)}com`
  t.ok(Buffer.byteLength(unicode) < ADDRESS_MAX_BYTES)
  t.equal(parsed(unicode), 'address_too_long')
})

t.test('no allowed character turns into a refused one under NFKC, lower case, NFKC', async (t) => {
  const introduced: string[] = []
  for (let point = 0; point <= 0x10ffff; point++) {
    if (point >= 0xd800 && point <= 0xdfff) continue
    const character = String.fromCodePoint(point)
    if (REFUSED.test(character)) continue
    const mapped = character.normalize('NFKC').toLowerCase().normalize('NFKC')
    // Spaces may come out (NBSP is a space); they are looked for after mapping.
    if (REFUSED.test(mapped.replace(/\p{White_Space}/gu, ''))) introduced.push(point.toString(16))
  }
  t.same(introduced, [])
})

// Addresses made of the pieces that tempt a normalizer: case, width, marks, dots, tags,
// Unicode domains, trailing dots, and now and then any character at all.
const piece = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      'a',
      'B',
      'z9',
      '.',
      '+',
      '-',
      '_',
      'ａ',
      'Á',
      'a\u0301',
      'İ',
      'ı',
      'ß',
      'ẞ',
      'ﬁ',
      'Σ',
      'ς',
      'ǅ',
      'Ώ',
      '\u0345',
      'ℌ',
      '①',
      'ⅷ',
      'ё',
      '日本',
      '\u0301',
      '\u0307',
      '＋',
      '．',
    ),
    weight: 9,
  },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 2 }), weight: 1 },
)
const local = fc.array(piece, { minLength: 1, maxLength: 8 }).map((pieces) => pieces.join(''))
const domain = fc
  .tuple(
    fc.array(
      fc.constantFrom(
        'example',
        'Bücher',
        'ｇｍａｉｌ',
        'googlemail',
        'gmail',
        'xn--bcher-kva',
        'mañana',
        'ΣΊΣΥΦΟΣ',
        'i̇',
        'a-b',
        '日本',
      ),
      { minLength: 1, maxLength: 3 },
    ),
    fc.constantFrom('com', 'pl', 'de', 'COM', 'рф', '123'),
    fc.constantFrom('', '.', '。'),
  )
  .map(([labels, tld, end]) => `${labels.join('.')}.${tld}${end}`)
const candidate = fc.oneof(
  {
    arbitrary: fc.tuple(fc.constantFrom('', ' '), local, domain).map(([space, l, d]) => `${space}${l}@${d}${space}`),
    weight: 4,
  },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 1 },
)

t.test('accepted addresses parse to themselves and never hold a refused character', async (t) => {
  let accepted = 0
  fc.assert(
    fc.property(candidate, (raw) => {
      const first = parseEmail(raw)
      if (!first.ok) return true
      accepted++
      const again = parseEmail(first.address)
      return (
        again.ok &&
        again.address === first.address &&
        again.mailbox === first.mailbox &&
        !REFUSED.test(first.address) &&
        !REFUSED.test(first.mailbox) &&
        !/\.[0-9]+$/.test(first.address)
      )
    }),
    { numRuns: 5_000 },
  )
  t.ok(accepted > 1_000, `${accepted} accepted of 5,000`)
})
