import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LEDGER_FOLDER } from './ledger-options.js'
import { visible } from './terminal-text.js'

/**
 * This CLI as a newcomer's shell names it from the server's folder: the compiled file
 * itself, never `npx carmarket`, which may install the folder as a package first and
 * recompile it (its `prepare` step) under the running server.
 */
const CLI_HERE = relative(process.cwd(), fileURLToPath(new URL('./main.js', import.meta.url)))

/**
 * What `carmarket serve` tells a newcomer below its "serving on" line: where the pages
 * are, where mail goes, and the one line that makes a key on the ledger this server uses (a script-ready
 * `--key-only`), then a call with it. A ledger URL's password is never printed.
 */
export function startBanner(publicUrl: string, ledger: string, mail: string): string {
  const ledgerFlag = ledger === LEDGER_FOLDER ? '' : ` --ledger ${visible(shellWord(withoutPassword(ledger)))}`
  const url = visible(publicUrl)
  return [
    `  home      ${url}/`,
    `  docs      ${url}/docs`,
    `  register  ${url}/register`,
    `  mail      ${visible(mail)}`,
    '  a key for local calls (in another terminal, in this folder):',
    `    export KEY=$(node ${visible(shellWord(CLI_HERE))} accounts create --email you@example.com --credits 1000 --key-only${ledgerFlag})`,
    `    curl -H "X-API-Key: \${KEY:?run the line above first}" "${url}/v1/market/valuation?make=VW&model=Golf&year=2017"`,
    '',
  ].join('\n')
}

function withoutPassword(location: string): string {
  if (!URL.canParse(location)) return location
  const url = new URL(location)
  if (url.password === '') return location
  url.password = 'PASSWORD'
  return url.href
}

/**
 * `text` as one word for a POSIX shell: as it is when nothing in it is special (a plain
 * path reads best in a banner), else single-quoted as runtime/shell-word.ts quotes.
 */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}
