/**
 * Ledger surface: the update service and the state service (`/v2/updates...`, `/v2/state/...`).
 *
 * - `POST /v2/updates` (and the deprecated `/v2/updates/flats`, `/v2/updates/trees`): the list
 *   form of the stream. A bounded request (`endInclusive`) answers the range; an open-ended one
 *   answers what exists and then waits for more until no new item arrived for
 *   `stream_idle_timeout_ms` (default: the `listWaitMillis` setting, 500 ms as Canton's
 *   `http-list-wait-time`). At most `limit` items (capped by the `maxListElements` setting, 200
 *   as Canton's `http-list-max-elements-limit`); more than the setting without a `limit` is 413
 *   JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED, as Canton answers.
 * - `GET /v2/updates` (and flats, trees) with a websocket upgrade: the client sends one
 *   GetUpdatesRequest; the node sends every item as its own message (`{update: ...}`, or a
 *   JsCantonError) and keeps sending new ones until `endInclusive` is reached (then closes) or
 *   the client closes.
 * - lookups by id and offset (UPDATE_NOT_FOUND when absent or filtered out), the deprecated
 *   transaction and tree lookups, the ledger end, active contracts, connected synchronizers.
 * - pages: `POST /v2/updates/get-updates-page` and `/v2/state/active-contracts-page` (and its
 *   deprecated GET form, whose JSON body the handler reads). `maxPageSize` defaults to and is
 *   capped by `maxListElements`; a page token (base64url JSON: where the next page starts, and a
 *   digest of the request it belongs to) only continues the request of its first page (400
 *   naming `pageToken` otherwise). An active-contracts snapshot stays at the offset of its first
 *   page.
 *
 * Rights (as Canton's UpdateServiceAuthorization): CanReadAs of every party of the filters,
 * CanReadAsAnyParty for filtersForAnyParty (and for topology events of all parties).
 *
 * Topology updates (TopologyTransaction with ParticipantAuthorizationAdded events, when the
 * participant started hosting a party) are items of `/v2/updates` (and flats) and the websocket
 * forms, and answers of the update lookups, when `updateFormat.includeTopologyEvents` asks for
 * them; never of the deprecated transaction lookups, trees or the `filter` form.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpServerRequest, OpenApi } from "@effect/platform"
import { canonicalJson, sha256OfParts } from "@sandnet/core"
import { LedgerApi, type ParticipantNode } from "@sandnet/engine"
import { Clock, Effect, Either, Layer, Schema } from "effect"
import { requireParticipantAdmin, requireReadAs } from "./auth.ts"
import { InvalidRequest, type HandlerError } from "./errors.ts"
import {
  engineRoutes,
  fromResolution,
  invalidBody,
  LedgerApiConfig,
  offsetAfterLedgerEnd,
  op,
  orFail,
  requireReadAsAnyParty,
  tooManyElements,
  updateNotFound,
  type LedgerNode
} from "./ledger-context.ts"
import {
  EventFormat,
  GetUpdatesRequest,
  JsGetUpdatesResponse,
  JsGetUpdateTreesResponse,
  JsTransaction,
  JsTransactionTree,
  CreatedEvent,
  Parties,
  ParticipantPermission,
  readersOf,
  renderCreated,
  renderPermission,
  renderTransaction,
  renderTree,
  renderUpdate,
  renderUpdateTree,
  toEventFormat,
  toTransactionFormat,
  TransactionFilter,
  TransactionFormat,
  Update,
  UpdateFormat,
  updateFormatOfRequest,
  toUpdateFormat
} from "./ledger-encoding.ts"
import { decodeMessage, serveWebSocket } from "./ledger-websocket.ts"
import type { EngineInstance } from "@sandnet/node"
import { bind, Surfaces } from "./surface.ts"

// =============================================================================================
// Shapes
// =============================================================================================

const NonNegativeIntFromString = Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())
const PositiveIntFromString = Schema.NumberFromString.pipe(Schema.int(), Schema.positive())

export const StreamListQuery = Schema.Struct({
  limit: Schema.optional(NonNegativeIntFromString),
  stream_idle_timeout_ms: Schema.optional(NonNegativeIntFromString)
})

const PositiveOffset = Schema.Int.pipe(Schema.positive())

export const GetUpdateByIdRequest = Schema.Struct({ updateId: Schema.String, updateFormat: UpdateFormat }).annotations({
  identifier: "GetUpdateByIdRequest"
})
export const GetUpdateByOffsetRequest = Schema.Struct({ offset: PositiveOffset, updateFormat: UpdateFormat }).annotations({
  identifier: "GetUpdateByOffsetRequest"
})
export const JsGetUpdateResponse = Schema.Struct({ update: Update }).annotations({ identifier: "JsGetUpdateResponse" })

export const GetTransactionByIdRequest = Schema.Struct({
  updateId: Schema.String,
  requestingParties: Schema.optional(Parties),
  transactionFormat: Schema.optional(TransactionFormat)
}).annotations({ identifier: "GetTransactionByIdRequest" })
export const GetTransactionByOffsetRequest = Schema.Struct({
  offset: PositiveOffset,
  requestingParties: Schema.optional(Parties),
  transactionFormat: Schema.optional(TransactionFormat)
}).annotations({ identifier: "GetTransactionByOffsetRequest" })
export const JsGetTransactionResponse = Schema.Struct({ transaction: JsTransaction }).annotations({ identifier: "JsGetTransactionResponse" })
export const JsGetTransactionTreeResponse = Schema.Struct({ transaction: JsTransactionTree }).annotations({
  identifier: "JsGetTransactionTreeResponse"
})

const PartiesQuery = Schema.Struct({ parties: Schema.optional(Schema.Array(Schema.String)) })

export const GetLedgerEndResponse = Schema.Struct({ offset: Schema.Int }).annotations({ identifier: "GetLedgerEndResponse" })
export const GetLatestPrunedOffsetsResponse = Schema.Struct({
  participantPrunedUpToInclusive: Schema.Int,
  allDivulgedContractsPrunedUpToInclusive: Schema.Int
}).annotations({ identifier: "GetLatestPrunedOffsetsResponse" })

export const GetActiveContractsRequest = Schema.Struct({
  filter: Schema.optional(TransactionFilter),
  verbose: Schema.optional(Schema.Boolean),
  activeAtOffset: Schema.Int.pipe(Schema.nonNegative()),
  eventFormat: Schema.optional(EventFormat),
  streamContinuationToken: Schema.optional(Schema.String)
}).annotations({ identifier: "GetActiveContractsRequest" })

export const JsActiveContract = Schema.Struct({
  createdEvent: CreatedEvent,
  synchronizerId: Schema.String,
  reassignmentCounter: Schema.Int
}).annotations({ identifier: "JsActiveContract" })
export const JsGetActiveContractsResponse = Schema.Struct({
  workflowId: Schema.String,
  contractEntry: Schema.Struct({ JsActiveContract }),
  streamContinuationToken: Schema.NullOr(Schema.String)
}).annotations({ identifier: "JsGetActiveContractsResponse" })

export const GetConnectedSynchronizersResponse = Schema.Struct({
  connectedSynchronizers: Schema.Array(
    Schema.Struct({ synchronizerAlias: Schema.String, synchronizerId: Schema.String, permission: ParticipantPermission }).annotations({
      identifier: "ConnectedSynchronizer"
    })
  )
}).annotations({ identifier: "GetConnectedSynchronizersResponse" })
const ConnectedSynchronizersQuery = Schema.Struct({
  party: Schema.optional(Schema.String),
  participantId: Schema.optional(Schema.String),
  identityProviderId: Schema.optional(Schema.String)
})

const NonNegativeOffset = Schema.Int.pipe(Schema.nonNegative())
const PageSize = Schema.Int.pipe(Schema.positive())

export const GetUpdatesPageRequest = Schema.Struct({
  beginOffsetExclusive: Schema.optional(NonNegativeOffset),
  endOffsetInclusive: Schema.optional(NonNegativeOffset),
  maxPageSize: Schema.optional(PageSize),
  pageToken: Schema.optional(Schema.String),
  updateFormat: UpdateFormat,
  descendingOrder: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "GetUpdatesPageRequest" })

/** `nextPageToken` is absent on the last page. */
export const JsGetUpdatesPageResponse = Schema.Struct({
  updates: Schema.Array(JsGetUpdateResponse),
  lowestPageOffsetExclusive: Schema.Int,
  highestPageOffsetInclusive: Schema.Int,
  nextPageToken: Schema.optional(Schema.String)
}).annotations({ identifier: "JsGetUpdatesPageResponse" })

export const GetActiveContractsPageRequest = Schema.Struct({
  activeAtOffset: Schema.optional(NonNegativeOffset),
  eventFormat: EventFormat,
  maxPageSize: Schema.optional(PageSize),
  pageToken: Schema.optional(Schema.String)
}).annotations({ identifier: "GetActiveContractsPageRequest" })

/** `nextPageToken` is absent on the last page. */
export const JsGetActiveContractsPageResponse = Schema.Struct({
  activeAtOffset: Schema.Int,
  activeContracts: Schema.Array(JsGetActiveContractsResponse),
  nextPageToken: Schema.optional(Schema.String)
}).annotations({ identifier: "JsGetActiveContractsPageResponse" })

// =============================================================================================
// Endpoints
// =============================================================================================

const LIST_NOTICE =
  "\nNotice: at most `limit` items (capped by the node's list limit, 200 by default); an open-ended request waits up to stream_idle_timeout_ms (default 500) for more."

export const GetUpdates = op(
  HttpApiEndpoint.post("getUpdates", "/v2/updates")
    .setUrlParams(StreamListQuery)
    .setPayload(GetUpdatesRequest)
    .addSuccess(Schema.Array(JsGetUpdatesResponse)),
  "postV2Updates",
  "Read the ledger's filtered update stream for the specified contents and filters. ACS delta: a requesting party must be a stakeholder of an event; ledger effects: a witness." +
    LIST_NOTICE
)
export const GetUpdatesFlat = op(
  HttpApiEndpoint.post("getUpdatesFlat", "/v2/updates/flats")
    .setUrlParams(StreamListQuery)
    .setPayload(GetUpdatesRequest)
    .addSuccess(Schema.Array(JsGetUpdatesResponse)),
  "postV2UpdatesFlats",
  "Query flat transactions update list (blocking call). Deprecated: use /v2/updates." + LIST_NOTICE
)
export const GetUpdatesTree = op(
  HttpApiEndpoint.post("getUpdatesTree", "/v2/updates/trees")
    .setUrlParams(StreamListQuery)
    .setPayload(GetUpdatesRequest)
    .addSuccess(Schema.Array(JsGetUpdateTreesResponse)),
  "postV2UpdatesTrees",
  "Query update transactions tree list (blocking call). Deprecated: use /v2/updates." + LIST_NOTICE
)
/** The websocket forms (documented by the asyncapi file, not in the OpenAPI document). */
export const SubscribeUpdates = HttpApiEndpoint.get("subscribeUpdates", "/v2/updates")
export const SubscribeUpdatesFlat = HttpApiEndpoint.get("subscribeUpdatesFlat", "/v2/updates/flats")
export const SubscribeUpdatesTree = HttpApiEndpoint.get("subscribeUpdatesTree", "/v2/updates/trees")
export const SubscribeActiveContracts = HttpApiEndpoint.get("subscribeActiveContracts", "/v2/state/active-contracts")

export const GetUpdateById = op(
  HttpApiEndpoint.post("getUpdateById", "/v2/updates/update-by-id").setPayload(GetUpdateByIdRequest).addSuccess(JsGetUpdateResponse),
  "postV2UpdatesUpdate-by-id",
  "Lookup an update by its ID. If there is no update with this ID, or all the events are filtered, an UPDATE_NOT_FOUND error will be raised."
)
export const GetUpdateByOffset = op(
  HttpApiEndpoint.post("getUpdateByOffset", "/v2/updates/update-by-offset")
    .setPayload(GetUpdateByOffsetRequest)
    .addSuccess(JsGetUpdateResponse),
  "postV2UpdatesUpdate-by-offset",
  "Lookup an update by its offset. If there is no update with this offset, or all the events are filtered, an UPDATE_NOT_FOUND error will be raised."
)
export const GetTransactionById = op(
  HttpApiEndpoint.post("getTransactionById", "/v2/updates/transaction-by-id")
    .setPayload(GetTransactionByIdRequest)
    .addSuccess(JsGetTransactionResponse),
  "postV2UpdatesTransaction-by-id",
  "Get transaction by id. Deprecated: use /v2/updates/update-by-id."
)
export const GetTransactionByOffset = op(
  HttpApiEndpoint.post("getTransactionByOffset", "/v2/updates/transaction-by-offset")
    .setPayload(GetTransactionByOffsetRequest)
    .addSuccess(JsGetTransactionResponse),
  "postV2UpdatesTransaction-by-offset",
  "Get transaction by offset. Deprecated: use /v2/updates/update-by-offset."
)
export const GetTransactionTreeById = op(
  HttpApiEndpoint.get("getTransactionTreeById", "/v2/updates/transaction-tree-by-id/:updateId")
    .setPath(Schema.Struct({ updateId: Schema.String }))
    .setUrlParams(PartiesQuery)
    .addSuccess(JsGetTransactionTreeResponse),
  "getV2UpdatesTransaction-tree-by-idUpdate-id",
  "Get transaction tree by id. Deprecated: use /v2/updates/update-by-id."
)
export const GetTransactionTreeByOffset = op(
  HttpApiEndpoint.get("getTransactionTreeByOffset", "/v2/updates/transaction-tree-by-offset/:offset")
    .setPath(Schema.Struct({ offset: PositiveIntFromString }))
    .setUrlParams(PartiesQuery)
    .addSuccess(JsGetTransactionTreeResponse),
  "getV2UpdatesTransaction-tree-by-offsetOffset",
  "Get transaction tree by offset. Deprecated: use /v2/updates/update-by-offset."
)

export const GetLedgerEnd = op(
  HttpApiEndpoint.get("getLedgerEnd", "/v2/state/ledger-end").addSuccess(GetLedgerEndResponse),
  "getV2StateLedger-end",
  "Get the current ledger end. Subscriptions started with the returned offset will serve events after this RPC was called."
)
export const GetLatestPrunedOffsets = op(
  HttpApiEndpoint.get("getLatestPrunedOffsets", "/v2/state/latest-pruned-offsets").addSuccess(GetLatestPrunedOffsetsResponse),
  "getV2StateLatest-pruned-offsets",
  "Get the latest successfully pruned ledger offsets (Sandnet never prunes: 0)."
)
export const GetActiveContracts = op(
  HttpApiEndpoint.post("getActiveContracts", "/v2/state/active-contracts")
    .setUrlParams(StreamListQuery)
    .setPayload(GetActiveContractsRequest)
    .addSuccess(Schema.Array(JsGetActiveContractsResponse)),
  "postV2StateActive-contracts",
  "Query active contracts list (blocking call): the active contracts at activeAtOffset (0: none)." + LIST_NOTICE
)
const PAGE_NOTICE = "\nNotice: maxPageSize defaults to (and is capped by) the node's list limit, 200 by default."

export const GetUpdatesPage = op(
  HttpApiEndpoint.post("getUpdatesPage", "/v2/updates/get-updates-page").setPayload(GetUpdatesPageRequest).addSuccess(JsGetUpdatesPageResponse),
  "postV2UpdatesGet-updates-page",
  "Read a page of ledger's filtered updates. ACS delta: an event is included only if the requesting party is a stakeholder; ledger effects: a witness. Without endOffsetInclusive in ascending order the page token is always set (tail the ledger with it)." +
    PAGE_NOTICE
)
export const GetActiveContractsPage = op(
  HttpApiEndpoint.post("activeContractsPage", "/v2/state/active-contracts-page")
    .setPayload(GetActiveContractsPageRequest)
    .addSuccess(JsGetActiveContractsPageResponse),
  "postV2StateActive-contracts-page",
  "Returns a page of the snapshot of the active contracts at a ledger offset (activeAtOffset; not given: the ledger end, answered in activeAtOffset)." + PAGE_NOTICE
)
/** The deprecated GET form takes the same JSON body (read by the handler: a GET's payload is not decoded from a body). */
export const GetActiveContractsPageDeprecated = op(
  HttpApiEndpoint.get("activeContractsPageDeprecated", "/v2/state/active-contracts-page").addSuccess(JsGetActiveContractsPageResponse),
  "getV2StateActive-contracts-page",
  "Deprecated: use the POST version of this endpoint (this form takes the same GetActiveContractsPageRequest as its JSON body)."
)
export const GetConnectedSynchronizers = op(
  HttpApiEndpoint.get("getConnectedSynchronizers", "/v2/state/connected-synchronizers")
    .setUrlParams(ConnectedSynchronizersQuery)
    .addSuccess(GetConnectedSynchronizersResponse),
  "getV2StateConnected-synchronizers",
  "Get the list of connected synchronizers at the time of the query."
)

export const UpdatesGroup = HttpApiGroup.make("updates")
  .add(GetUpdates)
  .add(GetUpdatesFlat)
  .add(GetUpdatesTree)
  .add(GetTransactionTreeByOffset)
  .add(GetTransactionByOffset)
  .add(GetUpdateByOffset)
  .add(GetTransactionById)
  .add(GetUpdateById)
  .add(GetTransactionTreeById)
  .add(GetUpdatesPage)
  .annotate(OpenApi.Title, "Update Service")

export const StateGroup = HttpApiGroup.make("state")
  .add(GetActiveContracts)
  .add(GetActiveContractsPage)
  .add(GetActiveContractsPageDeprecated)
  .add(GetConnectedSynchronizers)
  .add(GetLedgerEnd)
  .add(GetLatestPrunedOffsets)
  .annotate(OpenApi.Title, "State Service")

// =============================================================================================
// Shared
// =============================================================================================

type StreamMode = "updates" | "flats" | "trees"

/** Rights for reading with an update format. */
const requireReaders = (format: LedgerApi.UpdateFormat) =>
  Effect.gen(function* () {
    const readers = readersOf(format)
    for (const party of readers.parties) yield* requireReadAs(party)
    if (readers.anyParty) yield* requireReadAsAnyParty
  })

const requireEventFormatReaders = (format: LedgerApi.EventFormat) =>
  requireReaders({ transactions: { eventFormat: format, shape: "ACS_DELTA" }, reassignments: undefined, topologyParties: undefined })

/** Reads the engine (a runtime read: no lock). */
const read = <A, E>(node: LedgerNode, f: (engine: EngineInstance, participant: ParticipantNode) => Either.Either<A, E>) =>
  Effect.flatMap(
    node.runtime.read((engine) => Effect.sync(() => f(engine, node.participantOf(engine)))),
    (either) => (Either.isLeft(either) ? Effect.fail(either.left) : Effect.succeed(either.right))
  )

interface StreamSetup {
  readonly engine: EngineInstance
  readonly participant: ParticipantNode
  readonly format: LedgerApi.ResolvedUpdateFormat
  readonly first: LedgerApi.UpdatesPage
}

const setupStream = (node: LedgerNode, request: GetUpdatesRequest, mode: StreamMode, maxItems: number) =>
  Effect.gen(function* () {
    if (request.descendingOrder === true && request.endInclusive === undefined) {
      return yield* Effect.fail(invalidBody("descendingOrder", "requires endInclusive"))
    }
    if (request.endInclusive !== undefined && request.endInclusive < request.beginExclusive) {
      return yield* Effect.fail(
        invalidBody("endInclusive", `(${request.endInclusive}) must not be before beginExclusive (${request.beginExclusive})`)
      )
    }
    const format = yield* orFail(updateFormatOfRequest(request, { trees: mode === "trees" }), (e) => e)
    yield* requireReaders(format)
    return yield* read(node, (engine, participant): Either.Either<StreamSetup, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* Either.mapLeft(
          LedgerApi.resolveUpdateFormat(LedgerApi.knownPackages(engine.network), format, request.updateFormat === undefined ? "filter" : "updateFormat", {
            trees: mode === "trees"
          }),
          fromResolution
        )
        const offsets = LedgerApi.checkOffsets(participant.logic, request.beginExclusive, request.endInclusive)
        if (offsets !== undefined) return yield* Either.left(offsetAfterLedgerEnd(offsets))
        const first = LedgerApi.readUpdates(participant.logic, {
          beginExclusive: request.beginExclusive,
          endInclusive: request.endInclusive,
          descending: request.descendingOrder ?? false,
          maxItems,
          format: resolved
        })
        return { engine, participant, format: resolved, first }
      })
    )
  })

const renderFlat = (item: LedgerApi.StreamItem): typeof JsGetUpdatesResponse.Type => ({ update: renderUpdate(item) })
const renderTreeItem = (item: LedgerApi.StreamItem): typeof JsGetUpdateTreesResponse.Type => ({ update: renderUpdateTree(item) })
const renderItem = (mode: StreamMode) => (mode === "trees" ? renderTreeItem : renderFlat)

/** The list form of the update stream (POST /v2/updates, flats, trees). */
const listUpdates = <A>(
  node: LedgerNode,
  request: GetUpdatesRequest,
  query: typeof StreamListQuery.Type,
  mode: StreamMode,
  render: (item: LedgerApi.StreamItem) => A
) =>
  Effect.gen(function* () {
    const settings = yield* LedgerApiConfig
    const cap = settings.maxListElements + 1
    const elementsLimit = Math.min(query.limit ?? cap, cap)
    const setup = yield* setupStream(node, request, mode, elementsLimit)
    const items: Array<LedgerApi.StreamItem> = [...setup.first.items]
    if (request.endInclusive === undefined && !setup.first.truncated && items.length < elementsLimit) {
      const wait = query.stream_idle_timeout_ms ?? settings.listWaitMillis
      let scannedTo = setup.first.scannedTo
      let idleSince = yield* Clock.currentTimeMillis
      while (items.length < elementsLimit) {
        const now = yield* Clock.currentTimeMillis
        if (now - idleSince >= wait) break
        yield* Effect.sleep(Math.max(1, Math.min(settings.pollMillis, wait - (now - idleSince))))
        if ((yield* node.runtime.engine) !== setup.engine) break
        const logic = setup.participant.logic
        if (logic.ledgerEnd <= scannedTo) continue
        const more = LedgerApi.readUpdates(logic, {
          beginExclusive: scannedTo,
          descending: false,
          maxItems: elementsLimit - items.length,
          format: setup.format
        })
        scannedTo = more.scannedTo
        if (more.items.length > 0) {
          items.push(...more.items)
          idleSince = yield* Clock.currentTimeMillis
        }
      }
    }
    if (items.length > settings.maxListElements) return yield* Effect.fail(tooManyElements(items.length, settings.maxListElements))
    return items.map(render)
  })

// ---------------------------------------------------------------------------------------------
// Websocket
// ---------------------------------------------------------------------------------------------

/** A websocket subscription: one request message in, the stream's items out (see ledger-websocket.ts). */
const subscribe = (node: LedgerNode, mode: StreamMode) => {
  const render = renderItem(mode)
  return serveWebSocket(node, {
    start: (message: string) =>
      Effect.gen(function* () {
        const request = yield* orFail(decodeMessage(GetUpdatesRequest, message), (e) => e)
        const setup = yield* setupStream(node, request, mode, Number.MAX_SAFE_INTEGER)
        return { engine: setup.engine, state: { request, setup, scannedTo: setup.first.scannedTo }, items: setup.first.items.map((item): unknown => render(item)) }
      }),
    open: ({ request, scannedTo }) => request.descendingOrder !== true && (request.endInclusive === undefined || scannedTo < request.endInclusive),
    more: (stream) => {
      const logic = stream.setup.participant.logic
      if (logic.ledgerEnd <= stream.scannedTo) return undefined
      const more = LedgerApi.readUpdates(logic, {
        beginExclusive: stream.scannedTo,
        endInclusive: stream.request.endInclusive,
        descending: false,
        maxItems: Number.MAX_SAFE_INTEGER,
        format: stream.setup.format
      })
      return { state: { ...stream, scannedTo: more.scannedTo }, items: more.items.map((item): unknown => render(item)) }
    }
  })
}

// =============================================================================================
// Lookups
// =============================================================================================

const resolveFormat = (engine: EngineInstance, format: LedgerApi.UpdateFormat, field: string) =>
  Either.mapLeft(LedgerApi.resolveUpdateFormat(LedgerApi.knownPackages(engine.network), format, field), fromResolution)

const lookupUpdate = (node: LedgerNode, by: { readonly updateId: string } | { readonly offset: number }, json: typeof UpdateFormat.Type) =>
  Effect.gen(function* () {
    const format = yield* orFail(toUpdateFormat(json, "updateFormat"), (e) => e)
    yield* requireReaders(format)
    const view = yield* read(node, (engine, participant): Either.Either<LedgerApi.UpdateView, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* resolveFormat(engine, format, "updateFormat")
        const found = "updateId" in by ? LedgerApi.updateById(participant.logic, by.updateId, resolved) : LedgerApi.updateByOffset(participant.logic, by.offset, resolved)
        return yield* Either.mapLeft(found, updateNotFound)
      })
    )
    return { update: renderUpdate(view) }
  })

/** The format of the deprecated transaction lookups: requestingParties (wildcards) or transactionFormat, not both. */
const legacyTransactionFormat = (request: {
  readonly requestingParties?: ReadonlyArray<string> | undefined
  readonly transactionFormat?: typeof TransactionFormat.Type | undefined
}): Either.Either<LedgerApi.TransactionFormat, InvalidRequest> => {
  const parties = request.requestingParties ?? []
  if (parties.length > 0) {
    if (request.transactionFormat !== undefined) return Either.left(invalidBody("requestingParties", "must be unset when transactionFormat is set"))
    return Either.map(
      toEventFormat({ filtersByParty: Object.fromEntries(parties.map((p) => [p, {}])) }, false, "requestingParties"),
      (eventFormat) => ({ eventFormat, shape: "ACS_DELTA" as const })
    )
  }
  if (request.transactionFormat === undefined) return Either.left(invalidBody("transactionFormat", "is missing (or the deprecated requestingParties)"))
  return toTransactionFormat(request.transactionFormat, "transactionFormat")
}

const lookupTransaction = (
  node: LedgerNode,
  by: { readonly updateId: string } | { readonly offset: number },
  request: Parameters<typeof legacyTransactionFormat>[0]
) =>
  Effect.gen(function* () {
    const transactions = yield* orFail(legacyTransactionFormat(request), (e) => e)
    const format: LedgerApi.UpdateFormat = { transactions, reassignments: undefined, topologyParties: undefined }
    yield* requireReaders(format)
    const view = yield* read(node, (engine, participant): Either.Either<LedgerApi.UpdateView, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* resolveFormat(engine, format, "transactionFormat")
        const found = "updateId" in by ? LedgerApi.updateById(participant.logic, by.updateId, resolved) : LedgerApi.updateByOffset(participant.logic, by.offset, resolved)
        return yield* Either.mapLeft(found, updateNotFound)
      })
    )
    if (view.kind !== "transaction") {
      return yield* Effect.fail(updateNotFound(new LedgerApi.UpdateNotFound("updateId" in by ? { updateId: by.updateId } : { offset: by.offset })))
    }
    return { transaction: renderTransaction(view) }
  })

const lookupTree = (node: LedgerNode, by: { readonly updateId: string } | { readonly offset: number }, parties: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const eventFormat: LedgerApi.EventFormat =
      parties.length === 0
        ? { filtersByParty: [], filtersForAnyParty: { cumulative: [] }, verbose: false }
        : { filtersByParty: [...new Set(parties)].sort().map((p) => [p, { cumulative: [] }] as const), filtersForAnyParty: undefined, verbose: false }
    const format: LedgerApi.UpdateFormat = { transactions: { eventFormat, shape: "LEDGER_EFFECTS" }, reassignments: undefined, topologyParties: undefined }
    yield* requireReaders(format)
    const view = yield* read(node, (engine, participant): Either.Either<LedgerApi.UpdateView, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* Either.mapLeft(
          LedgerApi.resolveUpdateFormat(LedgerApi.knownPackages(engine.network), format, "parties", { trees: true }),
          fromResolution
        )
        const found = "updateId" in by ? LedgerApi.updateById(participant.logic, by.updateId, resolved) : LedgerApi.updateByOffset(participant.logic, by.offset, resolved)
        return yield* Either.mapLeft(found, updateNotFound)
      })
    )
    if (view.kind !== "transaction") {
      return yield* Effect.fail(updateNotFound(new LedgerApi.UpdateNotFound("updateId" in by ? { updateId: by.updateId } : { offset: by.offset })))
    }
    return { transaction: renderTree(view) }
  })

// =============================================================================================
// Pages
// =============================================================================================

/** What a page token carries: where the next page starts, and a digest of the request it belongs to. */
const PageToken = Schema.Struct({
  v: Schema.Literal(1),
  kind: Schema.Literal("updates", "active-contracts"),
  at: Schema.Int.pipe(Schema.nonNegative()),
  offset: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  request: Schema.String
})
type PageToken = typeof PageToken.Type

const encodePageToken = (token: PageToken): string => Buffer.from(JSON.stringify(token), "utf8").toString("base64url")

const decodePageToken = (text: string | undefined, kind: PageToken["kind"], request: string): Either.Either<PageToken | undefined, InvalidRequest> => {
  if (text === undefined || text === "") return Either.right(undefined)
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(text, "base64url").toString("utf8"))
  } catch {
    return Either.left(invalidBody("pageToken", "is not a page token of this node"))
  }
  const decoded = Schema.decodeUnknownEither(PageToken)(json)
  if (Either.isLeft(decoded) || decoded.right.kind !== kind) return Either.left(invalidBody("pageToken", "is not a page token of this node"))
  if (decoded.right.request !== request) return Either.left(invalidBody("pageToken", "belongs to another request (a page token needs the request of its first page)"))
  return Either.right(decoded.right)
}

const pageSize = (requested: number | undefined, limit: number): number => Math.min(requested ?? limit, limit)

const renderActiveContract = (c: LedgerApi.ActiveContractView): typeof JsGetActiveContractsResponse.Type => ({
  workflowId: c.workflowId,
  contractEntry: {
    JsActiveContract: { createdEvent: renderCreated(c.created), synchronizerId: c.synchronizerId, reassignmentCounter: c.reassignmentCounter }
  },
  streamContinuationToken: null
})

/** get-updates-page: one page of the range; the token says where the next one starts. */
const updatesPage = (node: LedgerNode, request: typeof GetUpdatesPageRequest.Type) =>
  Effect.gen(function* () {
    const settings = yield* LedgerApiConfig
    const format = yield* orFail(toUpdateFormat(request.updateFormat, "updateFormat"), (e) => e)
    yield* requireReaders(format)
    const begin = request.beginOffsetExclusive ?? 0
    const end = request.endOffsetInclusive
    if (end !== undefined && end < begin) {
      return yield* Effect.fail(invalidBody("endOffsetInclusive", `(${end}) must not be before beginOffsetExclusive (${begin})`))
    }
    const descending = request.descendingOrder ?? false
    const digest = sha256OfParts("updates-page", canonicalJson({ begin, end: end ?? null, descending, updateFormat: request.updateFormat }))
    const token = yield* orFail(decodePageToken(request.pageToken, "updates", digest), (e) => e)
    const maxItems = pageSize(request.maxPageSize, settings.maxListElements)
    return yield* read(node, (engine, participant): Either.Either<typeof JsGetUpdatesPageResponse.Type, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* resolveFormat(engine, format, "updateFormat")
        const logic = participant.logic
        const offsets = LedgerApi.checkOffsets(logic, begin, end, { begin: "beginOffsetExclusive", end: "endOffsetInclusive" })
        if (offsets !== undefined) return yield* Either.left(offsetAfterLedgerEnd(offsets))
        // Descending pages move the upper bound down; ascending ones the lower bound up.
        const pageBegin = !descending && token !== undefined ? token.at : begin
        const pageEnd = descending ? (token?.at ?? end ?? logic.ledgerEnd) : (end ?? logic.ledgerEnd)
        if (pageBegin > logic.ledgerEnd || pageBegin < begin || pageEnd < begin) return yield* Either.left(invalidBody("pageToken", "is not a page token of this node"))
        const page = LedgerApi.readUpdatesPage(logic, { beginExclusive: pageBegin, endInclusive: pageEnd, descending, maxItems, format: resolved })
        const tailing = !descending && end === undefined
        const next = page.more ? (descending ? page.lowestExclusive : page.highestInclusive) : tailing ? page.highestInclusive : undefined
        return {
          updates: page.updates.map((u) => ({ update: renderUpdate(u) })),
          lowestPageOffsetExclusive: page.lowestExclusive,
          highestPageOffsetInclusive: page.highestInclusive,
          ...(next === undefined ? {} : { nextPageToken: encodePageToken({ v: 1, kind: "updates", at: next, request: digest }) })
        }
      })
    )
  })

/** active-contracts-page: one page of the snapshot at activeAtOffset (the ledger end when not given). */
const activeContractsPage = (node: LedgerNode, request: typeof GetActiveContractsPageRequest.Type) =>
  Effect.gen(function* () {
    const settings = yield* LedgerApiConfig
    const format = yield* orFail(toEventFormat(request.eventFormat, request.eventFormat.verbose ?? false, "eventFormat"), (e) => e)
    yield* requireEventFormatReaders(format)
    const digest = sha256OfParts("active-contracts-page", canonicalJson({ activeAtOffset: request.activeAtOffset ?? null, eventFormat: request.eventFormat }))
    const token = yield* orFail(decodePageToken(request.pageToken, "active-contracts", digest), (e) => e)
    const maxItems = pageSize(request.maxPageSize, settings.maxListElements)
    return yield* read(node, (engine, participant): Either.Either<typeof JsGetActiveContractsPageResponse.Type, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* Either.mapLeft(LedgerApi.resolveEventFormat(LedgerApi.knownPackages(engine.network), format, "eventFormat"), fromResolution)
        const logic = participant.logic
        const offset = token?.offset ?? request.activeAtOffset ?? logic.ledgerEnd
        const offsets = LedgerApi.checkOffsets(logic, offset, undefined, { begin: "activeAtOffset", end: "activeAtOffset" })
        if (offsets !== undefined) return yield* Either.left(offsetAfterLedgerEnd(offsets))
        const page = LedgerApi.activeContractsPage(logic, offset, resolved, token?.at ?? 0, maxItems)
        return {
          activeAtOffset: offset,
          activeContracts: page.contracts.map(renderActiveContract),
          ...(page.next === undefined ? {} : { nextPageToken: encodePageToken({ v: 1, kind: "active-contracts", at: page.next, offset, request: digest }) })
        }
      })
    )
  })

/** The deprecated GET form: the request is the JSON body. */
const activeContractsPageFromBody = (node: LedgerNode, http: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const text = yield* Effect.mapError(http.text, (error) => new InvalidRequest({ location: "body", detail: error.message }))
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      return yield* Effect.fail(new InvalidRequest({ location: "body", detail: `malformed JSON: ${error instanceof Error ? error.message : String(error)}` }))
    }
    const request = yield* Effect.mapError(
      Schema.decodeUnknown(GetActiveContractsPageRequest, { errors: "all", onExcessProperty: "ignore" })(json),
      (error) => new InvalidRequest({ location: "body", detail: error.message })
    )
    return yield* activeContractsPage(node, request)
  })

// =============================================================================================
// Active contracts (list and websocket)
// =============================================================================================

/** The snapshot a GetActiveContractsRequest asks for (at most `elementsLimit` contracts), with its engine. */
const readActiveContracts = (node: LedgerNode, payload: typeof GetActiveContractsRequest.Type, elementsLimit: number) =>
  Effect.gen(function* () {
    if (payload.eventFormat !== undefined && (payload.filter !== undefined || payload.verbose !== undefined)) {
      return yield* Effect.fail(invalidBody("filter", "must be unset when eventFormat is set"))
    }
    const json = payload.eventFormat ?? payload.filter
    if (json === undefined) return yield* Effect.fail(invalidBody("eventFormat", "is missing (or the deprecated filter)"))
    const field = payload.eventFormat !== undefined ? "eventFormat" : "filter"
    const format = yield* orFail(toEventFormat(json, payload.eventFormat?.verbose ?? payload.verbose ?? false, field), (e) => e)
    yield* requireEventFormatReaders(format)
    return yield* read(
      node,
      (engine, participant): Either.Either<{ readonly engine: EngineInstance; readonly contracts: ReadonlyArray<LedgerApi.ActiveContractView> }, HandlerError> =>
        Either.gen(function* () {
          const resolved = yield* Either.mapLeft(LedgerApi.resolveEventFormat(LedgerApi.knownPackages(engine.network), format, field), fromResolution)
          const offsets = LedgerApi.checkOffsets(participant.logic, payload.activeAtOffset, undefined, { begin: "activeAtOffset", end: "activeAtOffset" })
          if (offsets !== undefined) return yield* Either.left(offsetAfterLedgerEnd(offsets))
          return { engine, contracts: LedgerApi.activeContractsAt(participant.logic, payload.activeAtOffset, resolved).slice(0, elementsLimit) }
        })
    )
  })

/**
 * The websocket form of `/v2/state/active-contracts`: one GetActiveContractsRequest in, the
 * snapshot's JsGetActiveContractsResponse items out (no list limit), then a normal close.
 */
const subscribeActiveContracts = (node: LedgerNode) =>
  serveWebSocket(node, {
    start: (message: string) =>
      Effect.gen(function* () {
        const request = yield* orFail(decodeMessage(GetActiveContractsRequest, message), (e) => e)
        const { engine, contracts } = yield* readActiveContracts(node, request, Number.MAX_SAFE_INTEGER)
        return { engine, state: undefined, items: contracts.map((c): unknown => renderActiveContract(c)) }
      }),
    open: () => false,
    more: () => undefined
  })

// =============================================================================================
// Routes
// =============================================================================================

const ledger = Surfaces.ledger

export const UPDATE_ENDPOINTS = [
  GetUpdates,
  GetUpdatesFlat,
  GetUpdatesTree,
  SubscribeUpdates,
  SubscribeUpdatesFlat,
  SubscribeUpdatesTree,
  GetUpdateById,
  GetUpdateByOffset,
  GetTransactionById,
  GetTransactionByOffset,
  GetTransactionTreeById,
  GetTransactionTreeByOffset,
  GetLedgerEnd,
  GetLatestPrunedOffsets,
  GetActiveContracts,
  SubscribeActiveContracts,
  GetConnectedSynchronizers,
  GetUpdatesPage,
  GetActiveContractsPage,
  GetActiveContractsPageDeprecated
] as const

export const UpdateRoutes = engineRoutes(UPDATE_ENDPOINTS, (node) =>
  Layer.mergeAll(
    bind(ledger, GetUpdates, ({ payload, urlParams }) => listUpdates(node, payload, urlParams, "updates", renderFlat)),
    bind(ledger, GetUpdatesFlat, ({ payload, urlParams }) => listUpdates(node, payload, urlParams, "flats", renderFlat)),
    bind(ledger, GetUpdatesTree, ({ payload, urlParams }) => listUpdates(node, payload, urlParams, "trees", renderTreeItem)),
    bind(ledger, SubscribeUpdates, () => subscribe(node, "updates")),
    bind(ledger, SubscribeUpdatesFlat, () => subscribe(node, "flats")),
    bind(ledger, SubscribeUpdatesTree, () => subscribe(node, "trees")),
    bind(ledger, GetUpdateById, ({ payload }) => lookupUpdate(node, { updateId: payload.updateId }, payload.updateFormat)),
    bind(ledger, GetUpdateByOffset, ({ payload }) => lookupUpdate(node, { offset: payload.offset }, payload.updateFormat)),
    bind(ledger, GetTransactionById, ({ payload }) => lookupTransaction(node, { updateId: payload.updateId }, payload)),
    bind(ledger, GetTransactionByOffset, ({ payload }) => lookupTransaction(node, { offset: payload.offset }, payload)),
    bind(ledger, GetTransactionTreeById, ({ path, urlParams }) => lookupTree(node, { updateId: path.updateId }, urlParams.parties ?? [])),
    bind(ledger, GetTransactionTreeByOffset, ({ path, urlParams }) => lookupTree(node, { offset: path.offset }, urlParams.parties ?? [])),
    bind(ledger, GetLedgerEnd, () =>
      Effect.map(
        node.runtime.run((engine) => Effect.sync(() => node.participantOf(engine).logic.ledgerEnd)),
        (offset) => ({ offset })
      )
    ),
    bind(ledger, GetLatestPrunedOffsets, () =>
      Effect.succeed({ participantPrunedUpToInclusive: 0, allDivulgedContractsPrunedUpToInclusive: 0 })
    ),
    bind(ledger, GetActiveContracts, ({ payload, urlParams }) =>
      Effect.gen(function* () {
        const settings = yield* LedgerApiConfig
        const cap = settings.maxListElements + 1
        const { contracts } = yield* readActiveContracts(node, payload, Math.min(urlParams.limit ?? cap, cap))
        if (contracts.length > settings.maxListElements) return yield* Effect.fail(tooManyElements(contracts.length, settings.maxListElements))
        return contracts.map(renderActiveContract)
      })
    ),
    bind(ledger, SubscribeActiveContracts, () => subscribeActiveContracts(node)),
    bind(ledger, GetUpdatesPage, ({ payload }) => updatesPage(node, payload)),
    bind(ledger, GetActiveContractsPage, ({ payload }) => activeContractsPage(node, payload)),
    bind(ledger, GetActiveContractsPageDeprecated, ({ request }) => activeContractsPageFromBody(node, request)),
    bind(ledger, GetConnectedSynchronizers, ({ urlParams }) =>
      Effect.gen(function* () {
        const party = urlParams.party !== undefined && urlParams.party !== "" ? urlParams.party : undefined
        if (party !== undefined) yield* requireReadAs(party)
        else yield* requireParticipantAdmin
        return yield* node.runtime.run((engine) =>
          Effect.sync(() => {
            const logic = node.participantOf(engine).logic
            const permission = party === undefined ? "Submission" : logic.topology.permissionOf(logic.uid, party)
            return {
              connectedSynchronizers:
                permission === undefined
                  ? []
                  : logic.topology.synchronizers().map((s) => ({
                      synchronizerAlias: s.name,
                      synchronizerId: s.synchronizerId,
                      permission: renderPermission(permission)
                    }))
            }
          })
        )
      })
    )
  )
)

