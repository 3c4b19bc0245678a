/** Text of HTML with its five escapes undone, as a browser reads it. */
export function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
}

/** The sections of /docs, by the method and path of their operation. */
export function operationSections(page: string): Map<string, string> {
  return new Map(
    page
      .split('<article class="operation"')
      .slice(1)
      .map((chunk) => {
        const section = chunk.slice(0, chunk.indexOf('</article>'))
        const heading = /<span class="method [a-z]+">([A-Z]+)<\/span><code>([^<]+)<\/code>/.exec(section)
        return [heading === null ? '' : `${heading[1]} ${heading[2]}`, section]
      }),
  )
}

/** The text of each code block of some markup, and whether it is an example answer. */
export function codeBlocks(markup: string): { answer: boolean; text: string }[] {
  return [...markup.matchAll(/<pre( class="answer")? tabindex="0"><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => ({
    answer: m[1] !== undefined,
    text: unescapeHtml(m[2]!),
  }))
}

/** The address a curl line asks for: its last word, in single quotes. */
export function curlUrl(line: string): URL {
  return new URL(/'([^']+)'\s*$/.exec(line)?.[1] ?? 'invalid:')
}
