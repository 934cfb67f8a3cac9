/**
 * The websocket form of the ledger's streams (`GET /v2/updates`, flats, trees,
 * `/v2/commands/completions`, `command-completions`), shared by all of them: the client sends one
 * request message; the node answers the items up to now, then new ones as the participant commits
 * them (polled every `pollMillis`), until the stream ends, the network is replaced (reset or
 * restore) or the client closes. A request that fails (bad JSON, a missing right) is answered with
 * one standard error message and a normal close.
 */
import { HttpServerRequest, Socket } from "@effect/platform"
import { Effect, Either, Fiber, Option, Queue, Schema } from "effect"
import { AuthenticatedUser } from "../auth.ts"
import { Dialect, inboundText, outbound } from "../dialect/index.ts"
import { describeUnknown, InvalidRequest, toJsCantonError } from "../errors.ts"
import { parseJsonText } from "../json-body.ts"
import { LedgerApiConfig, type LedgerNode } from "./context.ts"
import type { EngineInstance } from "@sandnet/node"

/** A websocket error message: the standard error body, a 400's text as INVALID_ARGUMENT. */
export const errorMessage = (error: unknown): string => {
  const described = describeUnknown(error)
  const answer = described.ledger
  const standard =
    answer._tag === "InvalidValue"
      ? {
          _tag: "Standard" as const,
          code: "INVALID_ARGUMENT",
          category: { name: "InvalidIndependentOfSystemState", id: 8, grpc: 3 },
          cause: answer.text
        }
      : answer
  return JSON.stringify(toJsCantonError(standard))
}

/** Decodes a stream's request message (JSON, then its Schema); failures are the ledger's 400. */
export const decodeMessage = <A, I>(schema: Schema.Schema<A, I>, text: string): Either.Either<A, InvalidRequest> => {
  const parsed = parseJsonText(text)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const json = parsed.right
  return Either.mapLeft(
    Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })(json),
    (error) => new InvalidRequest({ location: "body", detail: error.message })
  )
}

/** One stream's part: how it starts from the request message, and how it reads what came since. */
export interface WebSocketStream<S, E, R> {
  /** Decodes the request and reads what is there now; runs as the authenticated user. */
  readonly start: (message: string) => Effect.Effect<{ readonly engine: EngineInstance; readonly state: S; readonly items: ReadonlyArray<unknown> }, E, R>
  /** Whether the stream can have more (false: it is complete, e.g. past `endInclusive`). */
  readonly open: (state: S) => boolean
  /** The items since the last read, or undefined when the participant has nothing new (a cheap check). */
  readonly more: (state: S) => { readonly state: S; readonly items: ReadonlyArray<unknown> } | undefined
}

/** RFC 6455 §4.1: a nonce of 16 bytes, base64. */
const WEBSOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/
/** RFC 7230 tokens, comma-separated (RFC 6455 §4.1 subprotocols), each at most once. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * The handshake checks the upgrade itself would fail: they are answered here, in the ledger's
 * 400, because a handshake the `ws` library refuses on its own never completes the upgrade effect
 * (its handler would wait forever, and keep the node from shutting down).
 */
const checkHandshake = (headers: Readonly<Record<string, string | undefined>>): InvalidRequest | undefined => {
  const invalid = (parameter: string, detail: string) => new InvalidRequest({ location: "header", parameter, detail })
  if (!WEBSOCKET_KEY.test(headers["sec-websocket-key"] ?? "")) return invalid("Sec-WebSocket-Key", "must be 16 bytes, base64-encoded")
  const version = headers["sec-websocket-version"]
  if (version !== "13" && version !== "8") return invalid("Sec-WebSocket-Version", "must be 13")
  const offered = headers["sec-websocket-protocol"]
  if (offered !== undefined) {
    const protocols = offered.split(",").map((p) => p.trim())
    if (protocols.some((p) => !TOKEN.test(p)) || new Set(protocols).size !== protocols.length) {
      return invalid("Sec-WebSocket-Protocol", "must be a comma-separated list of distinct tokens")
    }
  }
  return undefined
}

/** The upgrade either completes at once or not at all: a safety net for refusals not checked above. */
const UPGRADE_TIMEOUT = "10 seconds"

export const serveWebSocket = <S, E, R>(node: LedgerNode, stream: WebSocketStream<S, E, R>) =>
  Effect.gen(function* () {
    const http = yield* HttpServerRequest.HttpServerRequest
    if ((http.headers["upgrade"] ?? "").toLowerCase() !== "websocket") {
      return yield* Effect.fail(
        new InvalidRequest({ location: "header", parameter: "Upgrade", detail: `GET ${http.url} is a websocket; use POST for the list form` })
      )
    }
    const refused = checkHandshake(http.headers)
    if (refused !== undefined) return yield* Effect.fail(refused)
    const socket = yield* http.upgrade.pipe(
      Effect.mapError((error) => new InvalidRequest({ location: "header", parameter: "Upgrade", detail: error.message })),
      Effect.timeoutFail({
        duration: UPGRADE_TIMEOUT,
        onTimeout: () => new InvalidRequest({ location: "header", parameter: "Upgrade", detail: "the websocket handshake did not complete" })
      })
    )
    const settings = yield* LedgerApiConfig
    const names = yield* Dialect
    const access = yield* AuthenticatedUser
    yield* Effect.scoped(
      Effect.gen(function* () {
        const write = yield* socket.writer
        const inbox = yield* Queue.unbounded<string>()
        const decoder = new TextDecoder()
        const reader = yield* Effect.fork(socket.runRaw((data) => Queue.offer(inbox, typeof data === "string" ? data : decoder.decode(data))))
        const closed = () => Effect.map(Fiber.poll(reader), Option.isSome)
        const first = yield* Effect.raceFirst(Effect.map(Queue.take(inbox), Option.some), Effect.as(Fiber.await(reader), Option.none<string>()))
        if (Option.isNone(first)) return
        // A client gone away is not an error of the node: writes to it are dropped.
        const send = (text: string) => Effect.catchAll(write(text), () => Effect.void)
        const close = Effect.catchAll(write(new Socket.CloseEvent(1000, "")), () => Effect.void)
        const started = yield* Effect.either(stream.start(inboundText(names, "ledger", first.value)).pipe(Effect.provideService(AuthenticatedUser, access)))
        if (Either.isLeft(started)) {
          yield* send(errorMessage(started.left))
          return yield* close
        }
        const { engine } = started.right
        let state = started.right.state
        for (const item of started.right.items) yield* send(JSON.stringify(outbound(names, item)))
        while (stream.open(state)) {
          yield* Effect.sleep(settings.pollMillis)
          if (yield* closed()) return
          if ((yield* node.runtime.engine) !== engine) break
          const next = stream.more(state)
          if (next === undefined) continue
          state = next.state
          for (const item of next.items) yield* send(JSON.stringify(outbound(names, item)))
        }
        yield* close
        yield* Fiber.interrupt(reader)
      })
    )
  })
