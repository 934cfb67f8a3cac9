/**
 * The node's live request log for the developer console: a global router middleware records every
 * request (method, path, status, duration) in a bounded ring; `GET /sandnet/requests?after=<seq>`
 * answers the entries after a sequence number. The web pages' own plumbing (the live notices, the
 * log itself, static assets) is not recorded, so that watching the log does not fill it.
 */
import { HttpApiEndpoint, HttpLayerRouter, HttpServerRequest } from "@effect/platform"
import { Context, Effect, Exit, Layer, Schema } from "effect"

export interface RequestLogEntry {
  readonly seq: number
  readonly at: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly millis: number
}

export interface RequestLog {
  readonly record: (entry: Omit<RequestLogEntry, "seq">) => void
  readonly after: (seq: number) => ReadonlyArray<RequestLogEntry>
  /** The sequence number of the last entry (0: none yet). */
  readonly last: () => number
}

export const REQUEST_LOG_SIZE = 500

/**
 * A ring of the last `size` entries: entry `seq` sits at `(seq - 1) % size`, so recording one costs
 * the same when the ring is full (it had shifted the whole array on every request).
 */
export const makeRequestLog = (size = REQUEST_LOG_SIZE): RequestLog => {
  const capacity = Math.max(0, Math.floor(size))
  const ring: Array<RequestLogEntry> = []
  let seq = 0
  return {
    record: (entry) => {
      seq += 1
      if (capacity > 0) ring[(seq - 1) % capacity] = { seq, ...entry }
    },
    after: (from) => {
      const entries: Array<RequestLogEntry> = []
      for (let s = Math.max(Math.floor(from) + 1, seq - capacity + 1, 1); s <= seq; s++) entries.push(ring[(s - 1) % capacity]!)
      return entries
    },
    last: () => seq
  }
}

/**
 * The node's request log, one per node: the web routes (the middleware, `/sandnet/requests`) and the
 * read routes (read-routes.ts, which answer without the router) record into the same one.
 */
export class RequestLogs extends Context.Tag("@sandnet/http/RequestLogs")<RequestLogs, RequestLog>() {
  static readonly layer: Layer.Layer<RequestLogs> = Layer.sync(RequestLogs, () => makeRequestLog())
}

const UNLOGGED = [/^\/sandnet\/(events|requests|health)$/, /^\/assets\//, /^\/favicon/]

const pathOf = (url: string): string => new URL(url, "http://x").pathname

/**
 * The middleware: times each request and records its answer's status. It wraps every request of
 * the Effect path, so it reads the request and the clock in one step each (an `Effect.gen` with
 * two clock effects was a dozen of a request's Effect operations).
 */
export const requestLogMiddleware = (log: RequestLog) =>
  HttpLayerRouter.middleware(
    (app) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const path = pathOf(request.url)
        if (UNLOGGED.some((re) => re.test(path))) return app
        return Effect.clockWith((clock) => {
          const started = clock.unsafeCurrentTimeMillis()
          return Effect.onExit(app, (exit) =>
            Effect.sync(() =>
              log.record({
                at: new Date(started).toISOString(),
                method: request.method,
                path,
                status: Exit.isSuccess(exit) ? exit.value.status : 500,
                millis: clock.unsafeCurrentTimeMillis() - started
              })
            )
          )
        })
      }),
    { global: true }
  )

export const RequestLogEntrySchema = Schema.Struct({
  seq: Schema.Int,
  at: Schema.String,
  method: Schema.String,
  path: Schema.String,
  status: Schema.Int,
  millis: Schema.Number
}).annotations({ identifier: "SandnetRequestLogEntry" })

export const GetRequests = HttpApiEndpoint.get("getSandnetRequests", "/requests")
  .setUrlParams(Schema.Struct({ after: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())) }))
  .addSuccess(Schema.Struct({ last: Schema.Int, requests: Schema.Array(RequestLogEntrySchema) }).annotations({ identifier: "SandnetRequestLog" }))

export type RequestLogLayer = Layer.Layer<never, never, HttpLayerRouter.HttpRouter>
