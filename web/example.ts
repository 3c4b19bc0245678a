import type { ExampleCall } from '../runtime/example-calls.js'
import type { OperationView } from './api-view.js'
import { codeBlock, type Html } from './html.js'
import { prettyJson } from './pretty-json.js'
import type { Site } from './site.js'

/** The example request of an operation and the served snapshot's answer to it, if it has one. */
export function exampleOf(site: Site, operation: OperationView): ExampleCall | undefined {
  return site.served?.examples.get(operation.path)
}

/** An example answer as the pages show it: its JSON indented. */
export function exampleAnswer(call: ExampleCall): Html {
  return codeBlock(prettyJson(JSON.parse(call.body)), 'answer')
}
