import { existsSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import t from 'tap'
import { ROOT, documentationFiles, headingAnchors, links, readDoc } from './markdown.js'

t.test('every relative link of the docs names a file that exists, and a heading of it', async (t) => {
  let checked = 0
  for (const file of documentationFiles()) {
    for (const { target, line } of links(readDoc(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      checked++
      const where = `${file}:${line}: ${target}`
      t.notOk(target.startsWith('/'), `${where} is relative (a link from the root resolves on no viewer)`)
      const [path = '', anchor] = target.split('#', 2) as [string, string | undefined]
      const linked = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)))
      if (!t.ok(existsSync(join(ROOT, linked)), `${where}: ${linked} exists`)) continue
      if (anchor === undefined) continue
      const markdown = linked.endsWith('.md') && statSync(join(ROOT, linked)).isFile()
      const found = markdown && headingAnchors(readDoc(linked)).has(decodeURIComponent(anchor))
      t.ok(found, `${where}: ${linked} has a heading #${anchor}`)
    }
  }
  t.ok(checked >= 20, `${checked} relative links checked`)
})

t.test('anchors are made as GitHub makes them', async (t) => {
  const headings = [
    '# Past one machine',
    '## Streamable HTTP: `POST /mcp`',
    '### Valuation (8 credits)',
    '## Tests',
    '## Tests',
  ]
  const anchors = headingAnchors([...headings, '```sh', '# not a heading', '```'].join('\n'))
  t.same([...anchors], ['past-one-machine', 'streamable-http-post-mcp', 'valuation-8-credits', 'tests', 'tests-1'])
})
