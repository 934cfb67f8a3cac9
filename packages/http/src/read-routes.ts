/**
 * Read routes: the hot reads (a scan lookup, a wallet balance) answered without a fiber. A read
 * route is a GET endpoint of a surface with a plain reader beside its `bind`: a function from the
 * request's path parameters (and, on the wallet, the token's user) and the engine to the engine's
 * own answer (an Either). The node's request listener (server.ts) asks the read table first;
 * the request goes the Effect path (guards, router, `bind`) as before when
 *
 * - no read route matches exactly: another method, a query string, a percent-encoded or empty path
 *   segment, a segment longer than `MAX_PATH_SEGMENT_LENGTH`, no Host header, a websocket upgrade;
 * - the caller is not known now (wallet): a token never verified before (the Effect path verifies
 *   it and remembers it, auth.ts), or one that any check refuses now (expired, its user deactivated);
 * - the reader's answer is not a plain success (a Left: not found, bad parameters, no wallet) or
 *   the runtime cannot answer without a fiber (shutting down, a failed commit: read-now.ts).
 *
 * So every error keeps its surface's shape, and a success is what the Effect path would answer:
 * status 200, `application/json`, the engine's JSON in the node's dialect (the engine already
 * renders it as the success Schema encodes it: read-routes.test.ts compares both paths byte for
 * byte). The request appears in the web UI's request log as through the Effect path.
 *
 * The same table holds the write routes (write-routes.ts): a POST that matches one is theirs.
 */
import type { HttpApiEndpoint } from "@effect/platform"
import type { EngineInstance } from "@sandnet/node"
import { Either } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { outbound } from "./dialect/index.ts"
import { MAX_PATH_SEGMENT_LENGTH } from "./request-guards.ts"
import { routePath, type Surface } from "./surface.ts"
import { knownCallerOf, type TableDeps } from "./table-deps.ts"
import { scanProxyRegistryPath } from "./wallet/scan-proxy-path.ts"
import { answerWrite, type WriteRoute } from "./write-routes.ts"

/** What a reader is given: the path parameters (as the router names them) and the token's user (wallet routes; "" elsewhere). */
export interface ReadRequest {
  readonly path: Readonly<Record<string, string>>
  readonly user: string
}

/** A reader: the engine's answer (Right: answered 200; Left or undefined: the Effect path answers). */
export type Reader = (request: ReadRequest, engine: EngineInstance) => Either.Either<unknown, unknown> | undefined

export interface ReadRoute {
  readonly surface: Surface
  readonly path: `/${string}`
  readonly read: Reader
}

/** A read route for a GET endpoint bound on `surface` (its `bind` answers everything this one leaves). */
export const readRoute = (surface: Surface, endpoint: HttpApiEndpoint.HttpApiEndpoint.Any, read: Reader): ReadRoute => ({
  surface,
  path: routePath(surface, endpoint),
  read
})

/**
 * A surface's read and write routes, loaded with the surface's modules (which load at its first
 * request, lazy-routes.ts): asked for at the first GET or POST under `root`; until they are in, the
 * Effect path answers.
 */
export interface LazyReadRoutes {
  readonly root: `/${string}/`
  /** The routes, given what the table has of the node (the ledger's write routes need its settings). */
  readonly load: (deps: TableDeps) => Promise<ReadonlyArray<ReadRoute | WriteRoute>>
}

/** The read routes of a table, and its write routes (write-routes.ts): given, or loaded with their surfaces. */
export type ReadRoutes = ReadonlyArray<ReadRoute | WriteRoute | LazyReadRoutes>

/** Answers the request (now or once committed) and returns true, or returns false: it is the Effect path's. */
export type ReadTable = (request: IncomingMessage, response: ServerResponse, fallback: () => void) => boolean

interface Compiled<R extends { readonly path: `/${string}` }> {
  readonly route: R
  /** Each segment: a literal, or the name of a path parameter (`:name`). */
  readonly segments: ReadonlyArray<{ readonly literal: string } | { readonly param: string }>
}

const isRead = (route: ReadRoute | WriteRoute | LazyReadRoutes): route is ReadRoute => "read" in route
const isWrite = (route: ReadRoute | WriteRoute | LazyReadRoutes): route is WriteRoute => "handle" in route

const compile = <R extends { readonly path: `/${string}` }>(route: R): Compiled<R> => ({
  route,
  segments: route.path
    .split("/")
    .slice(1)
    .map((segment) => (segment.startsWith(":") ? { param: segment.slice(1) } : { literal: segment }))
})

const matchPath = <R extends { readonly path: `/${string}` }>(
  table: ReadonlyArray<Compiled<R>>,
  path: string
): { readonly compiled: Compiled<R>; readonly params: Record<string, string> } | undefined => {
  const segments = path.split("/").slice(1)
  for (const compiled of table) {
    if (compiled.segments.length !== segments.length) continue
    const params: Record<string, string> = {}
    const all = compiled.segments.every((expected, i) => {
      const segment = segments[i]!
      if ("literal" in expected) return segment === expected.literal
      if (segment === "" || segment.length > MAX_PATH_SEGMENT_LENGTH) return false
      params[expected.param] = segment
      return true
    })
    if (all) return { compiled, params }
  }
  return undefined
}

/**
 * The read table of `routes`: the node's request listener asks it before the Effect path, for a GET
 * (read routes) and for a POST (write routes, write-routes.ts).
 */
export const makeReadTable = (routes: ReadRoutes, deps: TableDeps): ReadTable => {
  let table: ReadonlyArray<Compiled<ReadRoute>> = routes.filter(isRead).map(compile)
  let writes: ReadonlyArray<Compiled<WriteRoute>> = routes.filter(isWrite).map(compile)
  let pending = routes.filter((r): r is LazyReadRoutes => "load" in r)
  /** Loads the routes of the surface `url` is under, once (routes that cannot load stay out: the Effect path answers). */
  const loadUnder = (url: string): void => {
    const due = pending.filter((lazy) => url.startsWith(lazy.root))
    if (due.length === 0) return
    pending = pending.filter((lazy) => !due.includes(lazy))
    for (const lazy of due) {
      lazy.load(deps).then((loaded) => {
        table = [...table, ...loaded.filter(isRead).map(compile)]
        writes = [...writes, ...loaded.filter(isWrite).map(compile)]
      }, () => undefined)
    }
  }
  return (request, response, fallback) => {
    // the validator's scan proxy forwards the registry's calls (server.ts rewrites them before routing): the same routes answer them
    const url = scanProxyRegistryPath(request.url ?? "")
    if ((request.method !== "GET" && request.method !== "POST") || /[?#%]/.test(url)) return false
    if (pending.length > 0) loadUnder(url)
    if (request.method === "POST") {
      const matched = matchPath(writes, url)
      return matched !== undefined && answerWrite(matched.compiled.route, matched.params, request, response, deps, fallback)
    }
    if (request.headers.host === undefined || request.headers.upgrade !== undefined) return false
    const matched = matchPath(table, url)
    if (matched === undefined) return false
    const started = deps.nowMillis()
    let user = ""
    if (matched.compiled.route.surface.auth === "wallet") {
      const caller = knownCallerOf(request, deps, started)
      if (caller === undefined) return false
      user = caller.subject.userId
    }
    const read = matched.compiled.route.read
    deps.runtime.readNow(
      (engine) => read({ path: matched.params, user }, engine),
      (answer) => {
        if (answer === undefined || Either.isLeft(answer)) return fallback()
        let body: string
        try {
          body = JSON.stringify(outbound(deps.names, answer.right))
        } catch {
          return fallback()
        }
        response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        response.end(body)
        deps.log.record({ at: new Date(started).toISOString(), method: "GET", path: request.url ?? "", status: 200, millis: deps.nowMillis() - started })
      },
      fallback
    )
    return true
  }
}
