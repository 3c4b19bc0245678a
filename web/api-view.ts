/**
 * The OpenAPI document as the web pages read it: every operation with its parameters,
 * price, key requirement and responses, in typed form. The pages are generated from this
 * view of the served document, so they cannot drift from it.
 */

export interface ParameterView {
  readonly name: string
  /** `query`, or `body` for a field of a JSON request body. */
  readonly location: string
  readonly required: boolean
  readonly description: string
  /** The type and what the schema accepts: values, range, length, default. */
  readonly accepts: string
  readonly example: string | undefined
}

export interface ResponseView {
  readonly status: string
  readonly description: string
  /** The error codes this status carries. */
  readonly codes: readonly string[]
}

/** `optional`: without a key the call is served by the keyless demo tier. */
export type KeyUse = 'required' | 'optional' | 'none'

export interface OperationView {
  /** The fragment of the operation's section in /docs. */
  readonly anchor: string
  readonly method: string
  readonly path: string
  readonly tag: string
  readonly summary: string
  /** The summary without the price it ends with, for lists that show the price apart. */
  readonly title: string
  readonly description: string | undefined
  /** The first sentence of the description, for lists; empty without one. */
  readonly lead: string
  readonly credits: number | undefined
  readonly key: KeyUse
  readonly parameters: readonly ParameterView[]
  readonly bodyExample: unknown
  /** The media type of a success that is an image (an SVG chart), which a caller saves rather than reads. */
  readonly image: string | undefined
  readonly responses: readonly ResponseView[]
}

export interface TagView {
  readonly name: string
  readonly description: string
  readonly operations: readonly OperationView[]
}

export interface ApiView {
  readonly title: string
  readonly version: string
  readonly description: string
  readonly server: string
  readonly keyHeader: string
  readonly operations: readonly OperationView[]
  readonly tags: readonly TagView[]
}

type Json = Record<string, unknown>

/** Operations the document leaves untagged: the document itself and the health checks. */
const UNTAGGED = { name: 'service', description: 'The machine-readable description and the health checks.' }
const METHODS = ['get', 'post'] as const

/** Reads the served document's JSON; throws, naming the place, if it lacks what the pages show. */
export function apiView(documentJson: string): ApiView {
  const doc = record(JSON.parse(documentJson), 'the document')
  const info = record(doc.info, 'info')
  const scheme = Object.values(record(record(doc.components, 'components').securitySchemes, 'securitySchemes'))
    .map((s) => record(s, 'a security scheme'))
    .find((s) => s.type === 'apiKey')
  if (scheme === undefined) throw new Error('OpenAPI document: no apiKey security scheme')
  const operations = Object.entries(record(doc.paths, 'paths')).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = record(item, path)[method]
      return operation === undefined
        ? []
        : [operationView(path, method, record(operation, `${method} ${path}`), doc.security)]
    }),
  )
  const tags = [...list(doc.tags, 'tags').map((t) => record(t, 'a tag')), UNTAGGED].map((t) => {
    const name = text(t.name, 'a tag name')
    return {
      name,
      description: text(t.description, `tag ${name}`),
      operations: operations.filter((o) => o.tag === name),
    }
  })
  return {
    title: text(info.title, 'info.title'),
    version: text(info.version, 'info.version'),
    description: text(info.description, 'info.description'),
    server: text(record(list(doc.servers, 'servers')[0], 'the server').url, 'the server url'),
    keyHeader: text(scheme.name, 'the key header'),
    operations,
    tags: tags.filter((t) => t.operations.length > 0),
  }
}

function operationView(path: string, method: string, operation: Json, globalSecurity: unknown): OperationView {
  const where = `${method} ${path}`
  const responses = record(operation.responses, `${where} responses`)
  const body =
    operation.requestBody === undefined ? undefined : json(record(operation.requestBody, `${where} requestBody`), where)
  const credits = operation['x-credits']
  const summary = text(operation.summary, `${where} summary`)
  const description =
    operation.description === undefined ? undefined : text(operation.description, `${where} description`)
  return {
    anchor: `${method}${path}`
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/-$/, ''),
    method: method.toUpperCase(),
    path,
    tag: operation.tags === undefined ? UNTAGGED.name : text(list(operation.tags, `${where} tags`)[0], `${where} tag`),
    summary,
    title: summary.replace(/ \(\d+ credits\)\.?$/, ''),
    description,
    lead: description === undefined ? '' : firstSentence(description),
    credits: typeof credits === 'number' ? credits : undefined,
    key: keyUse(operation.security ?? globalSecurity),
    parameters: [
      ...list(operation.parameters ?? [], `${where} parameters`).map((p) =>
        queryParameter(record(p, `a parameter of ${where}`)),
      ),
      ...(body === undefined ? [] : bodyFields(record(body.schema, `${where} body schema`))),
    ],
    bodyExample: body?.example,
    image: imageType(responses['200']),
    responses: Object.entries(responses).map(([status, response]) => {
      const r = record(response, `${where} ${status}`)
      return {
        status,
        description: text(r.description, `${where} ${status} description`),
        codes: Object.keys(json(r, where)?.examples ?? {}),
      }
    }),
  }
}

/** The application/json content of a request body or a response, if it has one (an image has none). */
function json(holder: Json, where: string): { schema?: unknown; example?: unknown; examples?: Json } | undefined {
  if (holder.content === undefined) return undefined
  const media = record(holder.content, `${where} content`)['application/json']
  if (media === undefined) return undefined
  const content = record(media, `${where} application/json`)
  return {
    schema: content.schema,
    example: content.example,
    examples: content.examples === undefined ? undefined : record(content.examples, `${where} examples`),
  }
}

function imageType(success: unknown): string | undefined {
  if (!isJson(success) || !isJson(success.content)) return undefined
  return Object.keys(success.content).find((type) => type.startsWith('image/'))
}

function keyUse(security: unknown): KeyUse {
  const requirements = list(security, 'security').map((s) => record(s, 'a security requirement'))
  if (requirements.length === 0) return 'none'
  return requirements.some((r) => Object.keys(r).length === 0) ? 'optional' : 'required'
}

function queryParameter(p: Json): ParameterView {
  const name = text(p.name, 'a parameter name')
  return {
    name,
    location: text(p.in, `parameter ${name} in`),
    required: p.required === true,
    description: text(p.description, `parameter ${name} description`),
    accepts: accepts(record(p.schema, `parameter ${name} schema`)),
    example: p.example === undefined ? undefined : String(p.example),
  }
}

function bodyFields(schema: Json): ParameterView[] {
  const required = list(schema.required ?? [], 'body required')
  return Object.entries(record(schema.properties, 'body properties')).map(([name, field]) => ({
    name,
    location: 'body',
    required: required.includes(name),
    description: '',
    accepts: accepts(record(field, `body field ${name}`)),
    example: undefined,
  }))
}

/** "integer, 1 to 24, default 6": what a schema accepts, in words. */
function accepts(schema: Json): string {
  const parts: string[] = []
  const type = schema.type
  if (typeof type === 'string') parts.push(type)
  else if (Array.isArray(type)) parts.push(type.join(' or '))
  if (typeof schema.format === 'string') parts.push(schema.format)
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`)
  if (schema.const !== undefined) parts.push(`always ${JSON.stringify(schema.const)}`)
  const { minimum, maximum, minLength, maxLength } = schema
  if (typeof minimum === 'number' && typeof maximum === 'number') parts.push(`${minimum} to ${maximum}`)
  else if (typeof minimum === 'number') parts.push(`at least ${minimum}`)
  if (typeof maxLength === 'number')
    parts.push(
      typeof minLength === 'number' ? `${minLength} to ${maxLength} characters` : `at most ${maxLength} characters`,
    )
  if (typeof schema.pattern === 'string') parts.push(`matching ${schema.pattern}`)
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`)
  return parts.join(', ')
}

function firstSentence(text: string): string {
  const end = text.indexOf('. ')
  return end < 0 ? text : text.slice(0, end + 1)
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function record(value: unknown, where: string): Json {
  if (!isJson(value)) throw new Error(`OpenAPI document: ${where} is not an object`)
  return value
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`OpenAPI document: ${where} is not an array`)
  return value
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`OpenAPI document: ${where} is not a string`)
  return value
}
