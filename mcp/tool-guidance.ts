import { OPERATIONS, type Operation } from '../format/schema.js'

/** When a model should pick each market operation: the document says what they return, not when they help. */
const MARKET_USE: Readonly<Record<Operation, string>> = {
  valuation:
    'Use it for what a particular car is worth now: the typical asking price, its spread and how sure the median is, optionally narrowed by fuel type, gearbox, body type, version (or words after the model: Golf GTI, 320d, A4 Avant 2.0 TDI), engine power and mileage (listings within ±30% of it), with what mileage does to the price and whether an asking price is a good deal. Check matched: unresolved words were not applied.',
  'price-history': 'Use it for how asking prices of a model moved month by month: depreciation, trends, when to sell.',
  liquidity: 'Use it for how quickly a model sells: the estimated days on market and how many listings are active.',
  'valuation-factors':
    'Use it for what an attribute is worth: imported against domestic, automatic against manual, each fuel against petrol.',
  regional:
    'Use it for where in Poland a model is cheaper or dearer: the average price in each voivodeship against the national average.',
  depreciation: 'Use it for how fast a model loses value with age, or to compare production years before choosing one.',
}

/** When to use each operation, by path: what llms.txt and the MCP server's instructions tell a model. */
export const USE: ReadonlyMap<string, string> = new Map([
  ...OPERATIONS.map((o): [string, string] => [`/v1/market/${o}`, MARKET_USE[o]]),
  [
    '/v1/catalog/makes',
    'Use it to learn which makes the data hold, and how many listings each has, before asking about one.',
  ],
  [
    '/v1/catalog/models',
    'Use it to find the exact model names of a make and the production years a market call can be answered for, instead of guessing names.',
  ],
  [
    '/v1/catalog/versions',
    'Use it to see which versions, generations and body types the listings of a model and year give, before narrowing a valuation or depreciation to one (a version, a body_type, or words after the model such as Golf GTI).',
  ],
  [
    '/v1/account/me',
    'Use it to check the credit balance before a series of paid calls, and whether the account is active.',
  ],
  ['/v1/account/usage', 'Use it to list recent charges and refunds, for instance to reconcile spending.'],
  [
    '/v1/account/keys/rotate',
    "Use it only when the account's owner asks to replace a key that may have leaked: the new key goes to their e-mail, and the one in use stops working at once.",
  ],
])
