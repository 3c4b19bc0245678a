import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import type { Test } from 'tap'
import { freshDir } from './support.js'

/** Debian's Chromium: .ci/run installs it, and without it the browser tests fail rather than skip. */
export const CHROMIUM = '/usr/bin/chromium'
/** Without the background-networking flags Chromium reaches for Google's services on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Why the browser tests cannot run here, or undefined when Chromium is installed. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `${CHROMIUM} is missing: the browser tests need Debian's chromium (apt-get install chromium, as .ci/run does)`
}

/** What a browser did that a page test checks: its requests, and anything that went wrong. */
export interface Seen {
  /** Requests to elsewhere than 127.0.0.1, requests that failed, errors of the page's scripts. */
  readonly problems: string[]
  /** Every request: its method, its address and whether it carried an API key. */
  readonly requests: { readonly method: string; readonly url: string; readonly key: boolean }[]
  /** The console's errors; one for an error status as "<status> <path>". */
  readonly consoleErrors: string[]
}

const SCREENSHOTS = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url))

/**
 * A browser of its own profile, 1280 x 900, closed when the test ends, with its page and
 * a record of what it does.
 */
export async function openBrowser(t: Test): Promise<{ context: BrowserContext; page: Page; seen: Seen }> {
  const context = await chromium.launchPersistentContext(freshDir(t), {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  })
  t.teardown(() => context.close())
  const page = context.pages()[0] ?? (await context.newPage())
  const seen: Seen = { problems: [], requests: [], consoleErrors: [] }
  context.on('request', (r) => {
    seen.requests.push({ method: r.method(), url: r.url(), key: r.headers()['x-api-key'] !== undefined })
    if (new URL(r.url()).hostname !== '127.0.0.1') seen.problems.push(`request to ${r.url()}`)
  })
  context.on('requestfailed', (r) => {
    // The browser's own cancelling: an icon it was still fetching when the test moved to the next page (icons are
    // no part of a page's load). A failure of the server shows as a reset, an empty answer or an error status.
    if (r.failure()?.errorText === 'net::ERR_ABORTED') return
    seen.problems.push(`failed: ${r.url()} (${r.failure()?.errorText})`)
  })
  page.on('pageerror', (error) => seen.problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const status = /status of (\d+)/.exec(message.text())?.[1]
    const url = message.location().url
    seen.consoleErrors.push(
      status !== undefined && url.startsWith('http://127.0.0.1')
        ? `${status} ${new URL(url).pathname}`
        : `${message.text()} (${url})`,
    )
  })
  return { context, page, seen }
}

/** The whole page as a PNG among the test artifacts (test-artifacts/screenshots/<name>.png). */
export function screenshot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  return page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}
