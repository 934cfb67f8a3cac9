/**
 * Write routes: the wallet's commands, the ledger's submissions and the registry's factories and
 * choice contexts answered without the platform's request pipeline. A write
 * route is a POST endpoint of a surface bound with `bind` and declared here too, with the very
 * handler `bind` runs; the node's request listener asks the table of read and write routes
 * (read-routes.ts) before the Effect path, and for a write route
 *
 * - leaves the request to the Effect path at once when it is not the plain case: no exact path
 *   match, a query string, no Host header, a body that is not declared JSON or whose length is not
 *   declared within the node's limit, a token never verified before (auth.ts's `knownNow`) on a
 *   surface that wants one (an open surface's, the registry's, take any caller, as `bind` does);
 * - reads the body itself, and hands it to the Effect path with the request when it is not UTF-8,
 *   JSON or what the endpoint's Schema takes (surface.ts's `handOverBody`): decoding errors are
 *   answered there, in the surface's shape, as before;
 * - otherwise runs the handler (`bind`'s) with the caller's subject and user and the node runtime,
 *   on the runtime the server was built in (its scheduler and logger), refused with 503 while the
 *   node shuts down as the Effect path refuses, and answers its success encoded by the endpoint's
 *   success Schema, or its failure rendered by `renderText` (errors.ts), the Effect path's own.
 *
 * Why: `node --cpu-prof` of W1 offers put a third of the node's CPU in Effect's runtime, and the
 * platform's request pipeline (its request fiber, router, middleware, decoding and encoding as
 * effects) was about 400 of an offer's 660 interpreted operations; a throwaway version of this
 * path for W1 took 15 to 20% of the node's CPU per offer off (docs/benchmarks.md, night section).
 * write-routes.test.ts compares both paths byte for byte.
 */
import { HttpApiSchema, type HttpApiEndpoint } from "@effect/platform"
import { invariant } from "@sandnet/core"
import { NodeRuntime } from "@sandnet/node"
import { Cause, Context, Effect, Either, Exit, Runtime, Schema } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { AuthenticatedSubject, AuthenticatedUser, type KnownCaller } from "./auth.ts"
import { inbound, outbound } from "./dialect/index.ts"
import { describeCause, InvalidRequest, renderText, type HandlerError } from "./errors.ts"
import { knownCallerOf, type TableDeps } from "./table-deps.ts"
import { nodeShuttingDown } from "./shutdown.ts"
import { bind, handOverBody, routePath, type Surface } from "./surface.ts"

type Request<E extends HttpApiEndpoint.HttpApiEndpoint.Any> = HttpApiEndpoint.HttpApiEndpoint.Request<E>
type Success<E extends HttpApiEndpoint.HttpApiEndpoint.Any> = HttpApiEndpoint.HttpApiEndpoint.Success<E>

/** What a write route's handler is given: the decoded path parameters and body (as `bind` gives them). */
export type WriteInput<E extends HttpApiEndpoint.HttpApiEndpoint.Any> = Pick<Request<E>, Extract<keyof Request<E>, "path" | "payload">>

/** The services a write route provides its handler (those `bind` provides, and the node runtime). */
export type WriteProvided = AuthenticatedSubject | AuthenticatedUser | NodeRuntime

export interface WriteRoute {
  readonly surface: Surface
  readonly path: `/${string}`
  /** Whether the endpoint takes a JSON body (else it is answered here only when the request has none). */
  readonly takesBody: boolean
  /** The path parameters and the body (as parsed JSON, in the node's dialect) decoded by the endpoint's Schemas. */
  readonly decode: (raw: unknown, path: Readonly<Record<string, string>>) => Either.Either<{ readonly path?: unknown; readonly payload?: unknown }, unknown>
  readonly handle: (input: { readonly path?: unknown; readonly payload?: unknown }) => Effect.Effect<unknown, HandlerError, WriteProvided>
  /** The success's status, whether it has no body, and its JSON as the Effect path encodes it (compiled at the first answer). */
  readonly status: number
  readonly empty: boolean
  readonly encode: (answer: unknown) => unknown
}

/**
 * A write route for a POST endpoint bound on `surface` with `handler` (the same function `bind`
 * runs: `bind` answers every request this one leaves). The endpoint takes a JSON body or none, and
 * answers JSON or nothing; its path parameters, if any, are decoded as `bind` decodes them.
 */
export const writeRoute = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  surface: Surface,
  endpoint_: E,
  handler: (request: WriteInput<E>) => Effect.Effect<Success<E>, HandlerError, WriteProvided>
): WriteRoute => {
  const endpoint = endpoint_ as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  const payloadSchema = endpoint.payloadSchema._tag === "Some" ? (endpoint.payloadSchema.value as Schema.Schema<unknown, unknown, never>) : undefined
  if (endpoint.method !== "POST" || (payloadSchema !== undefined && HttpApiSchema.getEncoding(payloadSchema.ast).kind !== "Json")) {
    throw new Error(`${endpoint.name}: a write route is a POST endpoint with a JSON body or none`)
  }
  const empty = HttpApiSchema.isVoid(endpoint.successSchema.ast)
  if (!empty && HttpApiSchema.getEncoding(endpoint.successSchema.ast).kind !== "Json") {
    throw new Error(`${endpoint.name}: a write route answers JSON or nothing`)
  }
  const options = { errors: "all", onExcessProperty: "ignore" } as const
  const decodePayload = payloadSchema === undefined ? undefined : Schema.decodeUnknownEither(payloadSchema, options)
  const pathSchema = endpoint.pathSchema._tag === "Some" ? (endpoint.pathSchema.value as Schema.Schema<unknown, unknown, never>) : undefined
  const decodePath = pathSchema === undefined ? undefined : Schema.decodeUnknownEither(pathSchema, options)
  let encoder: ((answer: unknown) => unknown) | undefined
  return {
    surface,
    path: routePath(surface, endpoint),
    takesBody: payloadSchema !== undefined,
    decode: (raw, path) => {
      const payload = decodePayload === undefined ? Either.right(undefined) : decodePayload(raw)
      if (Either.isLeft(payload)) return Either.left(payload.left)
      const decoded = decodePayload === undefined ? {} : { payload: payload.right }
      if (decodePath === undefined) return Either.right(decoded)
      return Either.map(decodePath(path), (pathParams) => ({ ...decoded, path: pathParams }))
    },
    handle: handler as WriteRoute["handle"],
    status: HttpApiSchema.getStatusSuccessAST(endpoint.successSchema.ast),
    empty,
    encode: (answer) => (encoder ??= Schema.encodeSync(endpoint.successSchema as Schema.Schema<unknown, unknown, never>))(answer)
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * An endpoint bound on the Effect path (`bound`, a route Layer for `mergeRoutes`) and declared a
 * write route (`write`) with one handler: the surfaces declare their commands through this.
 */
export const bindWritable = <E extends HttpApiEndpoint.HttpApiEndpoint.Any, R extends WriteProvided>(
  surface: Surface,
  endpoint: E,
  handler: (request: WriteInput<E>) => Effect.Effect<Success<E>, HandlerError, R>
) => ({ bound: bind(surface, endpoint, handler), write: writeRoute(surface, endpoint, handler) })

/** The route Layers of endpoints declared with `bindWritable`, to spread into `mergeRoutes` (at least one). */
export const boundOf = <L>(declared: ReadonlyArray<{ readonly bound: L }>): [L, ...Array<L>] => {
  invariant(declared.length > 0, "boundOf: no endpoint declared")
  return declared.map((d) => d.bound) as [L, ...Array<L>]
}

/** The write routes of endpoints declared with `bindWritable`, for the table (read-routes.ts). */
export const writesOf = (declared: ReadonlyArray<{ readonly write: WriteRoute }>): ReadonlyArray<WriteRoute> => declared.map((d) => d.write)

/** Whether the request is the plain case a write route answers itself (see the module's comment). */
const takes = (route: WriteRoute, request: IncomingMessage, limit: number): boolean => {
  const { headers } = request
  if (headers.host === undefined || headers.upgrade !== undefined || headers["transfer-encoding"] !== undefined) return false
  const length = headers["content-length"]
  if (!route.takesBody) return length === undefined || length === "0"
  const type = headers["content-type"]
  return type !== undefined && /json/i.test(type) && length !== undefined && /^\d{1,12}$/.test(length) && Number(length) > 0 && Number(length) <= limit
}

/** The parsed JSON of a body (in the node's dialect), or undefined when the Effect path must explain why not. */
const parsedBody = (bytes: Uint8Array): unknown => {
  try {
    const text = utf8.decode(bytes)
    return text.trim() === "" ? undefined : (JSON.parse(text) as unknown)
  } catch {
    return undefined
  }
}

/** How a write route's request is answered: its success or failure written, and recorded in the request log. */
interface Answering {
  readonly answer: (status: number, contentType: string | undefined, body: string) => void
  readonly fail: (cause: Cause.Cause<HandlerError>) => void
}

const answering = (route: WriteRoute, request: IncomingMessage, response: ServerResponse, deps: TableDeps, started: number): Answering => {
  const answer = (status: number, contentType: string | undefined, body: string) => {
    if (contentType === undefined) response.writeHead(status)
    else response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) })
    response.end(body)
    deps.log.record({ at: new Date(started).toISOString(), method: "POST", path: request.url ?? "", status, millis: deps.nowMillis() - started })
  }
  const fail = (cause: Cause.Cause<HandlerError>) => {
    // as the Effect path (surface.ts's handleEndpoint): a defect is logged, and answered as a 500 in the surface's shape
    if (!Cause.isFailType(cause)) Runtime.runFork(deps.runtimeOfServer)(Effect.logError("request failed with a defect", cause))
    const rendered = renderText(route.surface.name, describeCause(cause))
    answer(rendered.status, rendered.contentType, rendered.body)
  }
  return { answer, fail }
}

/**
 * What the handler is given besides the node runtime, as `bind` gives it: the caller's subject, and
 * the wallet's user only when it exists (wallet handlers read it as an option); nothing of a
 * caller on an open surface (the registry), which `bind` does not authenticate either.
 */
const servicesOf = (caller: KnownCaller | undefined, deps: TableDeps): Context.Context<WriteProvided> => {
  const runtime = Context.make(NodeRuntime, deps.runtime)
  if (caller === undefined) return runtime as Context.Context<WriteProvided>
  const subject = Context.add(runtime, AuthenticatedSubject, caller.subject)
  return (caller.access === undefined ? subject : Context.add(subject, AuthenticatedUser, caller.access)) as Context.Context<WriteProvided>
}

/** Runs the route's handler for `caller` on the server's runtime (refused while the node shuts down) and answers. */
const runWrite = (route: WriteRoute, input: { readonly path?: unknown; readonly payload?: unknown }, caller: KnownCaller | undefined, deps: TableDeps, answers: Answering) => {
  const services = servicesOf(caller, deps)
  const handled = Effect.flatMap(deps.runtime.shuttingDown, (down) => (down ? Effect.fail<HandlerError>(nodeShuttingDown()) : route.handle(input))).pipe(
    Effect.provide(services)
  )
  Runtime.runCallback(deps.runtimeOfServer)(handled, {
    onExit: (exit) => {
      if (Exit.isFailure(exit)) return answers.fail(exit.cause)
      if (route.empty) return answers.answer(route.status, undefined, "")
      let json: string
      try {
        json = JSON.stringify(outbound(deps.names, route.encode(exit.value)))
      } catch (error) {
        // the Effect path dies on an answer its success Schema cannot encode
        return answers.fail(Cause.die(error))
      }
      answers.answer(route.status, "application/json", json)
    }
  })
}

/**
 * Answers a POST that matched `route` (with path parameters `params`), or returns false to leave it
 * to the Effect path untouched. Once it returns true the request is this function's: it answers it
 * or hands it over with its body (`fallback`).
 */
export const answerWrite = (
  route: WriteRoute,
  params: Readonly<Record<string, string>>,
  request: IncomingMessage,
  response: ServerResponse,
  deps: TableDeps,
  fallback: () => void
): boolean => {
  if (!takes(route, request, deps.maxRequestBytes)) return false
  const started = deps.nowMillis()
  const open = route.surface.auth === "open"
  const caller = open ? undefined : knownCallerOf(request, deps, started)
  if (!open && (caller === undefined || (route.surface.auth === "ledger" && caller.access === undefined))) return false
  const path = inbound(deps.names, route.surface.name, params) as Readonly<Record<string, string>>
  if (!route.takesBody) {
    const input = route.decode(undefined, path)
    if (Either.isLeft(input)) return false
    runWrite(route, input.right, caller, deps, answering(route, request, response, deps, started))
    return true
  }
  const answers = answering(route, request, response, deps, started)
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => void chunks.push(chunk))
  request.once("error", () => answers.fail(Cause.fail(new InvalidRequest({ location: "body", detail: "the request body could not be read" }))))
  request.once("end", () => {
    const body = Buffer.concat(chunks)
    const raw = parsedBody(body)
    const input = raw === undefined ? undefined : route.decode(inbound(deps.names, route.surface.name, raw), path)
    if (input === undefined || Either.isLeft(input)) {
      handOverBody(request, body)
      return fallback()
    }
    runWrite(route, input.right, caller, deps, answers)
  })
  return true
}
