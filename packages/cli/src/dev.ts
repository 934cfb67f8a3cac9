/**
 * Developer controls of a running node (`sandnet start`), over its ledger surface:
 *
 *   sandnet time [--url URL]                  print the node's ledger time
 *   sandnet time advance 10m [--url URL]      move ledger time forward (us, ms, s, m, h, d)
 *   sandnet reset [--url URL]                 start a fresh network (users and rights stay)
 *
 * They call `/v2/sandnet/...` with a token of `participant_admin` made with `--secret` (default
 * `unsafe`, the node's default), or the `--token` given.
 */
import { makeDevToken } from "@sandnet/http"
import { randomUUID } from "node:crypto"
import { Console, Data, Effect, Option } from "effect"
import { parseDuration } from "@sandnet/sim"

export class NodeRequestFailed extends Data.TaggedError("NodeRequestFailed")<{
  readonly message: string
  /** The connection broke or timed out after the request went out (the node may still be working on it). */
  readonly lostAnswer?: boolean
}> {}

/** Fetch failures after which the request may have reached the node (undici's codes, Node's socket errors). */
const LOST_ANSWER = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_SOCKET", "ECONNRESET", "EPIPE"])

const causeCode = (error: unknown): string | undefined => {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined
  return typeof cause?.code === "string" ? cause.code : undefined
}

export interface Connection {
  readonly url: string
  readonly token: Option.Option<string>
  readonly secret: string
}

const callNode = (connection: Connection, method: "GET" | "POST", path: string, body?: unknown) =>
  Effect.gen(function* () {
    const bearer = Option.isSome(connection.token) ? connection.token.value : yield* makeDevToken({ user: "participant_admin", secret: connection.secret })
    const response = yield* Effect.tryPromise({
      try: () =>
        fetch(`${connection.url.replace(/\/$/, "")}${path}`, {
          method,
          headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        }),
      catch: (error) =>
        LOST_ANSWER.has(causeCode(error) ?? "")
          ? new NodeRequestFailed({ message: `${method} ${path}: the connection to ${connection.url} broke before the answer (${causeCode(error)})`, lostAnswer: true })
          : new NodeRequestFailed({
              message: `cannot reach a node at ${connection.url} (${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}): start one with sandnet start, or give its address with --url or SANDNET_URL`
            })
    })
    const text = yield* Effect.tryPromise({
      try: () => response.text(),
      catch: () => new NodeRequestFailed({ message: "the node's answer could not be read" })
    })
    if (!response.ok) return yield* Effect.fail(new NodeRequestFailed({ message: `${method} ${path}: ${response.status} ${text}` }))
    return text === "" ? {} : (JSON.parse(text) as unknown)
  })

const report = <A, R>(effect: Effect.Effect<A, NodeRequestFailed, R>, print: (a: A) => string) =>
  effect.pipe(
    Effect.flatMap((a) => Console.log(print(a))),
    Effect.catchAll((error) => Effect.zipRight(Console.error(error.message), Effect.sync(() => (process.exitCode = 1))))
  )

const nowOf = (answer: unknown): string =>
  typeof answer === "object" && answer !== null && "now" in answer ? String((answer as { now: unknown }).now) : JSON.stringify(answer)

/**
 * `sandnet time advance DURATION`. The request carries an advanceId: when the connection breaks
 * before the answer (a long advance outlasting the HTTP client's timeout), it is sent again, up to
 * 3 times, and the node answers the first advance's result instead of moving time again.
 */
export const advance = ({ duration, ...connection }: Connection & { readonly duration: string }) =>
  parseDuration(duration) === undefined
    ? Effect.zipRight(Console.error(`"${duration}" is not a duration (e.g. 250ms, 30s, 10m, 1h, 2d)`), Effect.sync(() => (process.exitCode = 2)))
    : report(
        Effect.retry(callNode(connection, "POST", "/v2/sandnet/time/advance", { duration, advanceId: `cli-${randomUUID()}` }), {
          times: 3,
          while: (error) => error.lostAnswer === true
        }),
        (answer) => `ledger time is now ${nowOf(answer)}`
      )

/** `sandnet time`. */
export const time = (connection: Connection) => report(callNode(connection, "GET", "/v2/sandnet/time"), (answer) => `ledger time is ${nowOf(answer)}`)

/** `sandnet reset`. */
export const reset = (connection: Connection) =>
  report(callNode(connection, "POST", "/v2/sandnet/reset", {}), () => "the node started a fresh network (users and rights kept)")
