import { MIN_LISTINGS } from '../format/schema.js'
import type { ErrorCode } from '../query/api-error.js'
import { BATCH } from './batch-call.js'
import { WEBHOOK_BODY_BYTES } from './billing.js'
import { MAX_BODY_BYTES } from './json-body.js'
import { MAX_MCP_BODY_BYTES } from './mcp-route.js'
import { MAX_URL_LENGTH } from './query-string.js'

const kib = (bytes: number) => `${bytes / 1024} KiB`

/**
 * What each error code means, for the reference's table of codes: one sentence a code of
 * its own, every limit quoted from its home. (Each operation's responses say what the
 * codes mean for it.)
 */
export const ERROR_MEANINGS: Readonly<Record<ErrorCode, string>> = {
  INVALID_PARAMETER:
    'A parameter or body field is missing, out of range, unknown or given twice, or contradicts a word of the model: `parameter` names it, and `accepted` lists the spellings of `fuel_type`, `gearbox` or `body_type`. No credits are used.',
  UNAUTHORIZED:
    'The `X-API-Key` is empty or unknown, or an account route came with neither a key nor a session of the account page.',
  ACCOUNT_DISABLED: "The key's account is disabled: the message names the support address.",
  INSUFFICIENT_CREDITS: "The balance is below the call's price: `top_up_url` is where to buy credits.",
  INSUFFICIENT_DATA: `The model-year has fewer than ${MIN_LISTINGS} listings, with the filters and version words given (\`suggestions\` names the most listed versions). No credits are used.`,
  NOT_FOUND: 'No such make, model or route: a name not found comes with `suggestions`.',
  METHOD_NOT_ALLOWED: 'The route answers other methods, which `Allow` lists.',
  IDEMPOTENCY_KEY_IN_FLIGHT: 'A call with this `Idempotency-Key` is still running: retry after `Retry-After`.',
  PAYLOAD_TOO_LARGE: `The body is larger than its route takes: ${kib(MAX_BODY_BYTES)} for registration, signing in and checkouts, ${kib(BATCH.maxBodyBytes)} for a batch, ${kib(MAX_MCP_BODY_BYTES)} for \`/mcp\`, ${kib(WEBHOOK_BODY_BYTES)} for Stripe's events.`,
  URI_TOO_LONG: `The request target is longer than ${MAX_URL_LENGTH} characters.`,
  UNSUPPORTED_MEDIA_TYPE: 'The body is not `application/json` (or, for a checkout, a web form).',
  IDEMPOTENCY_KEY_REUSED: 'The `Idempotency-Key` came with another request in the last 24 hours.',
  DEMO_LIMIT_REACHED: "The keyless demo tier's calls of the day are used: `register_url` is where to get a free key.",
  RATE_LIMIT_EXCEEDED:
    'Too many requests from this client address, or too many codes, accounts or checkouts: `Retry-After` says when to come back.',
  INTERNAL_ERROR: 'The server failed; nothing was charged. Retry.',
  NOT_READY: 'No snapshot is served yet: the server is starting, or waiting for its first build.',
  SERVICE_UNAVAILABLE:
    'The ledger, the mail or the payment provider cannot be reached now; nothing was charged. Retry after `Retry-After`.',
}
