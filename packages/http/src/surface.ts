/**
 * Surfaces and the binding of endpoints to handlers.
 *
 * An endpoint is declared once with `HttpApiEndpoint` (path, query, body and success Schemas); the
 * same declaration feeds the OpenAPI documents (openapi.ts) and `bind`, which turns it into a route
 * of the node's router that
 * 1. authenticates the caller as the surface requires (wallet: bearer token; ledger: bearer or
 *    `Sec-WebSocket-Protocol` token and an active user; scan, registry: open),
 * 2. decodes path parameters, query parameters and the JSON body (size-limited) with the Schemas,
 * 3. runs the handler, encodes its answer with the success Schema,
 * 4. answers every failure (decode errors, domain errors, defects) in the surface's error shape.
 *
 * Adding a handler:
 *
 *     export const GetThing = HttpApiEndpoint.get("getThing", "/v0/things/:id")
 *       .setPath(Schema.Struct({ id: Schema.String }))
 *       .addSuccess(Thing)
 *     const ScanGroup = HttpApiGroup.make("scan").add(GetThing)      // for the OpenAPI document
 *     export const ScanRoutes = mergeRoutes(
 *       bind(Surfaces.scan, GetThing, ({ path }) => Things.get(path.id))
 *     )
 *
 * (`mergeRoutes`, not `Layer.mergeAll`: the routes of a surface are added by one Layer.)
 */
import {
  HttpApiEndpoint,
  HttpApiSchema,
  OpenApi,
  HttpIncomingMessage,
  HttpLayerRouter,
  HttpMethod,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Clock, Context, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import type { Scope } from "effect/Scope"
import type { IncomingMessage } from "node:http"
import { AuthConfig, AuthenticatedSubject, AuthenticatedUser, Authenticator, bearerToken, websocketToken } from "./auth.ts"
import { Dialect, inbound, outbound } from "./dialect/index.ts"
import { parseJsonText } from "./json-body.ts"
import {
  InvalidRequest,
  NotImplemented,
  PayloadTooLarge,
  PermissionDenied,
  RouteNotFound,
  Unauthenticated,
  describeCause,
  render,
  type HandlerError,
  type RequestLocation,
  type SurfaceName
} from "./errors.ts"

// ---------------------------------------------------------------------------------------------
// Node settings used while serving requests
// ---------------------------------------------------------------------------------------------

export interface HttpNodeSettings {
  /** Default 7575, the JSON ledger API's usual port. */
  readonly port: number
  /** Default 127.0.0.1. */
  readonly host: string
  /**
   * Largest request body accepted, in bytes. Default 10 MiB: Canton's default max inbound message
   * size of its API servers (ServerConfig.defaultMaxInboundMessageSize).
   */
  readonly maxRequestBytes: number
  /** Log one line per request. */
  readonly logRequests: boolean
}

export const DEFAULT_HTTP_NODE_SETTINGS: HttpNodeSettings = {
  port: 7575,
  host: "127.0.0.1",
  maxRequestBytes: 10 * 1024 * 1024,
  logRequests: false
}

export class HttpNodeConfig extends Context.Reference<HttpNodeConfig>()("@sandnet/http/HttpNodeConfig", {
  defaultValue: (): HttpNodeSettings => DEFAULT_HTTP_NODE_SETTINGS
}) {
  static readonly layer = (settings: Partial<HttpNodeSettings>): Layer.Layer<HttpNodeConfig> =>
    Layer.succeed(HttpNodeConfig, { ...DEFAULT_HTTP_NODE_SETTINGS, ...settings })
}

// ---------------------------------------------------------------------------------------------
// Surfaces
// ---------------------------------------------------------------------------------------------

/** open: no credentials; wallet: bearer JWT, the subject is the wallet's user; ledger: JWT + active user. */
export type AuthMode = "open" | "wallet" | "ledger"

export interface Surface {
  readonly name: SurfaceName
  readonly title: string
  /** Prefix of the endpoint paths as declared (scan and wallet paths are relative to it). */
  readonly mount: "" | `/${string}`
  /** Everything under these paths belongs to the surface (its unknown routes 404 in its shape). */
  readonly roots: ReadonlyArray<`/${string}`>
  readonly auth: AuthMode
  /** How a path parameter is named in messages and documents (ledger: `userId` -> `user-id`). */
  readonly displayParam: (name: string) => string
}

const camelToKebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

export const Surfaces = {
  scan: {
    name: "scan",
    title: "Scan",
    mount: "/api/scan",
    roots: ["/api/scan"],
    auth: "open",
    displayParam: (name: string) => name
  },
  wallet: {
    name: "wallet",
    title: "Wallet and validator administration",
    mount: "/api/validator",
    roots: ["/api/validator"],
    auth: "wallet",
    displayParam: (name: string) => name
  },
  registry: {
    name: "registry",
    title: "Token standard registry",
    mount: "",
    roots: ["/registry"],
    auth: "open",
    displayParam: (name: string) => name
  },
  ledger: {
    name: "ledger",
    title: "JSON Ledger API",
    mount: "",
    roots: ["/v2"],
    auth: "ledger",
    displayParam: camelToKebab
  }
} as const satisfies Record<SurfaceName, Surface>

// ---------------------------------------------------------------------------------------------
// Request decoding
// ---------------------------------------------------------------------------------------------

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`),
    ""
  )

/** `identityProviderConfig.issuer: is missing; user.id: Expected string, actual 5`. */
export const formatParseError = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`))
    .join("; ")

const decodeWith = <A, I>(
  schema: Schema.Schema<A, I, never>,
  input: unknown,
  location: RequestLocation,
  name?: (error: ParseResult.ParseError) => string | undefined
): Effect.Effect<A, InvalidRequest> =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })(input).pipe(
    Effect.mapError((error) => {
      const param = name?.(error)
      return new InvalidRequest({
        location,
        ...(param === undefined ? {} : { parameter: param }),
        detail:
          param === undefined
            ? formatParseError(error)
            : ParseResult.ArrayFormatter.formatErrorSync(error)
                .map((issue) => issue.message)
                .join("; ")
      })
    })
  )

const firstKey = (error: ParseResult.ParseError): string | undefined => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const key = issue?.path[0]
  return key === undefined ? undefined : String(key)
}

/** Query parameters: a key that the Schema expects as an array always decodes as one. */
/** The query parameters a schema takes as arrays (computed once per endpoint, not per request). */
const arrayParams = (schema: Schema.Schema.Any): ReadonlySet<string> => {
  const ast = Schema.encodedSchema(schema).ast
  if (ast._tag !== "TypeLiteral") return new Set()
  return new Set(
    ast.propertySignatures
      .filter((ps) => ps.type._tag === "TupleType" || (ps.type._tag === "Union" && ps.type.types.some((t) => t._tag === "TupleType")))
      .map((ps) => String(ps.name))
  )
}

const normalizeQuery = (
  params: Readonly<Record<string, string | Array<string>>>,
  arrays: ReadonlySet<string>
): Record<string, string | ReadonlyArray<string>> => {
  const out: Record<string, string | ReadonlyArray<string>> = {}
  for (const [key, value] of Object.entries(params)) out[key] = Array.isArray(value) || !arrays.has(key) ? value : [value as string]
  return out
}

/**
 * The most of an oversized body read and discarded before the 413 / 400 answer. A client that
 * sends the whole body before reading (most do; with `Connection: close` the node closes after
 * answering) would otherwise have its connection closed under it (EPIPE) and never see the answer;
 * past this cap the node answers and closes at once.
 */
export const MAX_DRAINED_BYTES = 64 * 1024 * 1024

/** Bodies read before the Effect path took their request: a write route (write-routes.ts) leaving it one hands it over. */
const handedOver = new WeakMap<IncomingMessage, Uint8Array>()
export const handOverBody = (request: IncomingMessage, body: Uint8Array): void => void handedOver.set(request, body)

/**
 * Reads the body, refusing more than `limit` bytes: known from Content-Length, or while counting a
 * chunked body. An oversized body is drained (read, not collected) up to `MAX_DRAINED_BYTES`
 * before the refusal, so that the client reads the 413 / 400 answer.
 */
const readBytes = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<Uint8Array, HandlerError> => {
  const declared = request.headers["content-length"]
  const declaredTooLarge = declared !== undefined && Number(declared) > limit
  if (declaredTooLarge && Number(declared) > MAX_DRAINED_BYTES) return Effect.fail(new PayloadTooLarge({ limit }))
  const source = NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage | undefined
  if (source === undefined || typeof source.on !== "function") {
    // Not a Node request (e.g. a web handler): the platform's own limit applies.
    return HttpIncomingMessage.withMaxBodySize(request.arrayBuffer, Option.some(limit)).pipe(
      Effect.map((buffer) => new Uint8Array(buffer)),
      Effect.mapError(() => new PayloadTooLarge({ limit }))
    )
  }
  const body = handedOver.get(source)
  if (body !== undefined) return body.length > limit ? Effect.fail(new PayloadTooLarge({ limit })) : Effect.succeed(body)
  return Effect.async<Uint8Array, HandlerError>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let tooLarge = declaredTooLarge
    let settled = false
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const settle = (result: Effect.Effect<Uint8Array, HandlerError>) => {
      if (settled) return
      settled = true
      cleanup()
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        tooLarge = true
        chunks.length = 0
      }
      if (size > MAX_DRAINED_BYTES) {
        settle(Effect.fail(new PayloadTooLarge({ limit })))
        source.resume() // what is left is discarded until the connection closes
      } else if (!tooLarge) {
        chunks.push(chunk)
      }
    }
    const onEnd = () => settle(tooLarge ? Effect.fail(new PayloadTooLarge({ limit })) : Effect.succeed(Buffer.concat(chunks)))
    const onError = () => settle(Effect.fail(new InvalidRequest({ location: "body", detail: "the request body could not be read" })))
    if (source.readableEnded) {
      settle(Effect.fail(new InvalidRequest({ location: "body", detail: "the request body was already read" })))
      return
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    return Effect.sync(cleanup)
  })
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: true })

const readText = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<string, HandlerError> =>
  Effect.flatMap(readBytes(request, limit), (bytes) =>
    Effect.try({
      try: () => utf8Decoder.decode(bytes),
      catch: () => new InvalidRequest({ location: "body", detail: "the request body is not valid UTF-8" })
    })
  )

const readPayload = (
  request: HttpServerRequest.HttpServerRequest,
  schema: Schema.Schema.Any,
  limit: number
): Effect.Effect<unknown, HandlerError> =>
  Effect.gen(function* () {
    const encoding = HttpApiSchema.getEncoding(schema.ast)
    if (encoding.kind === "Uint8Array") return yield* readBytes(request, limit)
    const text = yield* readText(request, limit)
    if (encoding.kind === "Text") return text
    const contentType = request.headers["content-type"]
    if (contentType !== undefined && !/json/i.test(contentType)) {
      return yield* Effect.fail(
        new InvalidRequest({ location: "body", detail: `expected Content-Type application/json, got ${contentType}` })
      )
    }
    if (text.trim() === "") {
      return yield* Effect.fail(new InvalidRequest({ location: "body", detail: "the request body is empty; expected JSON" }))
    }
    return yield* parseJsonText(text)
  })

// ---------------------------------------------------------------------------------------------
// Binding
// ---------------------------------------------------------------------------------------------

export interface BindOptions {
  /** Overrides the surface's authentication for this endpoint. */
  readonly auth?: AuthMode | undefined
  /** Headers of a successful answer, from the decoded request (e.g. Canton-Package-Hash). */
  readonly successHeaders?: ((request: { readonly path?: unknown }) => Readonly<Record<string, string>>) | undefined
  /** The endpoint changes nothing (default: GET endpoints); see `ReadOnlyRequest`. */
  readonly read?: boolean | undefined
}

/**
 * Whether the request being handled is a read (a GET, or an endpoint bound with `read: true`):
 * its engine operations may then run as the runtime's reads, without the lock
 * (`NodeRuntimeService.read`; ledger-context.ts picks by it). A service of the handler's context,
 * provided with its authentication in one step, not a fiber reference of its own (setting one
 * around every handler copied the fiber's references twice).
 */
export class ReadOnlyRequest extends Context.Reference<ReadOnlyRequest>()("@sandnet/http/ReadOnlyRequest", { defaultValue: (): boolean => false }) {}

type Request<E extends HttpApiEndpoint.HttpApiEndpoint.Any> = HttpApiEndpoint.HttpApiEndpoint.Request<E>
type Success<E extends HttpApiEndpoint.HttpApiEndpoint.Any> = HttpApiEndpoint.HttpApiEndpoint.Success<E>

/** What bind provides to handlers itself. */
export type BindProvided = HttpLayerRouter.Provided | AuthenticatedUser | AuthenticatedSubject

const authenticate = (mode: AuthMode, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const authenticator = yield* Authenticator
    if (mode === "open") return Context.empty() as Context.Context<AuthenticatedSubject | AuthenticatedUser>
    const token = mode === "ledger" ? (bearerToken(request.headers) ?? websocketToken(request.headers)) : bearerToken(request.headers)
    if (token === undefined) {
      return yield* Effect.fail(
        new Unauthenticated({
          reason:
            mode === "ledger"
              ? "no token: send Authorization: Bearer <JWT> or Sec-WebSocket-Protocol: jwt.token.<JWT>"
              : "no token: send Authorization: Bearer <JWT>"
        })
      )
    }
    // A token verified before whose caller is known now (as the read routes ask, read-routes.ts)
    // needs neither its claims decoded nor its user looked up through effects again; anything
    // else (a new token, a refusal to explain) takes the full path below.
    const known = authenticator.knownNow(token, yield* AuthConfig, yield* Clock.currentTimeMillis)
    if (known !== undefined && (mode === "wallet" || known.access !== undefined)) {
      const base = Context.make(AuthenticatedSubject, known.subject)
      return (known.access === undefined ? base : Context.add(base, AuthenticatedUser, known.access)) as Context.Context<
        AuthenticatedSubject | AuthenticatedUser
      >
    }
    const subject = yield* authenticator.verify(token)
    if (mode === "wallet") {
      // The wallet's user may not be onboarded yet (the handler answers 404 or onboards); an
      // existing but deactivated user is denied here.
      const access = yield* authenticator.resolveIfExists(subject)
      const base = Context.make(AuthenticatedSubject, subject)
      return (access === undefined ? base : Context.add(base, AuthenticatedUser, access)) as Context.Context<
        AuthenticatedSubject | AuthenticatedUser
      >
    }
    const access = yield* authenticator.resolve(subject)
    return Context.make(AuthenticatedSubject, subject).pipe(Context.add(AuthenticatedUser, access))
  })

/** The full route path of an endpoint on its surface. */
export const routePath = (surface: Surface, endpoint: HttpApiEndpoint.HttpApiEndpoint.Any): `/${string}` =>
  `${surface.mount}${(endpoint as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps).path}` as `/${string}`

/** The services of a request that decoding and answering it read. */
type RequestServices = HttpNodeConfig | Dialect | HttpServerRequest.HttpServerRequest | HttpLayerRouter.RouteContext | HttpServerRequest.ParsedSearchParams

/**
 * The handler's input: the request's path parameters, query, headers and body, decoded with the
 * endpoint's schemas (names translated from the node's dialect).
 */
const decodeRequest = (surface: Surface, endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps, queryArrays: ReadonlySet<string>, context: Context.Context<RequestServices>) =>
  Effect.gen(function* () {
    const settings = Context.get(context, HttpNodeConfig)
    const names = Context.get(context, Dialect)
    const request = Context.get(context, HttpServerRequest.HttpServerRequest)
    const route = Context.get(context, HttpLayerRouter.RouteContext)
    const query = Context.get(context, HttpServerRequest.ParsedSearchParams)
    const input: Record<string, unknown> = { request }
    if (endpoint.pathSchema._tag === "Some") {
      const schema = endpoint.pathSchema.value as Schema.Schema<unknown, unknown, never>
      input["path"] = yield* decodeWith(schema, inbound(names, surface.name, route.params), "path parameter", (error) => {
        const key = firstKey(error)
        return key === undefined ? undefined : surface.displayParam(key)
      })
    }
    if (endpoint.urlParamsSchema._tag === "Some") {
      const schema = endpoint.urlParamsSchema.value as Schema.Schema<unknown, unknown, never>
      input["urlParams"] = yield* decodeWith(schema, normalizeQuery(query, queryArrays), "query parameter", firstKey)
    }
    if (endpoint.headersSchema._tag === "Some") {
      const schema = endpoint.headersSchema.value as Schema.Schema<unknown, unknown, never>
      input["headers"] = yield* decodeWith(schema, request.headers, "header", firstKey)
    }
    if (endpoint.payloadSchema._tag === "Some" && HttpMethod.hasBody(endpoint.method)) {
      const schema = endpoint.payloadSchema.value as Schema.Schema<unknown, unknown, never>
      const raw = yield* readPayload(request, schema, settings.maxRequestBytes)
      input["payload"] = yield* decodeWith(schema, inbound(names, surface.name, raw), "body")
    }
    return input
  })

/** How an endpoint answers: its success schema's status and encoding (read once), names translated to the node's dialect. */
const makeResponder = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) => {
  // Compiled at the endpoint's first answer: compiling the ~170 encoders when the routes are bound
  // was a tenth of the HTTP layers' start-up (--cpu-prof of `sandnet start --in-memory`).
  let encoder: ((answer: unknown) => Effect.Effect<unknown, ParseResult.ParseError>) | undefined
  const encodeSuccess = (answer: unknown) => (encoder ??= Schema.encode(endpoint.successSchema as Schema.Schema<unknown, unknown, never>))(answer)
  const status = HttpApiSchema.getStatusSuccessAST(endpoint.successSchema.ast)
  const successEncoding = HttpApiSchema.getEncoding(endpoint.successSchema.ast)
  const isEmpty = HttpApiSchema.isVoid(endpoint.successSchema.ast)
  return (answer: unknown, headers: Record<string, string>, names: Context.Tag.Service<Dialect>) =>
    Effect.gen(function* () {
      if (isEmpty) return HttpServerResponse.empty({ status, headers })
      const encoded = yield* Effect.orDie(encodeSuccess(answer))
      switch (successEncoding.kind) {
        case "Text":
          return HttpServerResponse.text(String(encoded), { status, contentType: successEncoding.contentType, headers })
        case "Uint8Array":
          return HttpServerResponse.uint8Array(encoded as Uint8Array, { status, contentType: successEncoding.contentType, headers })
        default:
          return yield* Effect.orDie(HttpServerResponse.json(outbound(names, encoded), { status, contentType: successEncoding.contentType, headers }))
      }
    })
}

/**
 * The request handling of one endpoint, as an Effect of the router's request context: authenticate,
 * decode, handle, encode. Never fails: every failure becomes the surface's error response.
 */
export const handleEndpoint = <E extends HttpApiEndpoint.HttpApiEndpoint.Any, R>(
  surface: Surface,
  endpoint_: E,
  handler: (request: Request<E>) => Effect.Effect<Success<E>, HandlerError, R>,
  options?: BindOptions
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  Exclude<R, AuthenticatedUser | AuthenticatedSubject> | HttpLayerRouter.Provided | Authenticator
> => {
  const endpoint = endpoint_ as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  const mode = options?.auth ?? surface.auth
  const respond = makeResponder(endpoint)
  const reads = options?.read ?? endpoint.method === "GET"
  const queryArrays = endpoint.urlParamsSchema._tag === "Some" ? arrayParams(endpoint.urlParamsSchema.value) : new Set<string>()

  const program = Effect.gen(function* () {
    // the request's services, read once (each `yield*` of a service is a step of its own)
    const context = yield* Effect.context<RequestServices>()
    const auth = yield* authenticate(mode, Context.get(context, HttpServerRequest.HttpServerRequest))
    const input = yield* decodeRequest(surface, endpoint, queryArrays, context)
    const answer = yield* Effect.provide(handler(input as Request<E>), Context.add(auth, ReadOnlyRequest, reads))
    return yield* respond(answer, options?.successHeaders?.(input) ?? {}, Context.get(context, Dialect))
  })

  return program.pipe(
    Effect.catchAllCause((cause) =>
      Effect.gen(function* () {
        if (!Cause.isFailType(cause)) yield* Effect.logError("request failed with a defect", cause)
        return render(surface.name, describeCause(cause))
      })
    ),
    Effect.flatMap(closeRefusedUpgrade)
  ) as Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    never,
    Exclude<R, AuthenticatedUser | AuthenticatedSubject> | HttpLayerRouter.Provided | Authenticator
  >
}

/**
 * A websocket upgrade answered with an ordinary response (a refusal) leaves a connection that the
 * HTTP server no longer reads (Node hands upgrade sockets over, and it is ended after the answer):
 * `Connection: close` tells the client not to send another request on it.
 */
const closeRefusedUpgrade = (response: HttpServerResponse.HttpServerResponse) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    (request.headers["upgrade"] ?? "").toLowerCase() === "websocket" ? HttpServerResponse.setHeader(response, "connection", "close") : response
  )

const routeMethod = (endpoint: HttpApiEndpoint.HttpApiEndpoint.Any): RouteMethod => {
  const method = (endpoint as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps).method
  return method === "HEAD" ? "GET" : method
}

/** Routes of the node are added through this router layer; requirements are captured at build time. */
type RouteMethod = "*" | "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS"

/** A route as `bind`, `notImplemented` and `surfaceNotFound` make it, kept beside its Layer (see `mergeRoutes`). */
interface RouteSpec {
  readonly method: RouteMethod
  readonly path: `/${string}` | "*"
  readonly handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, unknown>
}

/**
 * What a route of any method ("*": the not-found answers of the surfaces) is added for. The router
 * would add it for each of the 34 methods it knows (WebDAV's and others), which was a tenth of the
 * HTTP layers' start-up (--cpu-prof); a request of another method on an unknown path gets the
 * router's plain 404 instead of the surface's. HEAD finds the GET routes (the router's fallback), so
 * a HEAD of a GET endpoint answers as its GET does, and a HEAD of an unknown path as a GET of it.
 */
export const ANY_METHOD = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

/** The routes a Layer made by `addRoutes` adds, so that `mergeRoutes` can add many of them in one step. */
const routeSpecs = new WeakMap<object, ReadonlyArray<RouteSpec>>()

/**
 * One Layer that adds routes to the router in one step, their handlers given the context the Layer
 * is built in (captured once for all of them).
 */
const addRoutes = <R>(specs: ReadonlyArray<RouteSpec>): Layer.Layer<never, never, HttpLayerRouter.HttpRouter | Exclude<R, HttpLayerRouter.Provided>> => {
  const layer = HttpLayerRouter.use((router) =>
    Effect.gen(function* () {
      const context = yield* Effect.context<Exclude<R, HttpLayerRouter.Provided>>()
      const withContext = (input: Context.Context<HttpLayerRouter.Provided>) => Context.merge(context, input)
      yield* router.addAll(
        specs.flatMap((spec) => {
          const handler = Effect.mapInputContext(spec.handler as Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpLayerRouter.Provided>, withContext)
          return (spec.method === "*" ? ANY_METHOD : [spec.method]).map((method) => HttpLayerRouter.route(method, spec.path, handler))
        })
      )
    })
  )
  routeSpecs.set(layer, specs)
  return layer
}

const addRoute = <R>(
  method: RouteMethod,
  path: `/${string}` | "*",
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpLayerRouter.Provided>
): Layer.Layer<never, never, HttpLayerRouter.HttpRouter | Exclude<R, HttpLayerRouter.Provided>> =>
  addRoutes<R>([{ method, path, handler: handler as Effect.Effect<HttpServerResponse.HttpServerResponse, never, unknown> }])

/**
 * `Layer.mergeAll` for route Layers: the routes of those made by `bind`, `notImplemented`,
 * `surfaceNotFound` (and of other `mergeRoutes`) are added by one Layer, the other Layers are merged
 * beside it. Building a Layer has a fixed cost (a fiber, a scope, memoization; --cpu-prof: most of a
 * node's start-up went to building its ~200 one-route Layers), so a surface's routes are one Layer.
 */
export const mergeRoutes = <Layers extends readonly [Layer.Layer<never, unknown, unknown>, ...Array<Layer.Layer<never, unknown, unknown>>]>(
  ...layers: Layers
): Layer.Layer<
  { [k in keyof Layers]: Layer.Layer.Success<Layers[k]> }[number],
  { [k in keyof Layers]: Layer.Layer.Error<Layers[k]> }[number],
  { [k in keyof Layers]: Layer.Layer.Context<Layers[k]> }[number]
> => {
  const specs: Array<RouteSpec> = []
  const others: Array<Layer.Layer<never, unknown, unknown>> = []
  for (const layer of layers) {
    const routes = routeSpecs.get(layer)
    if (routes === undefined) others.push(layer)
    else specs.push(...routes)
  }
  const all = specs.length === 0 ? others : [addRoutes(specs) as Layer.Layer<never, unknown, unknown>, ...others]
  // one Layer of routes stays recognizable, so that merging it again flattens it further
  return (all.length === 1 ? all[0]! : Layer.mergeAll(...(all as [Layer.Layer<never, unknown, unknown>]))) as never
}

/**
 * Binds a handler to an endpoint of a surface: a Layer that adds the route to the node's router.
 * The handler may use `AuthenticatedSubject` (ledger and wallet) and `AuthenticatedUser` (ledger;
 * on the wallet only when the user exists, so wallet handlers read it with
 * `Effect.serviceOption(AuthenticatedUser)`); bind provides both. Binding an endpoint that is
 * still bound with `notImplemented` is a duplicate route: replace that line instead.
 */
export const bind = <E extends HttpApiEndpoint.HttpApiEndpoint.Any, R>(
  surface: Surface,
  endpoint: E,
  handler: (request: Request<E>) => Effect.Effect<Success<E>, HandlerError, R>,
  options?: BindOptions
): Layer.Layer<
  never,
  never,
  HttpLayerRouter.HttpRouter | Authenticator | Exclude<R, BindProvided | Scope>
> =>
  addRoute(
    routeMethod(endpoint),
    routePath(surface, endpoint),
    handleEndpoint(surface, endpoint, handler, options)
  ) as Layer.Layer<never, never, HttpLayerRouter.HttpRouter | Authenticator | Exclude<R, BindProvided | Scope>>

/** Summary of declared endpoints that answer 501 until they are implemented. */
export const RESERVED_SUMMARY = "Not implemented by this node yet (501)"

/** What the OpenAPI document says of an endpoint: the reference's operation id, a description, a summary. */
export interface EndpointAnnotations {
  readonly id?: string
  readonly description?: string
  readonly summary?: string
}

/** The one endpoint-annotation helper: every surface annotates its declarations with it. */
export const annotateEndpoint = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E, annotations: EndpointAnnotations): E => {
  let annotated = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  if (annotations.id !== undefined) annotated = annotated.annotate(OpenApi.Identifier, annotations.id)
  if (annotations.description !== undefined) annotated = annotated.annotate(OpenApi.Description, annotations.description)
  if (annotations.summary !== undefined) annotated = annotated.annotate(OpenApi.Summary, annotations.summary)
  return annotated as unknown as E
}

/** Marks an endpoint declaration as reserved: documented with a 501 answer (bind it with `notImplemented`). */
export const reserved = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E): E => annotateEndpoint(endpoint, { summary: RESERVED_SUMMARY })

/** The one Either-to-Effect helper: a Left fails the effect (mapped by `map` when given). */
export function orFail<A, E>(either: Either.Either<A, E>): Effect.Effect<A, E>
export function orFail<A, E, F>(either: Either.Either<A, E>, map: (error: E) => F): Effect.Effect<A, F>
export function orFail<A, E, F>(either: Either.Either<A, E>, map?: (error: E) => F): Effect.Effect<A, E | F> {
  return Either.isLeft(either) ? Effect.fail(map === undefined ? either.left : map(either.left)) : Effect.succeed(either.right)
}

/** An endpoint of the reference that this node does not serve yet: 501 in the surface's shape. */
export const notImplemented = (
  surface: Surface,
  endpoint: HttpApiEndpoint.HttpApiEndpoint.Any
): Layer.Layer<never, never, HttpLayerRouter.HttpRouter | Authenticator> =>
  addRoute(
    routeMethod(endpoint),
    routePath(surface, endpoint),
    // The request is still authenticated and decoded with the declared Schemas, so clients get
    // the real 401 / 400 answers; a valid request is answered 501.
    handleEndpoint(surface, endpoint, () =>
      Effect.fail(
        new NotImplemented({
          operation: `${(endpoint as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps).method} ${routePath(surface, endpoint)}`
        })
      )
    )
  )

/** Unknown routes under the surface's roots: 404 in the surface's shape. */
export const surfaceNotFound = (surface: Surface): Layer.Layer<never, never, HttpLayerRouter.HttpRouter> =>
  mergeLayers(
    surface.roots.flatMap((root) =>
      [root, `${root}/*` as const].map((path) =>
        addRoute(
          "*",
          path,
          Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
            render(
              surface.name,
              describeCause(
                Cause.fail(new RouteNotFound({ method: request.method, path: new URL(request.url, "http://x").pathname }))
              )
            )
          )
        )
      )
    )
  )

const mergeLayers = <R>(layers: ReadonlyArray<Layer.Layer<never, never, R>>): Layer.Layer<never, never, R> =>
  layers.length === 0 ? (Layer.empty as Layer.Layer<never, never, R>) : mergeRoutes(...(layers as [Layer.Layer<never, never, R>]))

/** The answer to a request outside every surface. */
export const rootNotFoundAnswer: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) =>
    HttpServerResponse.unsafeJson(
      {
        error: `no route for ${request.method} ${new URL(request.url, "http://x").pathname}; surfaces: /api/scan, /api/validator, /registry, /v2; documents: /docs`
      },
      { status: 404 }
    )
)

/** Anything outside every surface. */
export const rootNotFound: Layer.Layer<never, never, HttpLayerRouter.HttpRouter> = addRoute("*", "*", rootNotFoundAnswer)

/** Re-exported for handlers: deny with 403 in the surface's shape. */
export { PermissionDenied }
