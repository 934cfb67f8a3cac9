/**
 * Ledger surface: the state service (`/v2/state/...`): the ledger end, the latest pruned offsets
 * (Sandnet never prunes), the connected synchronizers, and the active contracts at an offset:
 * - `POST /v2/state/active-contracts`: the list form (at most `limit` items, capped by the
 *   `maxListElements` setting; more without a `limit` is 413, as Canton answers);
 * - `GET /v2/state/active-contracts` with a websocket upgrade: one GetActiveContractsRequest in,
 *   the snapshot's items out (no list limit), then a normal close;
 * - `POST /v2/state/active-contracts-page` (and its deprecated GET form, whose JSON body the
 *   handler reads): a snapshot stays at the offset of its first page (paging.ts).
 *
 * Rights: CanReadAs of every party of the event format, CanReadAsAnyParty for filtersForAnyParty;
 * connected synchronizers: CanReadAs of the party asked about, else ParticipantAdmin.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpServerRequest, OpenApi } from "@effect/platform"
import { canonicalJson, sha256OfParts } from "@sandnet/core"
import { LedgerApi } from "@sandnet/engine"
import type { EngineInstance } from "@sandnet/node"
import { Effect, Either, Schema } from "effect"
import { requireParticipantAdmin, requireReadAs } from "../auth.ts"
import { InvalidRequest, type HandlerError } from "../errors.ts"
import { parseJsonText } from "../json-body.ts"
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
  requireEventFormatReaders,
  tooManyElements,
  type LedgerNode
} from "./context.ts"
import { CreatedEvent, ParticipantPermission, renderCreated, renderPermission } from "./encoding.ts"
import { EventFormat, toEventFormat, TransactionFilter } from "./requests.ts"
import { decodePageToken, encodePageToken, LIST_NOTICE, NonNegativeOffset, PAGE_NOTICE, pageSize, PageSize, StreamListQuery } from "./paging.ts"
import { decodeMessage, serveWebSocket } from "./websocket.ts"

// =============================================================================================
// Shapes
// =============================================================================================

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
  streamContinuationToken: Schema.optional(Schema.String)
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

/** The websocket form (documented by the asyncapi file, not in the OpenAPI document). */
export const SubscribeActiveContracts = HttpApiEndpoint.get("subscribeActiveContracts", "/v2/state/active-contracts")

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

export const StateGroup = HttpApiGroup.make("state")
  .add(GetActiveContracts)
  .add(GetActiveContractsPage)
  .add(GetActiveContractsPageDeprecated)
  .add(GetConnectedSynchronizers)
  .add(GetLedgerEnd)
  .add(GetLatestPrunedOffsets)
  .annotate(OpenApi.Title, "State Service")

// =============================================================================================
// Active contracts (list, websocket and pages)
// =============================================================================================

const renderActiveContract = (c: LedgerApi.ActiveContractView): typeof JsGetActiveContractsResponse.Type => ({
  workflowId: c.workflowId,
  contractEntry: {
    JsActiveContract: { createdEvent: renderCreated(c.created), synchronizerId: c.synchronizerId, reassignmentCounter: c.reassignmentCounter }
  }
})


/** active-contracts-page: one page of the snapshot at activeAtOffset (the ledger end when not given). */
const activeContractsPage = (node: LedgerNode, request: typeof GetActiveContractsPageRequest.Type) =>
  Effect.gen(function* () {
    const settings = yield* LedgerApiConfig
    const format = yield* orFail(toEventFormat(request.eventFormat, request.eventFormat.verbose ?? false, "eventFormat"))
    yield* requireEventFormatReaders(format)
    const digest = sha256OfParts("active-contracts-page", canonicalJson({ activeAtOffset: request.activeAtOffset ?? null, eventFormat: request.eventFormat }))
    const token = yield* orFail(decodePageToken(request.pageToken, "active-contracts", digest))
    const maxItems = pageSize(request.maxPageSize, settings.maxListElements)
    return yield* read(node, (engine, participant): Either.Either<typeof JsGetActiveContractsPageResponse.Type, HandlerError> =>
      Either.gen(function* () {
        const resolved = yield* Either.mapLeft(LedgerApi.resolveEventFormat(LedgerApi.knownPackages(engine.network), format, "eventFormat"), fromResolution)
        const page = yield* Either.mapLeft(
          LedgerApi.activeContractsPage(participant, { activeAtOffset: token?.offset ?? request.activeAtOffset, format: resolved, from: token?.at ?? 0, maxItems }),
          offsetAfterLedgerEnd
        )
        return {
          activeAtOffset: page.activeAtOffset,
          activeContracts: page.contracts.map(renderActiveContract),
          ...(page.next === undefined ? {} : { nextPageToken: encodePageToken({ v: 1, kind: "active-contracts", at: page.next, offset: page.activeAtOffset, request: digest }) })
        }
      })
    )
  })

/** The deprecated GET form: the request is the JSON body. */
const activeContractsPageFromBody = (node: LedgerNode, http: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const text = yield* Effect.mapError(http.text, (error) => new InvalidRequest({ location: "body", detail: error.message }))
    const json = yield* parseJsonText(text)
    const request = yield* Effect.mapError(
      Schema.decodeUnknown(GetActiveContractsPageRequest, { errors: "all", onExcessProperty: "ignore" })(json),
      (error) => new InvalidRequest({ location: "body", detail: error.message })
    )
    return yield* activeContractsPage(node, request)
  })

/** The snapshot a GetActiveContractsRequest asks for (at most `elementsLimit` contracts), with its engine. */
const readActiveContracts = (node: LedgerNode, payload: typeof GetActiveContractsRequest.Type, elementsLimit: number) =>
  Effect.gen(function* () {
    if (payload.eventFormat !== undefined && (payload.filter !== undefined || payload.verbose !== undefined)) {
      return yield* Effect.fail(invalidBody("filter", "must be unset when eventFormat is set"))
    }
    const json = payload.eventFormat ?? payload.filter
    if (json === undefined) return yield* Effect.fail(invalidBody("eventFormat", "is missing (or the deprecated filter)"))
    const field = payload.eventFormat !== undefined ? "eventFormat" : "filter"
    const format = yield* orFail(toEventFormat(json, payload.eventFormat?.verbose ?? payload.verbose ?? false, field))
    yield* requireEventFormatReaders(format)
    return yield* read(
      node,
      (engine, participant): Either.Either<{ readonly engine: EngineInstance; readonly contracts: ReadonlyArray<LedgerApi.ActiveContractView> }, HandlerError> =>
        Either.gen(function* () {
          const resolved = yield* Either.mapLeft(LedgerApi.resolveEventFormat(LedgerApi.knownPackages(engine.network), format, field), fromResolution)
          const contracts = yield* Either.mapLeft(LedgerApi.activeContractsSnapshot(participant, payload.activeAtOffset, resolved, elementsLimit), offsetAfterLedgerEnd)
          return { engine, contracts }
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
        const request = yield* orFail(decodeMessage(GetActiveContractsRequest, message))
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

export const STATE_ENDPOINTS = [
  GetLedgerEnd,
  GetLatestPrunedOffsets,
  GetActiveContracts,
  SubscribeActiveContracts,
  GetConnectedSynchronizers,
  GetActiveContractsPage,
  GetActiveContractsPageDeprecated
] as const

export const StateRoutes = engineRoutes(STATE_ENDPOINTS, (node) =>
  mergeRoutes(
    bind(ledger, GetLedgerEnd, () =>
      Effect.map(
        node.runtime.run((engine) => Effect.sync(() => LedgerApi.ledgerEnd(node.participantOf(engine)))),
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
    bind(ledger, GetActiveContractsPage, ({ payload }) => activeContractsPage(node, payload)),
    bind(ledger, GetActiveContractsPageDeprecated, ({ request }) => activeContractsPageFromBody(node, request)),
    bind(ledger, GetConnectedSynchronizers, ({ urlParams }) =>
      Effect.gen(function* () {
        const party = urlParams.party !== undefined && urlParams.party !== "" ? urlParams.party : undefined
        if (party !== undefined) yield* requireReadAs(party)
        else yield* requireParticipantAdmin
        return yield* node.runtime.run((engine) =>
          Effect.sync(() => ({
            connectedSynchronizers: LedgerApi.connectedSynchronizers(node.participantOf(engine), party).map((s) => ({ ...s, permission: renderPermission(s.permission) }))
          }))
        )
      })
    )
  )
)
