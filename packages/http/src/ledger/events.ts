/**
 * Ledger surface: the event query service (`POST /v2/events/events-by-contract-id`) and the
 * contract service (`POST /v2/contracts/contract-by-id`).
 *
 * - events-by-contract-id: the contract's create event and, once it is archived, the archive event
 *   (the consuming exercise), each with its synchronizer, as the event format shows them (ACS-delta
 *   rules: a requesting party must be a stakeholder). Nothing visible: 404
 *   CONTRACT_EVENTS_NOT_FOUND. Rights as the update service: CanReadAs of the filters' parties,
 *   CanReadAsAnyParty for filtersForAnyParty.
 * - contract-by-id: the contract's created event when a querying party is a stakeholder (none
 *   listed: any contract, CanReadAsAnyParty); archived contracts too. The fields Canton cannot fill
 *   here (offset, nodeId, createdEventBlob, interfaceViews, acsDelta) are 0 / empty / false.
 *   Unknown: 404 CONTRACT_NOT_FOUND.
 *
 * A `contractId` that is not a contract id is 400 naming it. The lookups live in the engine
 * (LedgerApi.eventsByContractId, LedgerApi.contractById).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { isContractId, toIso } from "@sandnet/core"
import { LedgerApi } from "@sandnet/engine"
import { Effect, Either, Schema } from "effect"
import { requireReadAs } from "../auth.ts"
import { LedgerApiError, type HandlerError } from "../errors.ts"
import { engineRoutes, fromResolution, invalidBody, op, orFail, requireReadAsAnyParty, type LedgerNode } from "./context.ts"
import { ArchivedEvent, CreatedEvent, renderCreated, renderEvent } from "./encoding.ts"
import { EventFormat, Parties, toEventFormat } from "./requests.ts"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"

// =============================================================================================
// Shapes
// =============================================================================================

export const GetEventsByContractIdRequest = Schema.Struct({
  contractId: Schema.String,
  eventFormat: EventFormat
}).annotations({ identifier: "GetEventsByContractIdRequest" })

export const JsCreated = Schema.Struct({ createdEvent: CreatedEvent, synchronizerId: Schema.String }).annotations({ identifier: "JsCreated" })
export const JsArchived = Schema.Struct({ archivedEvent: ArchivedEvent, synchronizerId: Schema.String }).annotations({ identifier: "JsArchived" })

/** Absent events are left out (the schema's fields are optional). */
export const JsGetEventsByContractIdResponse = Schema.Struct({
  created: Schema.optional(JsCreated),
  archived: Schema.optional(JsArchived)
}).annotations({ identifier: "JsGetEventsByContractIdResponse" })

export const GetContractRequest = Schema.Struct({
  contractId: Schema.String,
  queryingParties: Schema.optional(Parties)
}).annotations({ identifier: "GetContractRequest" })

export const GetContractResponse = Schema.Struct({ createdEvent: CreatedEvent }).annotations({ identifier: "GetContractResponse" })

// =============================================================================================
// Endpoints
// =============================================================================================

export const GetEventsByContractId = op(
  HttpApiEndpoint.post("eventsByContractId", "/v2/events/events-by-contract-id")
    .setPayload(GetEventsByContractIdRequest)
    .addSuccess(JsGetEventsByContractIdResponse),
  "postV2EventsEvents-by-contract-id",
  "Get the create and the consuming exercise event for the contract with the provided ID. If the contract cannot be found for the request, or all the contract-events are filtered, a CONTRACT_EVENTS_NOT_FOUND error will be raised."
)

export const GetContract = op(
  HttpApiEndpoint.post("contractById", "/v2/contracts/contract-by-id").setPayload(GetContractRequest).addSuccess(GetContractResponse),
  "postV2ContractsContract-by-id",
  "Looking up contract data by contract ID (active or archived). The stakeholders of the contract must include a querying party; none listed: any contract (CanReadAsAnyParty)."
)

export const EventQueryGroup = HttpApiGroup.make("events").add(GetEventsByContractId).annotate(OpenApi.Title, "Event Query Service")
export const ContractGroup = HttpApiGroup.make("contracts").add(GetContract).annotate(OpenApi.Title, "Contract Service")

// =============================================================================================
// Handlers
// =============================================================================================

const checkContractId = (contractId: string) =>
  isContractId(contractId) ? Effect.void : Effect.fail(invalidBody("contractId", `"${contractId}" is not a valid contract id`))

const contractEventsNotFound = (error: LedgerApi.ContractEventsNotFound): LedgerApiError =>
  new LedgerApiError({
    code: "CONTRACT_EVENTS_NOT_FOUND",
    category: "InvalidGivenCurrentSystemStateResourceMissing",
    cause: error.message,
    resources: [["CONTRACT_ID", error.contractId]]
  })

const contractNotFound = (error: LedgerApi.ContractNotFoundById): LedgerApiError =>
  new LedgerApiError({
    code: "CONTRACT_NOT_FOUND",
    category: "InvalidGivenCurrentSystemStateResourceMissing",
    cause: error.message,
    resources: [["CONTRACT_ID", error.contractId]]
  })

const eventsByContractId = (node: LedgerNode, request: typeof GetEventsByContractIdRequest.Type) =>
  Effect.gen(function* () {
    yield* checkContractId(request.contractId)
    const format = yield* orFail(toEventFormat(request.eventFormat, request.eventFormat.verbose ?? false, "eventFormat"))
    const readers = LedgerApi.readersOf({ transactions: { eventFormat: format, shape: "ACS_DELTA" }, reassignments: undefined, topologyParties: undefined })
    for (const party of readers.parties) yield* requireReadAs(party)
    if (readers.anyParty) yield* requireReadAsAnyParty
    const events = yield* node.runtime.read((engine) =>
      Effect.sync((): Either.Either<LedgerApi.ContractEvents, HandlerError> =>
        Either.gen(function* () {
          const resolved = yield* Either.mapLeft(LedgerApi.resolveEventFormat(LedgerApi.knownPackages(engine.network), format, "eventFormat"), fromResolution)
          return yield* Either.mapLeft(LedgerApi.eventsByContractId(node.participantOf(engine), request.contractId, resolved), contractEventsNotFound)
        })
      )
    )
    if (Either.isLeft(events)) return yield* Effect.fail(events.left)
    const { created, archived } = events.right
    const archivedEvent = archived === undefined ? undefined : renderEvent(archived.event)
    return {
      ...(created === undefined ? {} : { created: { createdEvent: renderCreated(created.event), synchronizerId: created.synchronizerId } }),
      ...(archived === undefined || archivedEvent === undefined || !("ArchivedEvent" in archivedEvent)
        ? {}
        : { archived: { archivedEvent: archivedEvent.ArchivedEvent, synchronizerId: archived.synchronizerId } })
    }
  })

const contractById = (node: LedgerNode, request: typeof GetContractRequest.Type) =>
  Effect.gen(function* () {
    yield* checkContractId(request.contractId)
    const parties = [...new Set(request.queryingParties ?? [])].sort()
    for (const [i, party] of parties.entries()) if (party === "") return yield* Effect.fail(invalidBody(`queryingParties[${i}]`, "must not be empty"))
    if (parties.length === 0) yield* requireReadAsAnyParty
    for (const party of parties) yield* requireReadAs(party)
    const found = yield* node.runtime.read((engine) => Effect.sync(() => LedgerApi.contractById(node.participantOf(engine), request.contractId, parties)))
    if (Either.isLeft(found)) return yield* Effect.fail(contractNotFound(found.left))
    const { contract, witnessParties } = found.right
    const created = contract.created
    return {
      createdEvent: {
        offset: 0,
        nodeId: 0,
        contractId: created.contractId,
        templateId: created.templateId,
        createArgument: created.createArguments,
        createdEventBlob: "",
        interfaceViews: [],
        witnessParties,
        signatories: created.signatories,
        observers: created.observers,
        createdAt: toIso(created.createdAt),
        packageName: created.packageName,
        representativePackageId: created.templateId.split(":")[0] ?? "",
        acsDelta: false
      }
    }
  })

// =============================================================================================
// Routes
// =============================================================================================

const ledger = Surfaces.ledger

export const EVENT_ENDPOINTS = [GetEventsByContractId, GetContract] as const

export const EventRoutes = engineRoutes(EVENT_ENDPOINTS, (node) =>
  mergeRoutes(
    bind(ledger, GetEventsByContractId, ({ payload }) => eventsByContractId(node, payload)),
    bind(ledger, GetContract, ({ payload }) => contractById(node, payload))
  )
)
