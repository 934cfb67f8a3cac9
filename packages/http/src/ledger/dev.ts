/**
 * Developer controls of a Sandnet node (beyond the reference), on the ledger surface:
 *
 * - `GET /v2/sandnet/time` (any user): the engine's time (`{now, microseconds}`).
 * - `POST /v2/sandnet/time/advance` (ParticipantAdmin): moves ledger time forward by
 *   `{microseconds}` or `{duration: "10m"}` (units us, ms, s, m, h, d) and delivers everything
 *   that falls due (offers expire, rounds turn), in steps of at most an hour of ledger time with
 *   other requests served between them; all or nothing; an optional `advanceId` makes a retry
 *   answer the first result without moving time again (node/src/runtime/advance.ts).
 * - `POST /v2/sandnet/reset` (ParticipantAdmin): throws the network away and starts a fresh one
 *   (genesis included; uploaded packages and external parties go with it). Users and rights stay.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_MILLI, MICROS_PER_MINUTE, MICROS_PER_SECOND, toIso, type Micros } from "@sandnet/core"
import { Effect, Schema } from "effect"
import { requireParticipantAdmin } from "../auth.ts"
import type { AdvanceError } from "@sandnet/node"
import { LedgerApiError } from "../errors.ts"
import { nodeShuttingDown } from "../shutdown.ts"
import { Admin } from "../engine-admin.ts"
import { engineRoutes, invalidBody, op } from "./context.ts"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"

const UNITS: Readonly<Record<string, number>> = {
  us: 1,
  ms: MICROS_PER_MILLI,
  s: MICROS_PER_SECOND,
  m: MICROS_PER_MINUTE,
  h: MICROS_PER_HOUR,
  d: MICROS_PER_DAY
}

/** "250ms", "30s", "10m", "1.5h", "2d" -> microseconds; undefined for anything else. */
export const parseDuration = (text: string): Micros | undefined => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|m|h|d)\s*$/.exec(text)
  if (m === null) return undefined
  return Math.round(Number(m[1]) * UNITS[m[2]!]!)
}

export const SandnetTime = Schema.Struct({
  now: Schema.String,
  microseconds: Schema.Int
}).annotations({ identifier: "SandnetTime", description: "The engine's ledger time" })

export const AdvanceTimeRequest = Schema.Struct({
  microseconds: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  duration: Schema.optional(Schema.String),
  advanceId: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)))
}).annotations({
  identifier: "AdvanceTimeRequest",
  description: "Exactly one of microseconds and duration (e.g. \"10m\"); advanceId (optional) makes a retry answer the first result without moving time again"
})

export const GetTime = op(
  HttpApiEndpoint.get("getSandnetTime", "/v2/sandnet/time").addSuccess(SandnetTime),
  "getV2SandnetTime",
  "Sandnet: the engine's ledger time."
)
export const AdvanceTime = op(
  HttpApiEndpoint.post("advanceSandnetTime", "/v2/sandnet/time/advance").setPayload(AdvanceTimeRequest).addSuccess(SandnetTime),
  "postV2SandnetTimeAdvance",
  "Sandnet (ParticipantAdmin): move ledger time forward and deliver everything that falls due."
)
export const Reset = op(
  HttpApiEndpoint.post("resetSandnet", "/v2/sandnet/reset").addSuccess(Schema.Struct({})),
  "postV2SandnetReset",
  "Sandnet (ParticipantAdmin): start a fresh network (genesis included). Users and rights stay."
)

export const SandnetGroup = HttpApiGroup.make("sandnet").add(GetTime).add(AdvanceTime).add(Reset).annotate(OpenApi.Title, "Sandnet developer controls")

const timeOf = (microseconds: Micros) => ({ now: toIso(microseconds), microseconds })

/** An advance's failure in the ledger's error shape. */
const advanceError = (error: AdvanceError): LedgerApiError => {
  switch (error._tag) {
    case "NodeShuttingDown":
      return nodeShuttingDown(error.message)
    case "AdvanceIdReused":
      return new LedgerApiError({ code: "ADVANCE_ID_REUSED", category: "InvalidGivenCurrentSystemStateResourceExists", cause: error.message, context: { advanceId: error.advanceId } })
    case "AdvanceFailed":
      return new LedgerApiError({
        code: "TIME_ADVANCE_FAILED",
        category: "SystemInternalAssumptionViolated",
        cause: error.message,
        context: { rolledBack: String(error.rolledBack), now: toIso(error.now) }
      })
  }
}

const ledger = Surfaces.ledger

export const DevRoutes = engineRoutes([GetTime, AdvanceTime, Reset], (node) =>
  mergeRoutes(
    bind(ledger, GetTime, () => Effect.map(node.runtime.now, timeOf)),
    bind(ledger, AdvanceTime, ({ payload }) =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        if ((payload.microseconds === undefined) === (payload.duration === undefined)) {
          return yield* Effect.fail(invalidBody("microseconds", "exactly one of microseconds and duration must be set"))
        }
        const by = payload.microseconds ?? parseDuration(payload.duration ?? "")
        if (by === undefined) {
          return yield* Effect.fail(invalidBody("duration", `"${payload.duration}" is not a duration (e.g. 250ms, 30s, 10m, 1h, 2d)`))
        }
        const advanced = yield* Effect.mapError(node.runtime.advanceTime(by, { advanceId: payload.advanceId }), advanceError)
        return timeOf(advanced.now)
      })
    ),
    bind(ledger, Reset, () =>
      Effect.gen(function* () {
        yield* requireParticipantAdmin
        if ((yield* node.runtime.engine).cluster !== undefined) {
          // one node cannot replace a network that other processes run with it
          return yield* Effect.fail(
            new LedgerApiError({
              code: "NODE_IS_PART_OF_A_CLUSTER",
              category: "InvalidGivenCurrentSystemStateOther",
              cause: "this node is one process of a network spread over processes: stop every process and drop their schemas to start a fresh network"
            })
          )
        }
        yield* node.runtime.reset
        // The parties are gone with the network: so are their participant-local details.
        yield* Effect.flatMap(Admin.UserManagement, (users) => users.clearPartyRecords)
        return {}
      })
    )
  )
)
