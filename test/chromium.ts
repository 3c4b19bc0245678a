import { existsSync } from 'node:fs'

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
