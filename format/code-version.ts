import { readFileSync } from 'node:fs'

/** The package's version, recorded in every manifest so a snapshot says what built it. */
export const CODE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version
