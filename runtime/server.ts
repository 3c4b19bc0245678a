import type { KeyObject } from 'node:crypto'
import { DEFAULTS } from './defaults.js'
import { createServer, IncomingMessage, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { OPERATIONS } from '../format/schema.js'
import { CHARTS, CHART_NAMES } from '../charts/charts.js'
import { CHARTS_VERSION } from './charts-version.js'
import { ApiError, notReady, serviceUnavailable } from '../query/api-error.js'
import type { Snapshot } from '../query/snapshot.js'
import { LedgerError } from '../ledger/ledger-error.js'
import { alwaysWanted, type Account, type Counters, type Ledger } from '../ledger/types.js'
import { authenticate } from './authenticate.js'
import { BATCH, batchCall } from './batch-call.js'
import { ACCOUNT_ROUTE_PREFIXES, Cors, accountOrigins, type CorsOrigins } from './cors.js'
import { CLIENT_CLOSED_REQUEST, ClientGone, reachable } from './client-gone.js'
import { clientIp, clientKey, canonicalIp } from './client-ip.js'
import type { DataCall, Exchange, Handler, MarketCall, MarketInput, PageHandler } from './exchange.js'
import { DemoQuota, RateLimiter, type Clock } from './limits.js'
import { chosenEncoding, encodedEtag } from './encodings.js'
import type { ServedDocument } from './openapi.js'
import { MAX_BODY_BYTES, formFields, jsonObject, readBody, readJsonBody } from './json-body.js'
import { Billing, WEBHOOK_BODY_BYTES } from './billing.js'
import type { StripeCheckout } from './stripe-checkout.js'
import { SignIn, sessionCookie, sessionToken } from './sign-in.js'
import { mcpRoute } from './mcp-route.js'
import { catalogCalls } from './catalog-call.js'
import { meteredCall } from './metered-call.js'
import { Metering } from './metering.js'
import { linksOf, type Links } from './links.js'
import { Refusals } from './refusals.js'
import { RequestLog, requestId } from './request-log.js'
import type { MailDelivery } from './mail-delivery.js'
import type { Mailer } from './mailer.js'
import { MAX_URL_LENGTH, parseQuery } from './query-string.js'
import { Registration } from './registration.js'
import { usageLimit } from './usage-limit.js'
import { logEvent } from './events.js'
import { listenedUrl } from './listened-url.js'
import { Metrics, renderMetrics, type MetricsSample } from './metrics.js'
import { processSeries, renderProcessSeries } from './process-metrics.js'
import { ServedSnapshot, type SwapResult } from './served-snapshot.js'
import { ApiResponse, dataBody, errorBody, send, sendData, sendEmpty, sendError, type HeaderList } from './send.js'
import { StorageWatch } from './storage-watch.js'
import { unchanged } from './revalidation.js'

/** The OpenAPI document served, and the pages and files made from it. */
export interface Site {
  readonly document: ServedDocument
  readonly pages: readonly (readonly [path: string, handle: PageHandler])[]
}

export interface RuntimeOptions {
  /** A snapshots folder (its `current` is served) or one snapshot folder. */
  readonly snapshots: string
  /** The Ed25519 public key a snapshot must be signed with to be served; any snapshot without it. */
  readonly verifyKey?: KeyObject | undefined
  /** Accounts, keys and credits. The runtime closes it when it stops. */
  readonly ledger: Ledger
  /** The rate limit, the demo quota and the signup throttles. The runtime closes them when it stops. */
  readonly counters: Counters
  /** Where e-mail goes (registration codes and keys). */
  readonly mailer: Mailer
  /** What sends the mail `mailer` queues, when it queues: started with the runtime, stopped before the ledger closes. */
  readonly mailDelivery?: MailDelivery | undefined
  /**
   * The site for the snapshot served (none before one is open) with the service's links
   * (its public URL, base path and support address): the snapshot's latest production
   * year bounds the requests the document describes, and its figures and answers are
   * what the pages show. Made again for each snapshot swapped in.
   */
  readonly site: (snapshot: Snapshot | undefined, links: Links) => Site
  /** Requests per minute per client address on every route; 0 turns the limit off. */
  readonly rateLimit: number
  /** Successful keyless market calls per client address per UTC day; 0 turns the demo tier off. */
  readonly demoQuota: number
  /** Addresses of the operator's proxies, whose X-Forwarded-For is believed. */
  readonly trustedProxies: readonly string[]
  /** How many leading bits of an IPv6 address make one client for the limits (clientKey); 64 by default. */
  readonly ipv6Prefix?: number
  /**
   * The address callers reach the service at: the OpenAPI document's server, the base of
   * register_url, top_up_url and every link of the pages, the one origin /mcp accepts.
   * By default the address listened on (listenedUrl), known once the port is. A path in
   * it (https://example.com/api) is where the API and the pages answer, and every link
   * names it; they answer at the root too, for a proxy that strips it.
   */
  readonly publicUrl?: string
  /** The mailbox support answers at, named by ACCOUNT_DISABLED and the pages; support@ the public URL's host by default. */
  readonly supportEmail?: string
  /** The mailbox plans are ordered from when they are not sold online (the pages name it); none by default. */
  readonly salesEmail?: string
  /** The payment provider plans are sold online through (POST /v1/billing/checkout and its webhook); none by default. */
  readonly checkout?: StripeCheckout | undefined
  /** Which web pages may call the API (`/v1/...`) from a browser; any by default. */
  readonly corsOrigins?: CorsOrigins
  readonly clock?: Clock
  /** Where one line per request goes; none without it. */
  readonly requestLog?: RequestLog
  /** How /metrics sums every worker's counts (node:cluster); this process's own by default. */
  readonly gatherMetrics?: (own: MetricsSample) => Promise<MetricsSample>
  /** Milliseconds allowed for the headers, for a whole request, and for an idle keep-alive connection. */
  readonly timeouts?: { readonly headers: number; readonly request: number; readonly keepAlive: number }
  /**
   * Told once when the ledger's or the counters' engine is broken for this process (a
   * fatal LMDB error): the process is to stop and be replaced. Without it, such a
   * process answers every call that needs them with 503.
   */
  readonly onStorageBroken?: () => void
}

/**
 * How long close() lets requests in flight finish (every answer from then on closes its
 * connection) before it cuts the connections still open.
 */
export const DRAIN_MS = 10_000
/** Where the site's stylesheets, scripts and images are, each under an address of its own content's hash. */
const ASSETS = '/assets/'
/** A web form's body. */
const FORM = 'application/x-www-form-urlencoded'
/** Seconds a caller refused for want of storage is told to wait. */
const STORAGE_RETRY_SECONDS = 5
const SWEEP_MS = 10 * 60_000
/** A chart, opened by itself in a browser, runs nothing and loads nothing: it is an image. */
const SVG = {
  type: 'image/svg+xml; charset=utf-8',
  headers: ['Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'"],
}

/** An answer made inside the process: its status and the body in the spec's envelope. */
export interface CallResult {
  readonly status: number
  readonly body: string
}
interface Route {
  readonly methods: readonly string[]
  readonly handle: Handler
}

/**
 * The HTTP runtime: node:http and nothing else. A request is rate-limited, routed,
 * validated and answered from the snapshot with one look-up; every failure becomes
 * an error envelope in one place, and anything unexpected a 500 that tells nothing
 * of the server's insides while the process keeps serving.
 */
export class Runtime {
  private readonly served: ServedSnapshot
  private readonly metrics = new Metrics()
  private document!: ServedDocument
  /** The snapshot the document, the pages and the MCP tools were made for. */
  private described: Snapshot | undefined
  private readonly counters: Counters
  private readonly ledger: Ledger
  private readonly rate: RateLimiter
  private readonly demo: DemoQuota
  private readonly trusted: ReadonlySet<string>
  private readonly ipv6Prefix: number
  private readonly routes = new Map<string, Route>()
  private readonly calls = new Map<string, DataCall>()
  private readonly sweeper: NodeJS.Timeout
  private readonly mailDelivery: MailDelivery | undefined
  private readonly signIn: SignIn
  private readonly log: RequestLog | undefined
  private readonly storage: StorageWatch
  private readonly refusals: Refusals
  /** The market's CORS policy, and the account routes' (ACCOUNT_ROUTE_PREFIXES). */
  private readonly cors: Cors
  private readonly accountCors: Cors
  /** The public URL's path, '' at the root: requests under it are routed without it. */
  private readonly basePath: string
  /** Set by close(): every answer from then on closes its connection. */
  private stopping = false

  private constructor(
    options: RuntimeOptions,
    readonly server: HttpServer,
    /** Where the service sends people: its public URL (the one given, or else the address listened on) and more. */
    readonly links: Links,
  ) {
    const { publicUrl } = links
    const clock = options.clock ?? Date.now
    this.log = options.requestLog
    this.counters = options.counters
    this.ledger = options.ledger
    this.storage = new StorageWatch(
      { ledger: this.ledger, counters: this.counters },
      options.onStorageBroken ?? (() => {}),
    )
    this.rate = new RateLimiter(this.counters, options.rateLimit, clock)
    this.demo = new DemoQuota(this.counters, options.demoQuota, links.registerUrl, clock)
    this.refusals = new Refusals(links)
    this.cors = new Cors(options.corsOrigins ?? '*')
    this.accountCors = new Cors(accountOrigins(options.corsOrigins ?? '*', new URL(publicUrl).origin))
    this.basePath = links.basePath
    this.trusted = new Set(options.trustedProxies.map(canonicalIp))
    this.ipv6Prefix = options.ipv6Prefix ?? DEFAULTS.ipv6Prefix
    // The OpenAPI document, and the pages and MCP tools made from it, tell of the served snapshot
    // (the latest year a request may name, its figures, its example answers): made again for each new one.
    const describe = (snapshot: Snapshot | undefined) => {
      const site = options.site(snapshot, links)
      this.described = snapshot
      this.document = site.document
      for (const [path, handle] of site.pages) this.get(path, handle)
      this.post('/mcp', mcpRoute({ call: (...args) => this.call(...args), openApiJson: this.document.body, publicUrl }))
    }
    this.served = new ServedSnapshot(
      options.snapshots,
      (result, serving) => {
        this.metrics.swap(result)
        if (serving !== undefined && serving !== this.described) describe(serving)
      },
      options.verifyKey,
    )
    describe(this.served.snapshot)
    const metering = new Metering(
      this.ledger,
      this.demo,
      this.served,
      this.refusals,
      () => this.storage.note(),
      this.metrics.count,
    )
    for (const operation of OPERATIONS) this.market(`/v1/market/${operation}`, meteredCall(metering, operation))
    for (const name of CHART_NAMES) {
      const draw = CHARTS[name]
      const drawing = { draw: (json: string) => draw(JSON.parse(json)), version: CHARTS_VERSION }
      this.market(`/v1/chart/${name}.svg`, meteredCall(metering, name, drawing), SVG)
    }
    const batch = batchCall(metering)
    this.post('/v1/market/batch', async (req, res, query, ip, exchange) => {
      const reply = await batch({
        path: '/v1/market/batch',
        query,
        body: () => readJsonBody(req, BATCH.maxBodyBytes),
        key: req.headers['x-api-key'],
        idempotencyKey: req.headers['idempotency-key'],
        ip,
        exchange,
      })
      sendData(req, res, reply.data, reply.headers)
    })
    for (const [path, call] of catalogCalls(this.served)) this.data(path, call)
    this.get('/v1/openapi.json', (req, res) => {
      const { etag, body, encoded } = this.document
      const encoding = chosenEncoding(req.headers['accept-encoding'], encoded)
      const tag = encodedEtag(etag, encoding)
      const headers: Record<string, string> = { ETag: tag, 'Cache-Control': 'no-cache' }
      if (encoded !== undefined) headers.Vary = 'Accept-Encoding'
      if (unchanged(req.headers['if-none-match'], tag)) return sendEmpty(res, 304, headers)
      if (encoding === undefined) return send(req, res, 200, body, headers)
      send(req, res, 200, encoded![encoding], { ...headers, 'Content-Encoding': encoding })
    })
    const gather = options.gatherMetrics ?? ((own: MetricsSample) => Promise.resolve(own))
    this.get('/metrics', async (req, res) => {
      const sample = await gather(await this.ownMetrics())
      const text = renderMetrics(sample, Date.now()) + (await renderProcessSeries(sample.node))
      send(req, res, 200, text, {}, 'text/plain; version=0.0.4; charset=utf-8')
    })
    this.data(
      '/v1/account/me',
      this.accountCall(new Set(), (account) => accountData(account)),
    )
    this.data(
      '/v1/account/usage',
      this.accountCall(new Set(['limit']), async (account, params) => {
        const limit = usageLimit(params.get('limit'))
        return { account_id: account.id, limit, transactions: await this.ledger.entries(account.id, limit) }
      }),
    )
    const registration = new Registration(
      this.ledger,
      options.mailer,
      this.counters,
      clock,
      publicUrl,
      this.metrics.count,
    )
    this.signIn = new SignIn(this.ledger, options.mailer, this.counters, clock, this.links)
    this.post('/v1/auth/register', async (req, res, _query, ip) =>
      sendData(req, res, JSON.stringify(await registration.register(await readJsonBody(req), ip))),
    )
    this.post('/v1/auth/verify', async (req, res, _query, ip) =>
      sendData(req, res, JSON.stringify(await registration.verify(await readJsonBody(req), ip))),
    )
    const billing =
      options.checkout === undefined
        ? undefined
        : new Billing(
            options.checkout,
            this.ledger,
            options.mailer,
            this.counters,
            clock,
            this.links,
            this.metrics.count,
          )
    const noCheckout = () =>
      new ApiError(
        'NOT_FOUND',
        `This server does not sell plans online; ${this.links.sales === undefined ? 'its operator has not set up buying' : `order them from ${this.links.sales}`}.`,
      )
    this.post('/v1/billing/checkout', async (req, res, _query, ip, exchange) => {
      const { type, bytes } = await readBody(req, MAX_BODY_BYTES, ['application/json', FORM])
      // A web form (the /buy page, without JavaScript) is sent on to the payment page, or back with the refusal's code.
      const form = type === FORM
      try {
        if (billing === undefined) throw noCheckout()
        const body = form ? formFields(bytes) : jsonObject(bytes)
        const key = req.headers['x-api-key']
        const account = key === undefined ? undefined : await authenticate(this.ledger, key, this.refusals)
        if (key !== undefined && account === undefined)
          throw new ApiError('UNAUTHORIZED', 'The X-API-Key is not a key.')
        exchange.account = account?.id ?? null
        const answer = await billing.checkout(body, account, ip)
        if (!form) return sendData(req, res, JSON.stringify(answer))
        send(req, res, 303, '', { Location: answer.checkout_url }, 'text/plain; charset=utf-8')
      } catch (error) {
        if (!form) throw error
        const failure = this.apiError(error, res.requestId)
        this.metrics.error(failure.code)
        const back = `${this.links.publicUrl}/buy?error=${failure.code}`
        send(req, res, 303, '', { Location: back }, 'text/plain; charset=utf-8')
      }
    })
    this.post('/v1/billing/stripe-webhook', async (req, res) => {
      if (billing === undefined) throw noCheckout()
      const { bytes } = await readBody(req, WEBHOOK_BODY_BYTES, ['application/json'])
      sendData(req, res, JSON.stringify(await billing.webhook(bytes, req.headers['stripe-signature'])))
    })
    this.post('/v1/account/keys/rotate', async (req, res, _query, _ip, exchange) => {
      const account = await this.accountOf(req.headers['x-api-key'], exchange)
      exchange.account = account.id
      sendData(req, res, JSON.stringify(await registration.rotate(account)))
    })
    this.post('/v1/auth/sign-in', async (req, res, _query, ip) =>
      sendData(req, res, JSON.stringify(await this.signIn.request(await readJsonBody(req), ip))),
    )
    this.post('/v1/auth/session', async (req, res) => {
      const { token, answer } = await this.signIn.open(await readJsonBody(req))
      sendData(req, res, JSON.stringify(answer), ['Set-Cookie', sessionCookie(this.links, token)])
    })
    this.post('/v1/auth/sign-out', async (req, res, _query, _ip, exchange) => {
      if (exchange.session !== undefined) await this.signIn.close(exchange.session)
      sendData(req, res, '{"signed_out":true}', ['Set-Cookie', sessionCookie(this.links, undefined)])
    })
    this.get('/livez', (req, res) => sendData(req, res, '{"alive":true}'))
    this.get('/readyz', async (req, res) => {
      const manifest = this.served.snapshot?.manifest
      if (manifest === undefined) throw notReady()
      const failing = await this.storage.failing()
      if (failing.length > 0) {
        const states = Object.fromEntries(failing.map((name) => [name, 'failing']))
        throw new ApiError(
          'SERVICE_UNAVAILABLE',
          `Writes to the ${failing.join(' and the ')} are failing; market calls are refused until they commit again.`,
          states,
          {
            'Retry-After': String(STORAGE_RETRY_SECONDS),
          },
        )
      }
      sendData(req, res, JSON.stringify({ ready: true, snapshot: manifest.build_id, as_of: manifest.as_of }))
    })
    server.on('request', (req: IncomingMessage, res: ApiResponse) => void this.handle(req, res))
    this.sweeper = setInterval(() => {
      // A sweep that cannot be written now is done by a later one; any other failure is a bug to tell.
      const swept = (what: string) =>
        [
          () => this.storage.note(),
          (error: unknown) => {
            if (!(error instanceof LedgerError))
              logEvent('error', `the ${what} could not be swept`, { error: String((error as Error)?.stack ?? error) })
            this.storage.note()
          },
        ] as const
      void this.counters.sweep(clock()).then(...swept('counters'))
      void this.ledger.sweep(clock()).then(...swept('idempotency keys'))
    }, SWEEP_MS).unref()
    this.mailDelivery = options.mailDelivery
    this.mailDelivery?.start()
  }

  /**
   * Listens, then opens the snapshot and makes the site: its links name the address
   * listened on unless a public URL is given, and that address is known only once the
   * port is (port 0 picks a free one). Nothing is answered before the routes are made:
   * they are made in the same turn of the event loop as the listening. The ledger and
   * the counters are closed when the runtime cannot start.
   */
  static async start(options: RuntimeOptions, host: string, port: number): Promise<Runtime> {
    const server = httpServer(options.timeouts ?? DEFAULTS.timeouts)
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          resolve()
        })
      })
      const publicUrl = options.publicUrl ?? listenedUrl(host, (server.address() as AddressInfo).port)
      const selling = { sales: options.salesEmail, payPageOrigin: options.checkout?.payPageOrigin }
      return new Runtime(options, server, linksOf(publicUrl, options.supportEmail, selling))
    } catch (error) {
      server.close()
      await options.counters.close()
      await options.ledger.close()
      throw error
    }
  }

  address(): AddressInfo {
    return this.server.address() as AddressInfo
  }

  /**
   * Stops accepting and lets requests in flight finish, each answer closing its
   * connection, for at most DRAIN_MS; then cuts what is still open (a body that never
   * ends, a client that does not read) and closes the snapshot, the ledger and the counters.
   */
  async close(): Promise<void> {
    this.stopping = true
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()))
    this.server.closeIdleConnections()
    const deadline = setTimeout(() => this.server.closeAllConnections(), DRAIN_MS)
    await closed
    clearTimeout(deadline)
    await this.release()
  }

  /** This process's counts for /metrics. */
  async ownMetrics(): Promise<MetricsSample> {
    const node = await processSeries()
    return this.metrics.sample(this.ledger.commits, this.served.snapshot?.manifest, this.mailDelivery, node)
  }

  /**
   * Serves the snapshot `current` names now, if it is another one and passes its check
   * (what SIGHUP asks for; a new build is also noticed by itself). A snapshot refused
   * before is checked again.
   */
  async reload(): Promise<SwapResult> {
    const result = await this.served.reload(true)
    // An operator who asked is told that it was looked at, also when there was nothing to do.
    if (result === 'unchanged')
      logEvent('info', 'reload: current names the snapshot served; nothing to swap', {
        snapshot: this.served.snapshot?.manifest.build_id ?? null,
      })
    return result
  }

  private async release(): Promise<void> {
    clearInterval(this.sweeper)
    this.log?.flush()
    await this.mailDelivery?.close()
    await this.served.close()
    await this.counters.close()
    await this.ledger.close()
  }

  /** The public URL given, or else the address listened on; without a trailing slash. */
  get publicUrl(): string {
    return this.links.publicUrl
  }

  /** An account route: a key is required, the answer costs nothing. */
  private accountCall(
    known: ReadonlySet<string>,
    data: (account: Account, params: Map<string, string>) => object | Promise<object>,
  ): DataCall {
    return async (query, key, _ip, exchange) => {
      const account = await this.accountOf(key, exchange)
      exchange.account = account.id
      const params = parseQuery(query, known)
      return JSON.stringify(await data(account, params))
    }
  }

  /** Whether a request comes from a page of this site: the browser says so (Sec-Fetch-Site), or names its origin. */
  private fromOwnPages(req: IncomingMessage): boolean {
    const site = req.headers['sec-fetch-site']
    if (site !== undefined) return site === 'same-origin'
    return req.headers.origin === new URL(this.links.publicUrl).origin
  }

  /**
   * The account of an account route's caller: its X-API-Key (401 as authenticate), or,
   * without one, the account page's session; 401 with neither.
   */
  private async accountOf(key: string | string[] | undefined, exchange: Exchange): Promise<Account> {
    const account =
      key === undefined && exchange.session !== undefined
        ? await this.signIn.account(exchange.session)
        : await authenticate(this.ledger, key, this.refusals)
    if (account === undefined) {
      const signedOut = key === undefined && exchange.session !== undefined
      throw new ApiError(
        'UNAUTHORIZED',
        signedOut ? 'The session has ended: sign in again.' : 'This route needs an X-API-Key header.',
      )
    }
    if (account.status !== 'active') throw this.refusals.accountDisabled()
    return account
  }

  /**
   * A data route, answered over HTTP and to in-process callers (the MCP tools) alike:
   * the same checks, metering and errors either way.
   */
  private data(path: string, call: DataCall): void {
    this.calls.set(path, call)
    this.get(path, async (req, res, query, ip, exchange) =>
      sendData(req, res, await call(query, req.headers['x-api-key'], ip, exchange)),
    )
  }

  /**
   * Calls a data route (a market or account operation) from inside the process, as
   * `ip` with `key`: what the MCP endpoint does for its tools, so that their calls are
   * metered exactly like HTTP calls. Never throws: a failure is its error envelope.
   * `exchange` is the enclosing request's, so its log line names the account.
   */
  async call(
    path: string,
    query: string,
    key: string | undefined,
    ip: string,
    exchange: Exchange = { route: path, account: null, wanted: alwaysWanted },
  ): Promise<CallResult> {
    try {
      const call = this.calls.get(path)
      if (call === undefined) throw new ApiError('NOT_FOUND', `No operation ${JSON.stringify(path.slice(0, 100))}.`)
      return { status: 200, body: dataBody(await call(query, key, ip, exchange)) }
    } catch (error) {
      // Nobody is left to tell: the enclosing request ends unanswered.
      if (error instanceof ClientGone) throw error
      const failure = this.apiError(error, null)
      this.metrics.error(failure.code)
      return { status: failure.status, body: errorBody(failure) }
    }
  }

  /**
   * A market route: answered over HTTP with the protocol's headers (the validators, the
   * credits, a 304), and to in-process callers (the MCP tools) as a data call; or, given
   * the answer's `image` type, a market answer drawn (a chart), for HTTP callers only.
   */
  private market(path: string, call: MarketCall, image?: { type: string; headers: HeaderList }): void {
    if (image === undefined)
      this.calls.set(path, (query, key, ip, exchange) =>
        call({ method: 'GET', path, query, key, ip, exchange }).then((reply) => reply.data),
      )
    this.get(path, async (req, res, query, ip, exchange) => {
      const reply = await call(marketInput(req, path, query, ip, exchange))
      if (reply.status === 304) sendEmpty(res, 304, reply.headers)
      else if (image === undefined) sendData(req, res, reply.data, reply.headers)
      else send(req, res, 200, reply.data, [...reply.headers, ...image.headers], image.type)
    })
  }

  /** A read-only route: GET, and HEAD as GET without the body. */
  private get(path: string, handle: Handler): void {
    this.routes.set(path, { methods: ['GET', 'HEAD'], handle })
  }

  /** A route that takes a JSON body. */
  private post(path: string, handle: Handler): void {
    this.routes.set(path, { methods: ['POST'], handle })
  }

  private async handle(req: IncomingMessage, res: ApiResponse): Promise<void> {
    const started = performance.now()
    const id = requestId(req.headers['x-request-id'])
    res.requestId = id
    if (this.stopping) res.setHeader('Connection', 'close')
    const socket = req.socket
    const exchange: Exchange = { route: null, account: null, wanted: () => reachable(socket) }
    const ip = clientIp(req, this.trusted)
    // Limits count clients, which for IPv6 are prefixes; the log keeps the address.
    const client = clientKey(ip, this.ipv6Prefix)
    let gone = false
    try {
      const url = req.url ?? '/'
      const q = url.indexOf('?')
      const path = this.routed(q < 0 ? url : url.slice(0, q))
      const cors = this.corsOf(path)
      // Only the account routes read the account page's session: a market call is never charged by a cookie. A
      // session's change (a POST) must come from this site's own pages, whatever the browser's SameSite rules.
      if (
        (path.startsWith('/v1/account/') || path === '/v1/auth/sign-out') &&
        (req.method === 'GET' || req.method === 'HEAD' || this.fromOwnPages(req))
      )
        exchange.session = sessionToken(req)
      const api = path.startsWith('/v1/') && cors.enabled
      // Before any refusal, so that a page can read every answer of the API, refusals too.
      if (api) res.cors = cors.answer(req.headers.origin)
      if (url.length > MAX_URL_LENGTH)
        throw new ApiError('URI_TOO_LONG', `The request target is longer than ${MAX_URL_LENGTH} characters.`)
      const route = this.routes.get(path)
      // Known before the rate limit, so a refused request is logged and counted under its route.
      // An asset's address carries its hash, new at each deploy: counted under one label, so /metrics stays bounded.
      if (route !== undefined) exchange.route = path.startsWith(ASSETS) ? `${ASSETS}*` : path
      // A browser's preflight asks before a call: answered from headers made at start, neither counted nor charged.
      if (api && req.method === 'OPTIONS') this.preflight(req, res, route, cors)
      else await this.dispatch(req, res, path, route, q < 0 ? '' : url.slice(q + 1), client, exchange)
    } catch (error) {
      // A client that went away before its answer (a body cut off, a reset) is its own doing, not the server's.
      gone = !res.headersSent && (error instanceof ClientGone || !reachable(socket))
      if (res.headersSent || gone) {
        res.destroy()
      } else {
        const failure = this.apiError(error, id)
        this.metrics.error(failure.code)
        sendError(req, res, failure)
      }
    }
    const seconds = (performance.now() - started) / 1000
    const status = gone ? CLIENT_CLOSED_REQUEST : res.statusCode
    this.metrics.observe(exchange.route, status, seconds)
    this.log?.record({
      request_id: id,
      method: req.method ?? '',
      route: exchange.route,
      status,
      duration_ms: Math.round(seconds * 100_000) / 100,
      account_id: exchange.account,
      ip,
    })
  }

  /** A request past its path: rate-limited, then handled by its route (404 without one, 405 for another method). */
  private async dispatch(
    req: IncomingMessage,
    res: ApiResponse,
    path: string,
    route: Route | undefined,
    query: string,
    client: string,
    exchange: Exchange,
  ): Promise<void> {
    for (const [name, value] of Object.entries(await this.rate.admit(client))) res.setHeader(name, value)
    if (route === undefined)
      throw new ApiError(
        'NOT_FOUND',
        `No route ${JSON.stringify((req.url ?? '').split('?')[0]!.slice(0, 100))}; the API is described at ${this.links.publicUrl}/v1/openapi.json.`,
      )
    if (!route.methods.includes(req.method ?? '')) {
      const allow = route.methods.join(', ')
      throw new ApiError('METHOD_NOT_ALLOWED', `${path} answers ${allow} only.`, {}, { Allow: allow })
    }
    await route.handle(req, res, query, client, exchange)
  }

  /** A CORS preflight (OPTIONS) of an API route: 204 with what the route and its policy allow. */
  private preflight(req: IncomingMessage, res: ApiResponse, route: Route | undefined, cors: Cors): void {
    const allow = route?.methods.join(', ') ?? 'GET, HEAD, POST'
    res.cors = cors.preflight(req.headers.origin)
    sendEmpty(res, 204, ['Allow', allow])
  }

  /** The CORS policy of a routed path: the account routes' own, or the market's. */
  private corsOf(path: string): Cors {
    return ACCOUNT_ROUTE_PREFIXES.some((prefix) => path.startsWith(prefix)) ? this.accountCors : this.cors
  }

  /**
   * A request's path as routed: under the public URL's path, without it (the same
   * routes answer at the root too, for a proxy that strips it).
   */
  private routed(path: string): string {
    const base = this.basePath
    // A route of its own is itself, even under a base path that is the start of routes (/v1, /docs).
    if (base === '' || !path.startsWith(base) || this.routes.has(path)) return path
    if (path.length === base.length) return '/'
    return path[base.length] === '/' ? path.slice(base.length) : path
  }

  /**
   * A failure as the ApiError it is answered with: storage that cannot be written is a
   * 503 to retry; anything unexpected is logged and becomes a 500 that tells nothing of
   * the server's insides.
   */
  private apiError(error: unknown, requestId: string | null): ApiError {
    if (error instanceof ApiError) return error
    if (error instanceof LedgerError && error.code === 'in_doubt') {
      this.storage.note()
      return serviceUnavailable(
        'The ledger did not confirm this call in time. If it was charged all the same, the charge is given back as soon as the ledger learns it (a retry under the same Idempotency-Key gets the answer instead); both show in GET /v1/account/usage.',
        STORAGE_RETRY_SECONDS,
      )
    }
    // A read of a broken engine fails with an error of its own, before any write told of it.
    if ((error instanceof LedgerError && error.code === 'unavailable') || this.storage.broken()) {
      this.storage.note()
      return serviceUnavailable(
        'The service cannot record calls at the moment; nothing was charged or counted. Please retry shortly.',
        STORAGE_RETRY_SECONDS,
      )
    }
    logEvent('error', 'unexpected error', { request_id: requestId, error: String((error as Error)?.stack ?? error) })
    return new ApiError('INTERNAL_ERROR', 'The server failed to answer; no credits were used. Please retry.')
  }
}

type HttpServer = Server<typeof IncomingMessage, typeof ApiResponse>

/**
 * Bounded headers and timeouts: a client that sends its request slowly (slowloris) or
 * keeps an idle connection is cut off instead of holding a socket forever.
 */
function httpServer(timeouts: NonNullable<RuntimeOptions['timeouts']>): HttpServer {
  const server = createServer({
    maxHeaderSize: 16 * 1024,
    headersTimeout: timeouts.headers,
    requestTimeout: timeouts.request,
    keepAliveTimeout: timeouts.keepAlive,
    // How often node checks those timeouts: a fraction of the shortest keeps them close to exact.
    connectionsCheckingInterval: Math.min(30_000, timeouts.headers / 4),
    ServerResponse: ApiResponse,
  })
  // A client that sends its request and half-closes (FIN) still reads: it gets its
  // answer, where node would otherwise close the connection without one.
  Object.assign(server, { httpAllowHalfOpen: true })
  // Node closes a keep-alive connection when its idle timer fires. After the process was
  // busy for longer than that (a long pause, a starved CPU), the timer fires before the
  // request the client sent in time is read, and closing then resets that request under
  // the client. So the verdict waits past the next read of the sockets: a connection
  // that received anything is not idle.
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead
    setImmediate(() => {
      if (socket.bytesRead === read) socket.destroy()
    })
  })
  return server
}

/** /v1/account/me */
function accountData(account: Account) {
  return {
    account_id: account.id,
    email: account.email,
    status: account.status,
    credits_remaining: account.balance,
    credits_granted: account.granted,
    credits_used: account.used,
    created: account.created,
    key_prefix: account.key_prefix,
  }
}

/** What a market route hands its call of a request: the request line and the protocol's headers. */
function marketInput(req: IncomingMessage, path: string, query: string, ip: string, exchange: Exchange): MarketInput {
  return {
    method: req.method ?? 'GET',
    path,
    query,
    key: req.headers['x-api-key'],
    ip,
    exchange,
    ifNoneMatch: req.headers['if-none-match'],
    idempotencyKey: req.headers['idempotency-key'],
  }
}
