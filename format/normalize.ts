/**
 * The data contract's normalize(): Unicode NFKD, diacritics removed (and `ł` to `l`,
 * which NFKD leaves alone because it is a letter of its own, not l + a mark), lower
 * case, every run of characters other than letters and digits turned into one space,
 * trimmed. Names, fuel types, gearboxes and voivodeships are all compared this way.
 *
 * @example normalize('  Škoda ') === 'skoda'; normalize('Mercedes-Benz') === 'mercedes benz'
 */
export function normalize(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[łŁ]/g, 'l')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}

/** normalize() with the spaces taken out too, for vocabularies that are spacing-insensitive. */
export function compact(s: string): string {
  return normalize(s).replace(/ /g, '')
}
