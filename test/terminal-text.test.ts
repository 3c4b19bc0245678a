import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { describeAccount } from '../cli/ledger-options.js'
import { lines, terminal, terminalJson, visible } from '../cli/terminal-text.js'
import { account, carmarket, freshDir, rows, spawnServe, toCsv, type Run } from './support.js'

// What a terminal acts on or hides: OSC (retitles the window, ended by BEL), CSI by ESC
// and by its one-character C1 form, DEL, a line break and a line separator, bidi
// overrides and isolates, a zero-width space, a tag character; and a Polish letter,
// which is to stay as it is.
const HOSTILE = 'FV\u001b]0;pwned\u0007\u001b[31m/7\u009b2J\u202e\u2066\u200b\u007f\nx\u2028\u{e0041}ó'
const SHOWN = 'FV\\x1b]0;pwned\\x07\\x1b[31m/7\\x9b2J\\u202e\\u2066\\u200b\\x7f\\x0ax\\u2028\\u{e0041}ó'
// Every character of HOSTILE that must never reach a terminal raw (a line break only
// between lines, so it is looked for inside the value's shown form, not here).
const RAW = /[\u001b\u0007\u009b\u202e\u2066\u200b\u007f\u2028\u{e0041}]/u

t.test('visible escapes what acts on a terminal or hides, and keeps the rest', async (t) => {
  const table: [string, string][] = [
    ['Łódź, Škoda Octavia 1.6 TDI – 50 000 zł', 'Łódź, Škoda Octavia 1.6 TDI – 50 000 zł'],
    ['日本 🚗 Ünïcødé', '日本 🚗 Ünïcødé'],
    ['a\\x1b stays a backslash', 'a\\x1b stays a backslash'],
    ['\u0000\t\r\n', '\\x00\\x09\\x0d\\x0a'],
    ['\u001b[2J\u001b]8;;http://x\u001b\\', '\\x1b[2J\\x1b]8;;http://x\\x1b\\'],
    ['\u007f\u0080\u0085\u009b\u009f', '\\x7f\\x80\\x85\\x9b\\x9f'],
    ['\u00a0\u00ad', '\u00a0\\xad'],
    ['\u061c\u200b\u200d\u200e\u200f\ufeff', '\\u061c\\u200b\\u200d\\u200e\\u200f\\ufeff'],
    ['\u202a\u202b\u202c\u202d\u202e', '\\u202a\\u202b\\u202c\\u202d\\u202e'],
    ['\u2066\u2067\u2068\u2069\u2028\u2029', '\\u2066\\u2067\\u2068\\u2069\\u2028\\u2029'],
    ['\u{e0001}\u{1d173}', '\\u{e0001}\\u{1d173}'],
    ['\ud800x\udfff', '\\ud800x\\udfff'],
    [HOSTILE, SHOWN],
  ]
  for (const [input, shown] of table) t.equal(visible(input), shown, shown)
  t.equal(visible(SHOWN), SHOWN, 'what is shown is shown as it is')
})

t.test('terminalJson escapes DEL, C1 and format characters too, and parses back to the value', async (t) => {
  const value = { reference: HOSTILE, broken: '\ud800', nested: [{ make: '\u009b31m\u202e' }] }
  const json = terminalJson(value)
  t.notMatch(json, RAW)
  t.notMatch(json, /[\u0000-\u0009\u000b-\u001f\ud800]/, 'no raw control but the line breaks of the indentation')
  t.ok(
    json.includes('\\u001b]0;pwned\\u0007') &&
      json.includes('\\u009b') &&
      json.includes('\\u202e') &&
      json.includes('\\udb40\\udc41'),
  )
  t.strictSame(JSON.parse(json), value)
  t.equal(
    terminalJson({ a: 'Łódź' }),
    JSON.stringify({ a: 'Łódź' }, null, 2),
    'ordinary text as JSON.stringify writes it',
  )
})

t.test('terminal keeps the template, escapes its values, and puts a TerminalText in as it is', async (t) => {
  const inner = terminal`one ${HOSTILE}\ntwo`
  t.equal(`${inner}`, `one ${SHOWN}\ntwo`)
  t.equal(`${terminal`[${inner}] ${7} ${'\n'}`}`, `[one ${SHOWN}\ntwo] 7 \\x0a`)
  t.equal(`${lines([terminal`a`, inner])}`, `a\none ${SHOWN}\ntwo`)
})

t.test('an account whose stored e-mail predates the address guard is shown escaped', async (t) => {
  const stored = {
    id: 'acc_1',
    email: `x${HOSTILE}@example.pl`,
    status: 'active',
    balance: 1,
    granted: 1,
    used: 0,
    created: '2026-01-01T00:00:00.000Z',
    key_prefix: 'cm_ab',
    entries: 1,
    key_delivered: true,
  } as const
  const shown = `${describeAccount(stored)}`
  t.notMatch(shown, RAW)
  t.notMatch(shown, /\n/)
  t.ok(shown.includes(`x${SHOWN}@example.pl`))
})

/** Asserts that a run's output holds no raw character a terminal acts on, only line breaks between lines. */
function safe(t: Test, run: Run): void {
  t.notMatch(run.stdout + run.stderr, RAW, 'nothing raw that acts on a terminal')
  t.notMatch(run.stdout + run.stderr, /[\u0000-\u0009\u000b-\u001f\u0080-\u009f]/, 'no other raw control character')
}

t.test('the CLI escapes stored and given text in every output, text and --json', async (t) => {
  const dir = freshDir(t)
  // A file name can hold anything but / and NUL; it becomes the snapshot's source.
  const input = join(dir, `export${HOSTILE.replace('/', '-')}.csv`)
  const inputShown = join(dir, `export${SHOWN.replace('/', '-')}.csv`)
  writeFileSync(input, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
  const snapshots = join(dir, 'snapshots')

  const built = await carmarket(['build', '--input', input, '--snapshots', snapshots, '--as-of', '2026-09-30'])
  t.equal(built.code, 0, built.stderr)
  safe(t, built)
  t.ok(built.stdout.includes(inputShown), 'the build report names its source escaped')
  const info = await carmarket(['snapshot', 'info', '--snapshots', snapshots])
  safe(t, info)
  t.ok(info.stdout.includes(inputShown))
  const infoJson = await carmarket(['snapshot', 'info', '--snapshots', snapshots, '--json'])
  safe(t, infoJson)
  t.equal((JSON.parse(infoJson.stdout) as { source: string }).source, input)

  const query = await carmarket([
    'snapshot',
    'query',
    'valuation',
    '--snapshots',
    snapshots,
    '--make',
    `Zz\u202e\u2066yx`,
    '--model',
    'Golf',
    '--year',
    '2017',
  ])
  t.equal(query.code, 1)
  safe(t, query)
  t.match(
    (JSON.parse(query.stdout) as { error: { message: string } }).error.message,
    'Zz\u202e\u2066yx',
    'the error quotes the make as given',
  )

  const ledger = freshDir(t)
  const { id, key } = await account(ledger, 'floty@example.pl', 100)
  const granted = await carmarket([
    'credits',
    'grant',
    '--ledger',
    ledger,
    '--account',
    id,
    '--credits',
    '5',
    '--reference',
    HOSTILE,
  ])
  t.equal(granted.code, 0, granted.stderr)
  safe(t, granted)
  t.ok(granted.stdout.includes(`(${SHOWN})`))
  const grantedJson = await carmarket([
    'credits',
    'grant',
    '--ledger',
    ledger,
    '--account',
    id,
    '--credits',
    '5',
    '--reference',
    HOSTILE,
    '--json',
  ])
  safe(t, grantedJson)
  t.equal((JSON.parse(grantedJson.stdout) as { reference: string }).reference, HOSTILE)

  // A failed call is recorded with the make as the caller sent it.
  const { port } = await spawnServe(t, ['--snapshots', snapshots, '--ledger', ledger, '--rate-limit', '0'])
  const response = await request(
    `http://127.0.0.1:${port}/v1/market/valuation?make=${encodeURIComponent(HOSTILE)}&model=Golf&year=2017`,
    { headers: { 'x-api-key': key } },
  )
  t.equal(response.statusCode, 400)
  await response.body.dump()

  const usage = await carmarket(['usage', '--ledger', ledger, '--account', id])
  t.equal(usage.code, 0, usage.stderr)
  safe(t, usage)
  const usageLines = usage.stdout.split('\n').filter((line) => line !== '')
  t.equal(usageLines.length, 4, 'one line per entry: no value breaks its line')
  t.ok(usageLines[0]!.includes(`${SHOWN} Golf 2017 INVALID_PARAMETER`), 'the failed call, its make escaped')
  t.ok(
    usageLines[1]!.includes(`(${SHOWN})`) && usageLines[2]!.includes(`(${SHOWN})`),
    'the grants, their references escaped',
  )
  const usageJson = await carmarket(['usage', '--ledger', ledger, '--account', id, '--json'])
  safe(t, usageJson)
  const transactions = (
    JSON.parse(usageJson.stdout) as { transactions: { make: string | null; reference: string | null }[] }
  ).transactions
  t.strictSame(
    transactions.map((e) => [e.make, e.reference]),
    [
      [HOSTILE, null],
      [null, HOSTILE],
      [null, HOSTILE],
      [null, 'test'],
    ],
  )

  const show = await carmarket(['accounts', 'show', '--ledger', ledger, '--account', id])
  t.equal(show.code, 0, show.stderr)
  safe(t, show)
  const unknown = await carmarket(['accounts', 'show', '--ledger', ledger, '--account', HOSTILE])
  t.equal(unknown.code, 2, 'an account named wrongly is a usage error')
  safe(t, unknown)
  t.equal(unknown.stderr.split('\n').length, 2, 'the error is one line')
  t.ok(unknown.stderr.includes(SHOWN), 'the error quotes the id escaped')
  const byEmail = await carmarket(['accounts', 'show', '--ledger', ledger, '--email', `a${HOSTILE}@example.pl`])
  t.equal(byEmail.code, 2)
  safe(t, byEmail)
})
