import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ChartName } from '../charts/charts.js'
import { MIN_LISTINGS } from '../format/schema.js'
import { isJsonObject, type JsonObject } from './json.js'
import { USE } from './tool-guidance.js'

/**
 * The API operation behind each tool. Only the names are chosen here: everything else a
 * tool says (what it is for, its cost, its arguments and its results) is read from the
 * OpenAPI document, so the tools cannot drift from the API they call.
 */
export const TOOL_PATHS = {
  get_market_valuation: '/v1/market/valuation',
  get_price_history: '/v1/market/price-history',
  get_market_liquidity: '/v1/market/liquidity',
  get_valuation_factors: '/v1/market/valuation-factors',
  get_regional_pricing: '/v1/market/regional',
  get_depreciation: '/v1/market/depreciation',
  list_makes: '/v1/catalog/makes',
  list_models: '/v1/catalog/models',
  list_versions: '/v1/catalog/versions',
  get_account: '/v1/account/me',
  get_usage: '/v1/account/usage',
} as const

/** The tools whose answer can also come drawn (`chart: true`), and the chart that draws it. */
export const TOOL_CHARTS: Partial<Record<keyof typeof TOOL_PATHS, ChartName>> = {
  get_market_valuation: 'valuation',
  get_price_history: 'price-history',
  get_regional_pricing: 'regional',
  get_depreciation: 'depreciation',
}

/** The argument that asks for the chart beside the data: drawn from the same answer, so it costs nothing more. */
export const CHART_ARGUMENT = 'chart'

export interface ToolDefinition {
  readonly tool: Tool
  readonly path: string
  /** The chart the tool draws its answer as, when asked. */
  readonly chart: ChartName | undefined
  /** Account operations answer only with a key, so without one they are not offered. */
  readonly needsKey: boolean
}

export interface Toolset {
  readonly tools: readonly ToolDefinition[]
  /** What the service is, for the client's model: the document's own description. */
  readonly instructions: string
}

interface Parameter {
  readonly name: string
  /** query, or header (the protocol's headers, which a tool does not take). */
  readonly in: string
  readonly required: boolean
  readonly description: string
  readonly schema: JsonObject
  readonly example?: unknown
}

function isParameter(value: unknown): value is Parameter {
  return (
    isJsonObject(value) &&
    typeof value.name === 'string' &&
    typeof value.in === 'string' &&
    typeof value.required === 'boolean' &&
    typeof value.description === 'string' &&
    isJsonObject(value.schema)
  )
}

/** The object at `keys` in the document; the document is built by this code, so a missing one is a bug. */
function at(value: unknown, ...keys: string[]): JsonObject {
  const found = keys.reduce<unknown>((current, key) => (isJsonObject(current) ? current[key] : undefined), value)
  if (!isJsonObject(found)) throw new Error(`the OpenAPI document has no object at ${keys.join(' / ')}`)
  return found
}

/**
 * A schema with its references to the document's components replaced by what they name: a tool's schema stands alone.
 */
function inline(schema: unknown, components: JsonObject): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inline(item, components))
  if (!isJsonObject(schema)) return schema
  if (typeof schema.$ref === 'string')
    return inline(at(components, schema.$ref.replace('#/components/schemas/', '')), components)
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inline(value, components)]))
}

/**
 * The arguments of a tool: the query parameters given, each with its schema, description and example; and for a tool
 * with a chart, whether to draw it.
 */
function inputSchema(parameters: readonly Parameter[], chart: ChartName | undefined): Tool['inputSchema'] {
  const drawn = {
    type: 'boolean',
    default: false,
    description: `Also return the answer drawn as an SVG chart (GET /v1/chart/${chart}.svg), as an image content item beside the data; drawn from the same answer, at no extra cost.`,
  }
  return {
    type: 'object',
    properties: Object.fromEntries([
      ...parameters.map((p) => [p.name, withExample(spellingsFree(p.schema), p.description, p.example)]),
      ...(chart === undefined ? [] : [[CHART_ARGUMENT, drawn]]),
    ]),
    required: parameters.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  }
}

/**
 * A parameter's schema as a tool offers it: a word the API reads in any case, with or
 * without accents and spaces (fuel_type, gearbox, body_type), keeps its canonical values
 * as examples rather than an enum, which a client would hold to the letter and so refuse
 * `PETROL` or `manual ` that the API takes. The description names every spelling.
 */
function spellingsFree(schema: JsonObject): JsonObject {
  if (schema.type !== 'string' || !Array.isArray(schema.enum)) return schema
  const { enum: _spellings, ...rest } = schema
  return rest
}

/** A parameter's schema with its description, and its example first among the examples. */
function withExample(schema: JsonObject, description: string, example: unknown): JsonObject {
  const others = Array.isArray(schema.examples) ? schema.examples.filter((value) => value !== example) : []
  const examples = example === undefined ? others : [example, ...others]
  return { ...schema, description, ...(examples.length === 0 ? {} : { examples }) }
}

/** The error object as a tool's output schema needs it: its required members, any others allowed. */
function errorShape(schema: JsonObject): JsonObject {
  const required = Array.isArray(schema.required) ? schema.required.map(String) : []
  return {
    type: 'object',
    properties: Object.fromEntries(required.map((name) => [name, { type: 'string' }])),
    required,
  }
}

/** The tools of the API the document describes. */
export function toolset(document: JsonObject): Toolset {
  const components = at(document, 'components', 'schemas')
  // A failed call's structured result is the envelope's error object, and the SDK's client
  // checks structured results against the output schema whether or not they are errors.
  // Only its shape: the text result and isError tell a model what went wrong, and the
  // document's full description of every code, repeated in each tool, was half of
  // tools/list.
  const error = errorShape(at(components, 'Error', 'properties', 'error'))
  // No requirement at all (the free routes' `security: []`) or an empty one among them (the demo tier's `{}`).
  const anonymous = (requirements: unknown) =>
    Array.isArray(requirements) &&
    (requirements.length === 0 || requirements.some((r) => isJsonObject(r) && Object.keys(r).length === 0))
  const tools = Object.entries(TOOL_PATHS).map(([name, path]): ToolDefinition => {
    const chart = TOOL_CHARTS[name as keyof typeof TOOL_PATHS]
    const operation = at(document, 'paths', path, 'get')
    const parameters: unknown = operation.parameters ?? []
    if (!Array.isArray(parameters) || !parameters.every(isParameter))
      throw new Error(`the OpenAPI document's parameters of ${path} are not as expected`)
    const summary = String(operation.summary)
    const credits = typeof operation['x-credits'] === 'number' ? operation['x-credits'] : 0
    const data = inline(
      at(operation, 'responses', '200', 'content', 'application/json', 'schema', 'properties', 'data'),
      components,
    )
    return {
      tool: {
        name,
        title: summary.replace(/ \(\d+ credits\)\.?$/, ''),
        // Every tool only reads, from this service alone; a paid one charges credits again at each call.
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: credits === 0,
          openWorldHint: false,
        },
        description: typeof operation.description === 'string' ? `${summary}: ${operation.description}` : summary,
        inputSchema: inputSchema(
          parameters.filter((p) => p.in === 'query'),
          chart,
        ),
        outputSchema: { type: 'object', anyOf: [data, error] },
      },
      path,
      chart,
      needsKey: !anonymous(operation.security ?? document.security),
    }
  })
  return { tools, instructions: instructionsFor(tools) }
}

/**
 * What the server tells the client's model when it connects: which tool answers which
 * question, what to do when a name is not found or the data are thin, and what costs
 * credits. Written for a model choosing tools; the HTTP protocol's own means (ETags,
 * Idempotency-Keys, batches) are no concern of an MCP client.
 */
function instructionsFor(tools: readonly ToolDefinition[]): string {
  return [
    'Statistics of the Polish used-car market (asking prices in PLN, 16 voivodeships, monthly history), aggregated from a marketplace’s listings; never an individual listing.',
    '',
    'Choose the tool by the question:',
    ...tools.map((d) => `- ${d.tool.name}${d.needsKey ? ' (with a key)' : ''}: ${USE.get(d.path) ?? d.tool.title}`),
    '',
    'Names: pass the make and model as a person writes them (VW, Golf, Skoda Octavia); they are matched to the catalogue. When one is not found (NOT_FOUND), call list_models with the make (or list_makes) and ask again with a name it lists, rather than guessing.',
    `Thin data: a model-year with fewer than ${MIN_LISTINGS} listings answers INSUFFICIENT_DATA; try a neighbouring year, or drop the fuel, gearbox or mileage filter.`,
    'Costs: each market tool costs credits with a key (its description says how many), or counts against the keyless demo tier; the catalogue and account tools are free, and a call that fails costs nothing.',
    'Charts: the tools that offer `chart: true` also return the answer drawn as an SVG image, at no extra cost.',
  ].join('\n')
}
