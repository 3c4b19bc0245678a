import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { DEFAULTS } from '../runtime/defaults.js'
import { ROOT, fences, type Fence } from './markdown.js'
import { account, outboxMail } from './support.js'

/**
 * The documentation's examples. An example is a ```sh block whose last command is a
 * curl call, followed at once by a ```json block: the answer that call gets from a
 * server on the default sample (`npm start`); or a curl call that saves its answer
 * (`-o NAME.svg`) followed at once by a markdown image of a file by that name, in the
 * folder of the markdown file: the image that call gets. Before the curl call, the block may open
 * accounts the way the documentation tells its reader to:
 *   export KEY=$(node dist/cli/main.js accounts create --email you@example.com --credits 1000 --key-only)
 * A variable is written ${NAME:?message}, so that a shell stops on an unset one instead
 * of sending an empty key.
 */

/** Where the documented calls are sent: `npm start`'s address. */
export const DOCUMENTED_BASE = 'http://127.0.0.1:8080'

export interface Example {
  readonly file: string
  /** The line of the ```json block. */
  readonly line: number
  readonly accounts: readonly AccountLine[]
  /** The curl command, its continuation lines joined. */
  readonly curl: string
  /** The JSON answer shown, or the text of the image shown. */
  readonly answer: unknown
  /** Whether the answer is an image's text rather than JSON. */
  readonly image: boolean
}

export interface AccountLine {
  readonly variable: string
  readonly email: string
  readonly credits: number
}

/** The examples of a markdown file (`file`, from the repository's root), in order. */
export function examples(markdown: string, file: string): Example[] {
  const blocks = fences(markdown)
  const lines = markdown.split('\n')
  const found: Example[] = []
  blocks.forEach((block, i) => {
    if (block.lang !== 'sh') return
    const commands = shellCommands(block.text)
    const curl = commands.at(-1)
    if (curl === undefined || !curl.startsWith('curl ')) return
    const accounts = () => commands.slice(0, -1).map((command) => accountLine(command, `${file}:${block.line}`))
    const next = blocks[i + 1]
    if (next?.lang === 'json' && onlyBlankBetween(lines, block, next)) {
      let answer: unknown
      try {
        answer = JSON.parse(next.text)
      } catch (error) {
        throw new Error(`${file}:${next.line}: the answer is not JSON (${(error as Error).message})`)
      }
      found.push({ file, line: next.line, accounts: accounts(), curl, answer, image: false })
      return
    }
    const saved = / -o (\S+)/.exec(curl)?.[1]
    const after = lines.slice(block.endLine).findIndex((l) => l.trim() !== '')
    const shown = after < 0 ? undefined : /^!\[[^\]]*\]\(([^)]+)\)$/.exec(lines[block.endLine + after]!.trim())?.[1]
    if (saved === undefined || shown === undefined) return
    if (shown !== saved)
      throw new Error(`${file}:${block.line}: the call saves ${saved} but the image shown is ${shown}`)
    const answer = readFileSync(join(ROOT, dirname(file), shown), 'utf8')
    found.push({ file, line: block.endLine + after + 1, accounts: accounts(), curl, answer, image: true })
  })
  return found
}

function onlyBlankBetween(lines: readonly string[], block: Fence, next: Fence): boolean {
  return lines.slice(block.endLine, next.line - 1).every((l) => l.trim() === '')
}

/** The commands of a shell block: continuation lines joined, blank lines and comments left out. */
export function shellCommands(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
}

const ACCOUNT_LINE = /^export ([A-Z_][A-Z0-9_]*)=\$\(node dist\/cli\/main\.js accounts create (.+) --key-only\)$/

function accountLine(command: string, where: string): AccountLine {
  const m = ACCOUNT_LINE.exec(command)
  if (m === null) {
    const allowed = 'export NAME=$(node dist/cli/main.js accounts create ... --key-only) lines, then curl'
    throw new Error(`${where}: an example holds ${allowed}, nothing else: ${command}`)
  }
  const args = words(m[2]!, () => {
    throw new Error(`${where}: no variables in accounts create`)
  })
  const flag = (name: string) => {
    const at = args.indexOf(name)
    return at < 0 ? undefined : args[at + 1]
  }
  const unknown = args.filter((a, i) => a.startsWith('--') && a !== '--email' && a !== '--credits' && i % 2 === 0)
  if (unknown.length > 0 || args.length % 2 !== 0) {
    throw new Error(`${where}: accounts create takes --email and --credits here: ${command}`)
  }
  const email = flag('--email')
  if (email === undefined) throw new Error(`${where}: accounts create needs --email`)
  return { variable: m[1]!, email, credits: Number(flag('--credits') ?? 0) }
}

/**
 * The words of a shell command, quotes removed and variables expanded. A variable must
 * be ${NAME:?message}: a bare $NAME is refused, since a shell would send an unset one as
 * an empty value.
 */
export function words(command: string, variable: (name: string) => string): string[] {
  const out: string[] = []
  let word: string | undefined
  let i = 0
  const expand = () => {
    const m = /^\$\{([A-Za-z_]\w*):\?[^}]*\}/.exec(command.slice(i))
    if (m === null) {
      const rule = 'write a variable as ${NAME:?message}, so that the shell stops when it is unset'
      throw new Error(`${command.slice(i, i + 24)}...: ${rule}`)
    }
    i += m[0].length
    return variable(m[1]!)
  }
  while (i < command.length) {
    const c = command[i]!
    if (c === ' ' || c === '\t') {
      if (word !== undefined) out.push(word)
      word = undefined
      i++
      continue
    }
    word ??= ''
    if (c === "'") {
      const end = command.indexOf("'", i + 1)
      if (end < 0) throw new Error(`an unclosed quote in ${command}`)
      word += command.slice(i + 1, end)
      i = end + 1
    } else if (c === '"') {
      i++
      while (command[i] !== '"') {
        if (i >= command.length) throw new Error(`an unclosed quote in ${command}`)
        if (command[i] === '\\' && '"\\$`'.includes(command[i + 1] ?? '')) {
          word += command[i + 1]
          i += 2
        } else if (command[i] === '$') {
          word += expand()
        } else {
          word += command[i++]
        }
      }
      i++
    } else if (c === '$') {
      word += expand()
    } else if (c === '\\') {
      word += command[i + 1] ?? ''
      i += 2
    } else {
      word += c
      i++
    }
  }
  if (word !== undefined) out.push(word)
  return out
}

export interface CurlRequest {
  readonly method: string
  /** The path and query string. */
  readonly target: string
  readonly headers: Record<string, string>
  readonly body?: string
}

/** The request a documented curl command sends, refusing options the examples do not use. */
export function curlRequest(command: string, variable: (name: string) => string): CurlRequest {
  const [curl, ...args] = words(command, variable)
  if (curl !== 'curl') throw new Error(`not a curl command: ${command}`)
  let method: string | undefined
  let url: string | undefined
  let body: string | undefined
  const headers: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const value = () => {
      const v = args[++i]
      if (v === undefined) throw new Error(`${arg} without its value in ${command}`)
      return v
    }
    if (arg === '-H' || arg === '--header') {
      const header = value()
      const colon = header.indexOf(':')
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim()
    } else if (arg === '-X' || arg === '--request') method = value()
    else if (arg === '-d' || arg === '--data' || arg === '--data-raw') body = value()
    else if (arg === '-s' || arg === '--silent') continue
    // Where the answer is saved: the example's image.
    else if (arg === '-o' || arg === '--output') value()
    else if (arg === '--create-dirs') continue
    else if (arg.startsWith('-')) throw new Error(`curl ${arg} is not an option the examples use: ${command}`)
    else if (url === undefined) url = arg
    else throw new Error(`two addresses in ${command}`)
  }
  if (url === undefined || !url.startsWith(`${DOCUMENTED_BASE}/`)) {
    throw new Error(`an example calls ${DOCUMENTED_BASE}/...: ${command}`)
  }
  return {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    target: url.slice(DOCUMENTED_BASE.length),
    headers,
    ...(body === undefined ? {} : { body }),
  }
}

/**
 * Runs a file's examples, in order, against a server at `base` on the ledger folder
 * `ledger` (mail in `outbox`), as a reader would: each account line opens its account,
 * whose key the variable then holds; ${CODE} is the one-time code last mailed. Each call
 * comes from an address of its own (the server must trust 127.0.0.1 as a proxy), so that
 * keyless calls do not use up one another's demo quota; an answer that shows the demo
 * quota used up is asked for once the quota is.
 */
export class ExampleRunner {
  private readonly keys = new Map<string, string>()
  private address = 0

  constructor(
    private readonly base: string,
    private readonly ledger: string,
    private readonly outbox: string,
  ) {}

  async answer(example: Example): Promise<unknown> {
    for (const line of example.accounts) {
      this.keys.set(line.variable, (await account(this.ledger, line.email, line.credits)).key)
    }
    const request = curlRequest(example.curl, (name) => this.variable(name, example))
    const from = `198.51.100.${++this.address}`
    if (errorCode(example.answer) === 'DEMO_LIMIT_REACHED') {
      for (let i = 0; i < DEFAULTS.demoQuota; i++) await this.send(request, from)
    }
    const answer = await this.send(request, from)
    return example.image ? answer.text() : answer.json()
  }

  private variable(name: string, example: Example): string {
    const key = this.keys.get(name)
    if (key !== undefined) return key
    if (name === 'CODE') return lastMailedCode(this.outbox)
    throw new Error(`${example.file}:${example.line}: \${${name}} is set by no account line before it`)
  }

  private send(request: CurlRequest, from: string): Promise<Response> {
    return fetch(`${this.base}${request.target}`, {
      method: request.method,
      headers: { ...request.headers, 'x-forwarded-for': from },
      ...(request.body === undefined ? {} : { body: request.body }),
    })
  }
}

/** The one-time code an outbox received last, whoever it went to. */
export function lastMailedCode(outbox: string): string {
  const code = outboxMail(outbox)
    .flatMap((m) => /one-time code is (\d{6})/.exec(m.text)?.[1] ?? [])
    .at(-1)
  if (code === undefined) throw new Error('no one-time code was mailed yet')
  return code
}

/** `METHOD /path` of every operation of the OpenAPI document a server at `base` serves. */
export async function servedRoutes(base: string): Promise<string[]> {
  const document = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: Record<string, object> }
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  )
}

function errorCode(answer: unknown): string | undefined {
  const error = (answer as { error?: { code?: unknown } }).error
  return typeof error?.code === 'string' ? error.code : undefined
}

/**
 * Fields whose values a reader's answer has of its own (ids, times, the build, a
 * balance that depends on the calls made before): compared by type only.
 */
const OWN_VALUES = new Set([
  'account_id',
  'id',
  'time',
  'created',
  'key_prefix',
  'snapshot',
  'credits_remaining',
  'balance_after',
  'checkout_url',
  'session_id',
  'expires_at',
])

/** An answer with the values of OWN_VALUES (and an account's total of credits used) replaced by their type. */
export function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable)
  if (typeof value !== 'object' || value === null) return value
  const account = 'credits_granted' in value
  const own = (k: string) => OWN_VALUES.has(k) || (account && k === 'credits_used')
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, own(k) ? `<${typeof v}>` : comparable(v)]))
}
