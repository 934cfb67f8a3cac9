/**
 * Ledger surface: the update service (`/v2/updates...`; the state service is state.ts).
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
 *   transaction and tree lookups.
 * - `POST /v2/updates/get-updates-page`: `maxPageSize` defaults to and is capped by
 *   `maxListElements`; a page token (paging.ts) only continues the request of its first page
 *   (400 naming `pageToken` otherwise).
 *
 * Rights (as Canton's UpdateServiceAuthorization): CanReadAs of every party of the filters,
 * CanReadAsAnyParty for filtersForAnyParty (and for topology events of all parties).
 *
 * Topology updates (TopologyTransaction with ParticipantAuthorizationAdded events, when the
 * participant started hosting a party) are items of `/v2/updates` (and flats) and the websocket
 * forms, and answers of the update lookups, when `updateFormat.includeTopologyEvents` asks for
 * them; never of the deprecated transaction lookups, trees or the `filter` form.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { canonicalJson, sha256OfParts } from "@sandnet/core"
import { LedgerApi, type ParticipantNode } from "@sandnet/engine"
import type { EngineInstance } from "@sandnet/node"
import { Clock, Effect, Either, Schema } from "effect"
import type { HandlerError } from "../errors.ts"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"
import {
  engineRoutes,
  fromResolution,
  invalidBody,
  LedgerApiConfig,
  offsetAfterLedgerEnd,
  op,
  orFail,
  read,
  requireReaders,
  tooManyElements,
  updateNotFound,
  type LedgerNode
} from "./context.ts"
import { JsGetUpdatesResponse, JsGetUpdateTreesResponse, JsTransaction, JsTransactionTree, renderTransaction, renderTree, renderUpdate, renderUpdateTree, Update } from "./encoding.ts"
import { GetUpdatesRequest, Parties, type RequestError, toEventFormat, toTransactionFormat, toUpdateFormat, TransactionFormat, UpdateFormat, updateFormatOfRequest } from "./requests.ts"
import { decodePageToken, encodePageToken, invalidPageToken, LIST_NOTICE, NonNegativeOffset, PAGE_NOTICE, pageSize, PageSize, StreamListQuery } from "./paging.ts"
import { decodeMessage, serveWebSocket } from "./websocket.ts"

// =============================================================================================
// Shapes
// =============================================================================================

const PositiveIntFromString = Schema.NumberFromString.pipe(Schema.int(), Schema.positive())

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

// =============================================================================================
// Endpoints
// =============================================================================================

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

export const GetUpdatesPage = op(
  HttpApiEndpoint.post("getUpdatesPage", "/v2/updates/get-updates-page").setPayload(GetUpdatesPageRequest).addSuccess(JsGetUpdatesPageResponse),
  "postV2UpdatesGet-updates-page",
  "Read a page of ledger's filtered updates. ACS delta: an event is included only if the requesting party is a stakeholder; ledger effects: a witness. Without endOffsetInclusive in ascending order the page token is always set (tail the ledger with it)." +
    PAGE_NOTICE
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

// =============================================================================================
// Shared
// =============================================================================================

type StreamMode = "updates" | "flats" | "trees"

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
    const format = yield* orFail(updateFormatOfRequest(request, { trees: mode === "trees" }))
    yield* requireReaders(format)
    return yield* read(node, (engine, participant): Either.Either<StreamSetup, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* Either.mapLeft(
          LedgerApi.resolveUpdateFormat(LedgerApi.knownPackages(engine.network), format, request.updateFormat === undefined ? "filter" : "updateFormat", {
            trees: mode === "trees"
          }),
          fromResolution
        )
        const first = yield* Either.mapLeft(
          LedgerApi.openUpdates(participant, {
            beginExclusive: request.beginExclusive,
            endInclusive: request.endInclusive,
            descending: request.descendingOrder ?? false,
            maxItems,
            format: resolved
          }),
          offsetAfterLedgerEnd
        )
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
        if (LedgerApi.ledgerEnd(setup.participant) <= scannedTo) continue
        const more = LedgerApi.readUpdates(setup.participant, {
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

/** A websocket subscription: one request message in, the stream's items out (see websocket.ts). */
const subscribe = (node: LedgerNode, mode: StreamMode) => {
  const render = renderItem(mode)
  return serveWebSocket(node, {
    start: (message: string) =>
      Effect.gen(function* () {
        const request = yield* orFail(decodeMessage(GetUpdatesRequest, message))
        const setup = yield* setupStream(node, request, mode, Number.MAX_SAFE_INTEGER)
        return { engine: setup.engine, state: { request, setup, scannedTo: setup.first.scannedTo }, items: setup.first.items.map((item): unknown => render(item)) }
      }),
    open: ({ request, scannedTo }) => request.descendingOrder !== true && (request.endInclusive === undefined || scannedTo < request.endInclusive),
    more: (stream) => {
      if (LedgerApi.ledgerEnd(stream.setup.participant) <= stream.scannedTo) return undefined
      const more = LedgerApi.readUpdates(stream.setup.participant, {
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
    const format = yield* orFail(toUpdateFormat(json, "updateFormat"))
    yield* requireReaders(format)
    const view = yield* read(node, (engine, participant): Either.Either<LedgerApi.UpdateView, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* resolveFormat(engine, format, "updateFormat")
        return yield* Either.mapLeft(LedgerApi.lookupUpdate(participant, by, resolved), updateNotFound)
      })
    )
    return { update: renderUpdate(view) }
  })

/** The format of the deprecated transaction lookups: requestingParties (wildcards) or transactionFormat, not both. */
const legacyTransactionFormat = (request: {
  readonly requestingParties?: ReadonlyArray<string> | undefined
  readonly transactionFormat?: typeof TransactionFormat.Type | undefined
}): Either.Either<LedgerApi.TransactionFormat, RequestError> => {
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
    const transactions = yield* orFail(legacyTransactionFormat(request))
    const format: LedgerApi.UpdateFormat = { transactions, reassignments: undefined, topologyParties: undefined }
    yield* requireReaders(format)
    const view = yield* read(node, (engine, participant): Either.Either<LedgerApi.TransactionView, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* resolveFormat(engine, format, "transactionFormat")
        return yield* Either.mapLeft(LedgerApi.lookupTransaction(participant, by, resolved), updateNotFound)
      })
    )
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
    const view = yield* read(node, (engine, participant): Either.Either<LedgerApi.TransactionView, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* Either.mapLeft(
          LedgerApi.resolveUpdateFormat(LedgerApi.knownPackages(engine.network), format, "parties", { trees: true }),
          fromResolution
        )
        return yield* Either.mapLeft(LedgerApi.lookupTransaction(participant, by, resolved), updateNotFound)
      })
    )
    return { transaction: renderTree(view) }
  })

// =============================================================================================
// Pages
// =============================================================================================

/** get-updates-page: one page of the range; the token says where the next one starts. */
const updatesPage = (node: LedgerNode, request: typeof GetUpdatesPageRequest.Type) =>
  Effect.gen(function* () {
    const settings = yield* LedgerApiConfig
    const format = yield* orFail(toUpdateFormat(request.updateFormat, "updateFormat"))
    yield* requireReaders(format)
    const begin = request.beginOffsetExclusive ?? 0
    const end = request.endOffsetInclusive
    if (end !== undefined && end < begin) {
      return yield* Effect.fail(invalidBody("endOffsetInclusive", `(${end}) must not be before beginOffsetExclusive (${begin})`))
    }
    const descending = request.descendingOrder ?? false
    const digest = sha256OfParts("updates-page", canonicalJson({ begin, end: end ?? null, descending, updateFormat: request.updateFormat }))
    const token = yield* orFail(decodePageToken(request.pageToken, "updates", digest))
    const maxItems = pageSize(request.maxPageSize, settings.maxListElements)
    return yield* read(node, (engine, participant): Either.Either<typeof JsGetUpdatesPageResponse.Type, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* resolveFormat(engine, format, "updateFormat")
        const page = yield* Either.mapLeft(
          LedgerApi.updatesPage(participant, { beginExclusive: begin, endInclusive: end, descending, continueAt: token?.at, maxItems, format: resolved }),
          (error): HandlerError => (error._tag === "NotAPageToken" ? invalidPageToken(error.message) : offsetAfterLedgerEnd(error))
        )
        return {
          updates: page.updates.map((u) => ({ update: renderUpdate(u) })),
          lowestPageOffsetExclusive: page.lowestExclusive,
          highestPageOffsetInclusive: page.highestInclusive,
          ...(page.next === undefined ? {} : { nextPageToken: encodePageToken({ v: 1, kind: "updates", at: page.next, request: digest }) })
        }
      })
    )
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
  GetUpdatesPage
] as const

export const UpdateRoutes = engineRoutes(UPDATE_ENDPOINTS, (node) =>
  mergeRoutes(
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
    bind(ledger, GetUpdatesPage, ({ payload }) => updatesPage(node, payload))
  )
)


