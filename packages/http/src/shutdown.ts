/**
 * While the node shuts down (SIGTERM, SIGINT, the runtime's scope closing) every request is
 * answered 503 with code NODE_SHUTTING_DOWN, in the error shape of the surface its path belongs to
 * (the ledger's JsCantonError under /v2, `{error}` elsewhere); a time advance in progress stops
 * after its current step and answers the same.
 */
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { NodeRuntime } from "@sandnet/node"
import { Effect, Option } from "effect"
import { describe, LedgerApiError, render } from "./errors.ts"
import { Surfaces } from "./surface.ts"

export const NODE_SHUTTING_DOWN = "NODE_SHUTTING_DOWN"

export const nodeShuttingDown = (message = "the node is shutting down"): LedgerApiError =>
  new LedgerApiError({ code: NODE_SHUTTING_DOWN, category: "TransientServerFailure", cause: `${message} (${NODE_SHUTTING_DOWN})`, status: 503 })

/** The surface whose roots hold `path` (the `{error}` shape for anything outside them). */
const surfaceOfPath = (path: string) =>
  Object.values(Surfaces).find((surface) => surface.roots.some((root) => path === root || path.startsWith(`${root}/`)))?.name ?? "scan"

/** Answers 503 NODE_SHUTTING_DOWN once the node's runtime is shutting down. */
export const refuseWhileShuttingDown = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.serviceOption(NodeRuntime)
    if (Option.isNone(runtime) || !(yield* runtime.value.shuttingDown)) return yield* app
    const request = yield* HttpServerRequest.HttpServerRequest
    return render(surfaceOfPath(new URL(request.url, "http://x").pathname), describe(nodeShuttingDown()))
  })
