/**
 * The HTTP node: one server, one port, four surfaces and the documents.
 *
 *   /api/scan/...        scan      (open)            {error} bodies
 *   /api/validator/...   wallet    (bearer JWT)      {error} bodies
 *   /registry/...        registry  (open)            {error} bodies
 *   /v2/...              ledger    (JWT, users)      text/plain 400, JsCantonError otherwise
 *   /docs                OpenAPI documents and reference pages
 *
 * `NodeRoutes` are the routes this package implements; the engine's handlers are further route
 * Layers (made with `bind`) merged next to them. `serve` puts routes on a Node HTTP listener.
 */
import { HttpLayerRouter, HttpMiddleware, HttpServer, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { NodeRuntime } from "@sandnet/node"
import { Context, Effect, Layer, Option } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { AuthConfig, Authenticator, type AuthSettings } from "./auth.ts"
import { Admin } from "./engine-admin.ts"
import { checkLedgerParticipant } from "./ledger/context.ts"
import { lazyGroup, lazyRoutes, ROUTER_CONFIG } from "./lazy-routes.ts"
import { DEFAULT_HTTP_NODE_SETTINGS, HttpNodeConfig, rootNotFound, rootNotFoundAnswer, type HttpNodeSettings, mergeRoutes } from "./surface.ts"
import { Dialect } from "./dialect/index.ts"
import { makeReadTable, type ReadRoutes, type ReadTable } from "./read-routes.ts"
import { RequestLogs } from "./web/request-log.ts"
import { WebRoutes } from "./web/index.ts"
import { answerClientError, answerNodeStarting, guardRequest } from "./request-guards.ts"
import { scanProxyRegistryPath } from "./wallet/scan-proxy-path.ts"
import { refuseWhileShuttingDown } from "./shutdown.ts"

/**
 * The ledger's websocket clients offer `jwt.token.<token>, daml.ws.auth` as subprotocols and the
 * real system answers `daml.ws.auth`. The upgrade (the `ws` library under @effect/platform-node)
 * selects the first protocol offered, so `daml.ws.auth` is moved to the front before it runs; the
 * token is read from the header wherever it stands.
 */
export const preferDamlWsAuth = (request: IncomingMessage): void => {
  const offered = request.headers["sec-websocket-protocol"]
  if (offered === undefined) return
  const protocols = offered.split(",").map((p) => p.trim())
  const at = protocols.indexOf(DAML_WS_AUTH)
  if (at <= 0) return
  request.headers["sec-websocket-protocol"] = [DAML_WS_AUTH, ...protocols.slice(0, at), ...protocols.slice(at + 1)].join(", ")
}

const DAML_WS_AUTH = "daml.ws.auth"

/** The request listeners (the Effect path) get what the read table leaves (read-routes.ts). */
const askReadsFirst = (server: Server, reads: ReadTable): void => {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse]
      if (reads(request, response, () => void emit("request", request, response))) return true
    }
    return emit(event, ...args)
  }) as Server["emit"]
}

/** Requests held while the Effect path has no listener yet; beyond it they are answered 503 NODE_STARTING. */
export const MAX_EARLY_REQUESTS = 1024

/**
 * The platform's server listens before `serve` attaches its request listener, and a start yields to
 * the event loop in between: Node drops a request that finds no listener, and its client waits
 * forever. Such requests wait here and are emitted to the listener once it is attached.
 */
export const holdEarlyRequests = (server: Server, limit: number = MAX_EARLY_REQUESTS): void => {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  let early: Array<ReadonlyArray<unknown>> = []
  server.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event !== "request" || server.listenerCount("request") > 0) return emit(event, ...args)
    if (early.length < limit) early.push(args)
    else answerNodeStarting(args[0] as IncomingMessage, args[1] as ServerResponse)
    return true
  }) as Server["emit"]
  server.on("newListener", (event: string | symbol) => {
    if (event !== "request" || early.length === 0) return
    const held = early
    early = []
    // "newListener" comes before the listener is added: emit on the next turn.
    setImmediate(() => held.forEach((args) => emit("request", ...args)))
  })
}

const createNodeServer = (reads: ReadTable | undefined) => () => {
  // Host is checked by guardRequest (an answer in the surface's shape, not Node's empty 400).
  const server = createServer({ requireHostHeader: false })
  server.prependListener("upgrade", preferDamlWsAuth)
  server.on("clientError", answerClientError)
  holdEarlyRequests(server)
  if (reads !== undefined) askReadsFirst(server, reads)
  return server
}

/**
 * Every route of this package (ledger admin endpoints, 501 reservations, 404s, /docs). The four
 * surfaces and /docs are loaded at their first request (lazy-routes.ts): each group holds every
 * route under its roots. The web pages and /sandnet (health, the first request of a start) are not.
 */
export const NodeRoutes = mergeRoutes(
  lazyRoutes(
    rootNotFoundAnswer,
    lazyGroup({ roots: ["/v2"], load: () => import("./ledger/index.ts").then((m) => m.LedgerRoutes), atStart: checkLedgerParticipant }),
    lazyGroup({
      roots: ["/api/scan"],
      load: () => import("./scan/routes.ts").then((m) => m.AllScanRoutes)
    }),
    lazyGroup({
      roots: ["/api/validator"],
      load: () => import("./wallet/routes.ts").then((m) => m.AllWalletRoutes)
    }),
    lazyGroup({
      roots: ["/registry"],
      load: () => import("./registry/routes.ts").then((m) => m.AllRegistryRoutes)
    }),
    lazyGroup({ roots: ["/docs"], load: () => import("./openapi.ts").then((m) => m.DocsRoutes) })
  ),
  WebRoutes,
  rootNotFound
)

/**
 * The read and write routes of `NodeRoutes` (read-routes.ts, write-routes.ts): serve NodeRoutes with
 * `reads: NodeReadRoutes`. Each surface's are loaded with its modules, at its first GET or POST (a
 * start loads none).
 */
export const NodeReadRoutes: ReadRoutes = [
  { root: "/api/scan/", load: () => import("./scan/index.ts").then((m) => m.ScanReadRoutes) },
  { root: "/api/validator/", load: () => import("./wallet/index.ts").then((m) => [...m.WalletReadRoutes, ...m.WalletWriteRoutes]) },
  { root: "/registry/", load: () => import("./registry/routes.ts").then((m) => m.RegistryWriteRoutes) },
  {
    // The ledger's write routes serve the participant of the LedgerApiConfig in the server's context
    // (`sandnet start` provides it to the whole server; LocalNet's listeners, localnet/layout.ts,
    // give each port's server and routes that port's participant).
    root: "/v2/",
    load: (deps) =>
      Promise.all([import("./ledger/commands.ts"), import("./ledger/context.ts")]).then(([commands, ledger]) =>
        commands.commandWriteRoutes(ledger.ledgerNodeOf(deps.runtime, Context.get(deps.runtimeOfServer.context, ledger.LedgerApiConfig)))
      )
  }
]

/** Wraps the whole app, before routing (e.g. a Host check). */
export type AppMiddleware = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>

/** The validator forwards its scan proxy's registry calls to scan: they route as `/registry/...`. */
const rewriteScanProxyRegistry: AppMiddleware = (app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const url = scanProxyRegistryPath(request.url)
    return url === request.url ? app : Effect.provideService(app, HttpServerRequest.HttpServerRequest, request.modify({ url }))
  })

export interface ServeOptions {
  readonly http?: Partial<HttpNodeSettings> | undefined
  readonly auth?: Partial<AuthSettings> | undefined
  readonly middleware?: AppMiddleware | undefined
  /**
   * Reads answered without a fiber before the router (read-routes.ts; `NodeReadRoutes` with
   * `NodeRoutes`), none by default. They are not asked while requests are logged or a middleware
   * wraps the app (they would bypass it), nor on a node without an engine runtime.
   */
  readonly reads?: ReadRoutes | undefined
}

/** The read table of the node, or undefined when the Effect path answers everything. */
const readTableOf = (settings: HttpNodeSettings, options: ServeOptions) =>
  Effect.gen(function* () {
    const reads = options.reads ?? []
    const runtime = yield* Effect.serviceOption(NodeRuntime)
    if (reads.length === 0 || settings.logRequests || options.middleware !== undefined || Option.isNone(runtime)) return undefined
    const clock = yield* Effect.clock
    return makeReadTable(reads, {
      runtime: runtime.value,
      runtimeOfServer: yield* Effect.runtime<never>(),
      maxRequestBytes: settings.maxRequestBytes,
      authenticator: yield* Authenticator,
      authSettings: yield* AuthConfig,
      names: yield* Dialect,
      log: yield* RequestLogs,
      nowMillis: () => clock.unsafeCurrentTimeMillis()
    })
  })

/**
 * Serves route Layers on host:port (port 0 picks a free port; read it from `HttpServer`). The
 * routes' own requirements (UserManagement, engine services) stay open for the caller to provide;
 * the Authenticator is built here from UserManagement.
 */
export const serve = <E, R>(routes: Layer.Layer<never, E, R>, options: ServeOptions = {}) => {
  const settings: HttpNodeSettings = { ...DEFAULT_HTTP_NODE_SETTINGS, ...options.http }
  return HttpLayerRouter.serve(routes, {
    routerConfig: ROUTER_CONFIG,
    disableLogger: !settings.logRequests,
    disableListenLog: true,
    middleware: (app) => {
      const outer = options.middleware
      const inner = guardRequest(rewriteScanProxyRegistry(app))
      return refuseWhileShuttingDown(outer === undefined ? inner : outer(inner))
    }
  }).pipe(
    // The platform opens a tracing span per request (URL parsed, every header copied into it);
    // nothing here exports spans, so it is pure cost on every request.
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(HttpNodeConfig.layer(settings)),
    Layer.provideMerge(
      Layer.unwrapEffect(Effect.map(readTableOf(settings, options), (reads) => NodeHttpServer.layer(createNodeServer(reads), { port: settings.port, host: settings.host })))
    ),
    // One authenticator and one request log for the routes and the read table (its verified tokens, its entries).
    Layer.provide(Authenticator.layer),
    Layer.provide(AuthConfig.layer(options.auth ?? {})),
    Layer.provide(RequestLogs.layer)
  )
}

/**
 * A complete node with in-memory user management (the participant administrator
 * `participant_admin` exists; dev tokens for it work at once).
 */
export const layerMemory = (
  options: ServeOptions & { readonly admin?: Admin.UserManagementOptions | undefined } = {}
) =>
  serve(NodeRoutes, { reads: NodeReadRoutes, ...options }).pipe(Layer.provideMerge(Admin.UserManagement.layerMemory(options.admin)))

/** `http://host:port` of the running server. */
export const baseUrl: Effect.Effect<string, never, HttpServer.HttpServer> = Effect.map(HttpServer.HttpServer, (server) =>
  server.address._tag === "TcpAddress"
    ? `http://${server.address.hostname === "0.0.0.0" ? "127.0.0.1" : server.address.hostname}:${server.address.port}`
    : `unix:${server.address.path}`
)
