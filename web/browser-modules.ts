import { readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { etagOf } from '../runtime/etag.js'
import type { Resource } from './resource.js'

/** The compiled code's root (dist/): the browser loads modules by their path under it. */
const COMPILED = new URL('../', import.meta.url)
const JS = 'text/javascript; charset=utf-8'
/** A static import or re-export of another module (`from './x.js'`), or one imported for its effect (`import './x.js'`). */
const IMPORT = /\b(?:from|import)\s*(['"])([^'"]+)\1/g
/** A module loaded at run time, which this set could not know to serve. */
const DYNAMIC_IMPORT = /\bimport\s*\(/
/** The compiler's last line, naming a source map the browser is not given. */
const SOURCE_MAP = /\n\/\/# sourceMappingURL=\S+\s*$/

/** A set of ES modules for the browser, under one address that changes whenever any of them does. */
export interface BrowserModules {
  /** Each module as a resource to serve, cached for a year (its address names its version). */
  readonly resources: readonly Resource[]
  /** A module of the set, by its path under the compiled root. */
  module(path: string): Resource
}

/**
 * The page scripts given (path under the compiled root, text), and every compiled module
 * they import, followed to the end: the same drawing code the server runs, served to the
 * browser as it is. Throws at start-up when a module imports what a browser cannot load
 * (a package or a Node built-in), rather than failing in a visitor's browser.
 */
export function browserModules(scripts: Readonly<Record<string, string>>): BrowserModules {
  const bodies = new Map<string, string>()
  const add = (path: string, body: string) => {
    bodies.set(path, body)
    if (DYNAMIC_IMPORT.test(body)) throw new Error(`${path} imports a module at run time, which this set cannot serve`)
    for (const [, , target] of body.matchAll(IMPORT)) {
      if (!target!.startsWith('./') && !target!.startsWith('../'))
        throw new Error(`${path} imports '${target}', which a browser cannot load`)
      const resolved = posix.join(posix.dirname(path), target!)
      if (resolved === '..' || resolved.startsWith('../'))
        throw new Error(`${path} imports '${target}', outside the compiled code`)
      if (!bodies.has(resolved))
        add(resolved, readFileSync(new URL(resolved, COMPILED), 'utf8').replace(SOURCE_MAP, '\n'))
    }
  }
  for (const [path, body] of Object.entries(scripts)) add(path, body)
  const paths = [...bodies.keys()].sort()
  const version = etagOf(paths.map((path) => `${path}\0${bodies.get(path)}`).join('\0')).slice(1, 13)
  const resources = paths.map((path) => {
    const body = bodies.get(path)!
    return {
      path: `/assets/modules/${version}/${path}`,
      body,
      contentType: JS,
      etag: etagOf(body),
      cacheControl: 'public, max-age=31536000, immutable',
    }
  })
  const module = (path: string) => {
    const found = resources[paths.indexOf(path)]
    if (found === undefined) throw new Error(`${path} is not a module of this set`)
    return found
  }
  return { resources, module }
}
