/** A shell word in single quotes, whatever it holds: a command shown to be pasted runs as shown. */
export function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`
}
