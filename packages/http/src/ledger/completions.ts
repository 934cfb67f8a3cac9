/**
 * Ledger surface: the command completion service (`/v2/commands/completions`, and
 * `/v2/commands/command-completions`).
 *
 * - `POST` (list form): the completions after `beginExclusive`, then what arrives until no new item
 *   came for `stream_idle_timeout_ms` (default `listWaitMillis`) or `limit` items (capped by
 *   `maxListElements`; more without a `limit` is 413, as on `/v2/updates`).
 * - `GET` with a websocket upgrade: the client sends the request; every item is a message, new ones
 *   follow until the client closes.
 *
 * Items are `{completionResponse: {Completion: {value}}}` or `{completionResponse:
 * {OffsetCheckpoint: {value}}}` (one closes each read when the ledger end lies after the last
 * completion shown). `completions` shows the commands the user (`userId`, else the token's user)
 * submitted acting for one of `parties` (CanReadAs each; the userId must be the caller's unless an
 * administrator asks); `command-completions` those of any user acting for one of `parties` (none
 * listed: every party, CanReadAsAnyParty). The completion records live in the engine
 * (LedgerApi.openCompletions, readCompletions).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { LedgerApi, type ParticipantNode } from "@sandnet/engine"
import { toIso } from "@sandnet/core"
import { Clock, Effect, Either, Schema } from "effect"
import { AuthenticatedUser, requireReadAs } from "../auth.ts"
import { ErrorCategories, ledgerCodeCategories, PermissionDenied, type HandlerError } from "../errors.ts"
import { engineRoutes, invalidBody, LedgerApiConfig, offsetAfterLedgerEnd, op, orFail, requireMatchingUser, tooManyElements, type LedgerNode } from "./context.ts"
import { JsStatus, JsTraceContext, OffsetCheckpointValue, renderCheckpoint, SynchronizerTime } from "./encoding.ts"
import { MAX_PARTY_ID_LENGTH, Parties, partyIdTooLong } from "./requests.ts"
import { COMPLETIONS_LIST_NOTICE, StreamListQuery } from "./paging.ts"
import { decodeMessage, serveWebSocket } from "./websocket.ts"
import type { EngineInstance } from "@sandnet/node"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"

// =============================================================================================
// Shapes
// =============================================================================================

const Offset = Schema.Int.pipe(Schema.nonNegative())

export const CompletionStreamRequest = Schema.Struct({
  userId: Schema.optional(Schema.String),
  parties: Parties,
  beginExclusive: Schema.optional(Offset)
}).annotations({ identifier: "CompletionStreamRequest" })
export type CompletionStreamRequest = typeof CompletionStreamRequest.Type

export const GetCompletionsRequest = Schema.Struct({
  parties: Schema.optional(Parties),
  beginExclusive: Schema.optional(Offset)
}).annotations({ identifier: "GetCompletionsRequest" })

const Duration = Schema.Struct({ seconds: Schema.Int, nanos: Schema.Int }).annotations({ identifier: "Duration" })
export const CompletionDeduplicationPeriod = Schema.Union(
  Schema.Struct({ DeduplicationDuration: Schema.Struct({ value: Duration }) }),
  Schema.Struct({ DeduplicationOffset: Schema.Struct({ value: Schema.Int }) }),
  Schema.Struct({ Empty: Schema.Struct({}) })
).annotations({ identifier: "DeduplicationPeriod1", title: "DeduplicationPeriod" })

export const JsCompletion = Schema.Struct({
  commandId: Schema.String,
  status: JsStatus,
  updateId: Schema.String,
  userId: Schema.String,
  actAs: Parties,
  submissionId: Schema.String,
  deduplicationPeriod: CompletionDeduplicationPeriod,
  traceContext: Schema.optional(JsTraceContext),
  offset: Schema.Int,
  synchronizerTime: SynchronizerTime,
  paidTrafficCost: Schema.optional(Schema.Int)
}).annotations({ identifier: "Completion1", title: "Completion" })

export const CompletionResponse = Schema.Union(
  Schema.Struct({ Completion: Schema.Struct({ value: JsCompletion }) }),
  Schema.Struct({ Empty: Schema.Struct({}) }),
  Schema.Struct({ OffsetCheckpoint: Schema.Struct({ value: OffsetCheckpointValue }) })
).annotations({ identifier: "CompletionResponse" })

export const CompletionStreamResponse = Schema.Struct({ completionResponse: CompletionResponse }).annotations({
  identifier: "CompletionStreamResponse"
})
export type CompletionStreamResponse = typeof CompletionStreamResponse.Type

// =============================================================================================
// Endpoints
// =============================================================================================

export const GetCompletionStream = op(
  HttpApiEndpoint.post("completions", "/v2/commands/completions")
    .setUrlParams(StreamListQuery)
    .setPayload(CompletionStreamRequest)
    .addSuccess(Schema.Array(CompletionStreamResponse)),
  "postV2CommandsCompletions",
  "Query completions list (blocking call): the completions of the commands the user submitted acting for one of the parties. Deprecated: please use command-completions." +
    COMPLETIONS_LIST_NOTICE
)
export const GetCommandCompletions = op(
  HttpApiEndpoint.post("commandCompletions", "/v2/commands/command-completions")
    .setUrlParams(StreamListQuery)
    .setPayload(GetCompletionsRequest)
    .addSuccess(Schema.Array(CompletionStreamResponse)),
  "postV2CommandsCommand-completions",
  "Query completions list with filters (blocking call): the completions of commands (of any user) acting for one of the parties; none listed: every party (CanReadAsAnyParty)." +
    COMPLETIONS_LIST_NOTICE
)
/** The websocket forms (documented by the asyncapi file, not in the OpenAPI document). */
export const SubscribeCompletions = HttpApiEndpoint.get("subscribeCompletions", "/v2/commands/completions")
export const SubscribeCommandCompletions = HttpApiEndpoint.get("subscribeCommandCompletions", "/v2/commands/command-completions")

export const CompletionsGroup = HttpApiGroup.make("completions")
  .add(GetCompletionStream)
  .add(GetCommandCompletions)
  .annotate(OpenApi.Title, "Command Completion Service")

// =============================================================================================
// Rendering
// =============================================================================================

/** Sandnet deduplicates a command id with its actAs parties for 7 days (the participant's window). */
const DEDUPLICATION = { DeduplicationDuration: { value: { seconds: 7 * 24 * 3600, nanos: 0 } } }

/** A failure's status: the gRPC code of its error category and Canton's `CODE(category,correlation): cause` text. */
const failureStatus = (code: string, reason: string, updateId: string | undefined) => {
  const category = ledgerCodeCategories[code] ?? ErrorCategories.InvalidGivenCurrentSystemStateOther
  const correlation = updateId === undefined ? "00000000" : updateId.slice(4, 12)
  return { code: category.grpc ?? 2, message: `${code}(${category.id},${correlation}): ${reason}`, details: [] }
}

export const renderCompletion = (view: LedgerApi.CompletionView): typeof JsCompletion.Type => {
  const { record } = view
  const completion = record.completion
  return {
    commandId: completion.commandId,
    status: completion._tag === "Succeeded" ? { code: 0, message: "", details: [] } : failureStatus(completion.code, completion.reason, completion.updateId),
    updateId: completion._tag === "Succeeded" ? completion.updateId : "",
    userId: record.userId ?? "",
    actAs: [...view.actAs],
    submissionId: record.submissionId ?? "",
    deduplicationPeriod: DEDUPLICATION,
    offset: record.offset,
    synchronizerTime: { synchronizerId: record.synchronizerId, recordTime: toIso(record.recordTime) },
    ...(view.paidTrafficCost === undefined ? {} : { paidTrafficCost: view.paidTrafficCost })
  }
}

const renderItem = (item: LedgerApi.CompletionItem): CompletionStreamResponse => ({
  completionResponse: item.kind === "completion" ? { Completion: { value: renderCompletion(item) } } : renderCheckpoint(item)
})

// =============================================================================================
// Streams
// =============================================================================================

type StreamKind = "completions" | "commandCompletions"

interface StreamRequest {
  readonly userId?: string | undefined
  readonly parties?: ReadonlyArray<string> | undefined
  readonly beginExclusive?: number | undefined
}

interface StreamSetup {
  readonly engine: EngineInstance
  readonly participant: ParticipantNode
  readonly query: LedgerApi.CompletionsQuery
  readonly first: LedgerApi.CompletionsRead
}

/** Rights, then the first read under the engine's lock. */
const setupStream = (node: LedgerNode, request: StreamRequest, kind: StreamKind, maxItems: number) =>
  Effect.gen(function* () {
    const parties = [...new Set(request.parties ?? [])].sort()
    const tooLong = parties.find((party) => party.length > MAX_PARTY_ID_LENGTH)
    if (tooLong !== undefined) return yield* Effect.fail(partyIdTooLong("parties", tooLong))
    let userId: string | undefined
    if (kind === "completions") {
      if (parties.length === 0) return yield* Effect.fail(invalidBody("parties", "must not be empty"))
      const access = yield* requireMatchingUser(request.userId)
      userId = request.userId !== undefined && request.userId !== "" ? request.userId : access.user.id
    } else if (parties.length === 0) {
      const access = yield* AuthenticatedUser
      if (!access.rights.some((r) => r._tag === "CanReadAsAnyParty")) {
        return yield* Effect.fail(new PermissionDenied({ reason: "the CanReadAsAnyParty right is required to read the completions of every party" }))
      }
    }
    for (const party of parties) yield* requireReadAs(party)
    const query: LedgerApi.CompletionsQuery = { userId, parties }
    const begin = request.beginExclusive ?? 0
    const setup = yield* node.runtime.run((engine) =>
      Effect.sync((): Either.Either<StreamSetup, HandlerError> => {
        const participant = node.participantOf(engine)
        return Either.map(Either.mapLeft(LedgerApi.openCompletions(participant, query, begin, maxItems), offsetAfterLedgerEnd), (first) => ({ engine, participant, query, first }))
      })
    )
    return Either.isLeft(setup) ? yield* Effect.fail(setup.left) : setup.right
  })

/** The list form: what exists, then what arrives until the stream was idle for the timeout. */
const listCompletions = (node: LedgerNode, request: StreamRequest, query: typeof StreamListQuery.Type, kind: StreamKind) =>
  Effect.gen(function* () {
    const settings = yield* LedgerApiConfig
    const cap = settings.maxListElements + 1
    const elementsLimit = Math.min(query.limit ?? cap, cap)
    const setup = yield* setupStream(node, request, kind, elementsLimit)
    const participant = setup.participant
    const items: Array<LedgerApi.CompletionItem> = [...setup.first.items]
    let cursor = setup.first.cursor
    if (!setup.first.truncated && items.length < elementsLimit) {
      const wait = query.stream_idle_timeout_ms ?? settings.listWaitMillis
      let idleSince = yield* Clock.currentTimeMillis
      while (items.length < elementsLimit) {
        const now = yield* Clock.currentTimeMillis
        if (now - idleSince >= wait) break
        yield* Effect.sleep(Math.max(1, Math.min(settings.pollMillis, wait - (now - idleSince))))
        if ((yield* node.runtime.engine) !== setup.engine) break
        if (!LedgerApi.completionsAfter(participant, cursor)) continue
        const more = LedgerApi.readCompletions(participant, setup.query, cursor, elementsLimit - items.length)
        cursor = more.cursor
        if (more.items.length > 0) {
          items.push(...more.items)
          idleSince = yield* Clock.currentTimeMillis
        }
        if (more.truncated) break
      }
    }
    if (items.length > settings.maxListElements) return yield* Effect.fail(tooManyElements(items.length, settings.maxListElements))
    return items.map(renderItem)
  })

/** The websocket form: one request message in, every item out, new ones until the client closes (see websocket.ts). */
const subscribe = <A extends StreamRequest, I>(node: LedgerNode, schema: Schema.Schema<A, I>, kind: StreamKind) =>
  serveWebSocket(node, {
    start: (message: string) =>
      Effect.gen(function* () {
        const request = yield* orFail(decodeMessage(schema, message))
        const setup = yield* setupStream(node, request, kind, Number.MAX_SAFE_INTEGER)
        return { engine: setup.engine, state: { setup, cursor: setup.first.cursor }, items: setup.first.items.map(renderItem) }
      }),
    open: () => true,
    more: (stream) => {
      const participant = stream.setup.participant
      if (!LedgerApi.completionsAfter(participant, stream.cursor)) return undefined
      const more = LedgerApi.readCompletions(participant, stream.setup.query, stream.cursor, Number.MAX_SAFE_INTEGER)
      return { state: { ...stream, cursor: more.cursor }, items: more.items.map(renderItem) }
    }
  })

// =============================================================================================
// Routes
// =============================================================================================

const ledger = Surfaces.ledger

export const COMPLETION_ENDPOINTS = [GetCompletionStream, GetCommandCompletions, SubscribeCompletions, SubscribeCommandCompletions] as const

export const CompletionRoutes = engineRoutes(COMPLETION_ENDPOINTS, (node) =>
  mergeRoutes(
    bind(ledger, GetCompletionStream, ({ payload, urlParams }) => listCompletions(node, payload, urlParams, "completions")),
    bind(ledger, GetCommandCompletions, ({ payload, urlParams }) => listCompletions(node, payload, urlParams, "commandCompletions")),
    bind(ledger, SubscribeCompletions, () => subscribe(node, CompletionStreamRequest, "completions")),
    bind(ledger, SubscribeCommandCompletions, () => subscribe(node, GetCompletionsRequest, "commandCompletions"))
  )
)
