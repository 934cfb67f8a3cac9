/**
 * Checks every request passes before routing, and the answers to what never reaches routing.
 *
 * - A path whose percent-encoding does not decode (`%FF`, `%zz`, a lone `%`) or with a segment
 *   longer than `MAX_PATH_SEGMENT_LENGTH` matches no route: 404 in the shape of the surface the
 *   path lies under (the router alone would answer an empty 404).
 * - An HTTP/1.1 request without a Host header: 400 in the surface's shape (Node's own check
 *   answered an empty 400).
 * - What Node's HTTP parser refuses (`clientError`): a header section over Node's limit is 431,
 *   anything else 400, each with a body in the shape of the surface its request line names.
 * - A request beyond what a starting node holds (server.ts, `MAX_EARLY_REQUESTS`): 503
 *   NODE_STARTING in the shape of its surface, with Retry-After.
 */
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import {
  InvalidRequest,
  LedgerApiError,
  MalformedHttpRequest,
  RequestHeadersTooLarge,
  RouteNotFound,
  describeCause,
  render,
  renderText,
  type HandlerError,
  type SurfaceName
} from "./errors.ts"

/** The longest path segment routed (the router's own limit on a path parameter). */
export const MAX_PATH_SEGMENT_LENGTH = 1024

/** Path prefixes of the surfaces (their `roots`); kept here so that the check needs no route. */
const SURFACE_ROOTS: ReadonlyArray<readonly [string, SurfaceName]> = [
  ["/api/scan", "scan"],
  ["/api/validator", "wallet"],
  ["/registry", "registry"],
  ["/v2", "ledger"]
]

/** The surface a raw path lies under (no decoding needed), or undefined. */
export const surfaceOfPath = (path: string): SurfaceName | undefined => {
  for (const [root, surface] of SURFACE_ROOTS) {
    if (path === root || path.startsWith(`${root}/`) || path.startsWith(`${root}?`)) return surface
  }
  return undefined
}

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/**
 * Why a raw path cannot be routed, or undefined when it can. Under a surface an empty segment (a
 * trailing or doubled slash) is not routed either: the router would take `/v2/users/` for
 * `/v2/users/:userId` with an empty id, or `/v2/users//rights` for `/v2/users/rights`.
 */
export const unroutablePath = (path: string, surface: SurfaceName | undefined): string | undefined => {
  const segments = path.split("/").slice(1)
  if (surface !== undefined && segments.some((segment) => segment === "")) return "the path has an empty segment"
  for (const segment of segments) {
    if (segment.length > MAX_PATH_SEGMENT_LENGTH) return `a path segment is longer than ${MAX_PATH_SEGMENT_LENGTH} characters`
    if (segment.includes("%")) {
      try {
        decodeURIComponent(segment)
      } catch {
        return "the path's percent-encoding is invalid"
      }
    }
  }
  return undefined
}

const answer = (surface: SurfaceName | undefined, error: HandlerError) => render(surface, describeCause(Cause.fail(error)))

const httpVersionOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const source = NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage | undefined
  return typeof source?.httpVersion === "string" ? source.httpVersion : undefined
}

/** The methods the surfaces route; any other is answered here, in the surface's 404 shape. */
const ROUTED_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** Wraps the app: answers unroutable paths and requests without Host before routing. */
export const guardRequest = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const path = pathOf(request.url)
    const surface = surfaceOfPath(path)
    const unroutable = unroutablePath(path, surface)
    // No surface has a route for other methods (PROPFIND, LOCK, TRACE, ...); the router would answer them a bodiless 404.
    if (unroutable !== undefined || !ROUTED_METHODS.has(request.method)) {
      // The path as received (not decoded), cut short: it may be long.
      return Effect.succeed(answer(surface, new RouteNotFound({ method: request.method, path: path.length > 200 ? `${path.slice(0, 200)}...` : path })))
    }
    if (request.headers["host"] === undefined && httpVersionOf(request) === "1.1") {
      return Effect.succeed(
        answer(surface, new InvalidRequest({ location: "header", parameter: "Host", detail: "an HTTP/1.1 request must send a Host header" }))
      )
    }
    return app
  })

/** The surface named by the request line at the start of what the parser received, if any. */
const surfaceOfRawRequest = (raw: unknown): SurfaceName | undefined => {
  if (!(raw instanceof Uint8Array)) return undefined
  const line = /^[A-Z]+ (\S+)/.exec(Buffer.from(raw.subarray(0, 2048)).toString("latin1"))
  return line?.[1] === undefined ? undefined : surfaceOfPath(line[1])
}

const REASONS: Readonly<Record<number, string>> = { 400: "Bad Request", 431: "Request Header Fields Too Large" }

/**
 * Node's `clientError` listener: the parser refused the request. Answers 431 (headers too large)
 * or 400 with a body in the surface's shape, then closes the connection (its stream is unusable).
 */
export const answerClientError = (error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void => {
  // As Node's own handler: nothing is written on a reset connection or after an answer has started.
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
  if (error.code === "ECONNRESET" || !socket.writable || answering) {
    socket.destroy()
    return
  }
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    // The client sent too slowly: Node's 408, no request line to pick a surface by.
    socket.end("HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    return
  }
  const surface = surfaceOfRawRequest(error.rawPacket)
  const failure = error.code === "HPE_HEADER_OVERFLOW" ? new RequestHeadersTooLarge() : new MalformedHttpRequest({ reason: error.code ?? error.message })
  const { status, contentType, body } = renderText(surface, describeCause(Cause.fail(failure)))
  const bytes = Buffer.from(body, "utf8")
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\nContent-Type: ${contentType}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n${body}`
  )
}

export const NODE_STARTING = "NODE_STARTING"

/** A request the starting node cannot hold (server.ts): 503 NODE_STARTING, worth retrying in a second. */
export const answerNodeStarting = (request: IncomingMessage, response: ServerResponse): void => {
  const starting = new LedgerApiError({
    code: NODE_STARTING,
    category: "TransientServerFailure",
    cause: `the node is starting; retry in a moment (${NODE_STARTING})`,
    status: 503
  })
  const { status, contentType, body } = renderText(surfaceOfPath(pathOf(request.url ?? "/")), describeCause(Cause.fail(starting)))
  response.writeHead(status, { "content-type": contentType, "retry-after": "1" }).end(body)
}
