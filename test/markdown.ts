import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project's folder (the tests run from dist/test/). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The documentation, as paths from the project's folder: README.md, every docs/*.md and bench/README.md. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
  return ['README.md', ...docs.map((name) => `docs/${name}`), 'bench/README.md']
}

export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8')
}

/** A fenced code block: its info string's first word, its text, and where it stands in the file (1-based lines). */
export interface Fence {
  readonly lang: string
  readonly text: string
  readonly line: number
  readonly endLine: number
}

/** The fenced blocks of a markdown text (``` or ~~~), in order. */
export function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n')
  const found: Fence[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]!)
    if (open === null) continue
    const marker = open[1]!
    const close = new RegExp(`^${marker[0]}{${marker.length},}\\s*$`)
    const end = lines.findIndex((l, j) => j > i && close.test(l))
    if (end < 0) throw new Error(`line ${i + 1}: a code block that never closes`)
    found.push({ lang: open[2]!, text: lines.slice(i + 1, end).join('\n'), line: i + 1, endLine: end + 1 })
    i = end
  }
  return found
}

/** The lines of a markdown text outside its fenced blocks, with inline code blanked out, keeping line numbers. */
export function proseLines(markdown: string): string[] {
  const lines = markdown.split('\n')
  for (const fence of fences(markdown)) {
    for (let i = fence.line - 1; i < fence.endLine; i++) lines[i] = ''
  }
  return lines.map((line) => line.replace(/(`+)[^`]*?\1/g, ''))
}

/**
 * The anchors GitHub gives a file's headings: lower case, characters other than letters,
 * digits, spaces, hyphens and underscores dropped, spaces made hyphens; a repeated
 * anchor gets -1, -2, ...
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  for (const line of proseLinesKeepingCode(markdown)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)
    if (heading === null) continue
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-')
    let anchor = base
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`
    anchors.add(anchor)
  }
  return anchors
}

/** Lines outside fenced blocks, inline code kept (a heading's code spans count in its anchor). */
function proseLinesKeepingCode(markdown: string): string[] {
  const lines = markdown.split('\n')
  for (const fence of fences(markdown)) {
    for (let i = fence.line - 1; i < fence.endLine; i++) lines[i] = ''
  }
  return lines
}

/** The targets of the inline links and images of a markdown text, with their lines. */
export function links(markdown: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = []
  proseLines(markdown).forEach((line, i) => {
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ target: m[1]!, line: i + 1 })
    }
  })
  return found
}
