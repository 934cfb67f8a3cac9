/**
 * Scan surface (`/api/scan`, open): the first super validator's scan. Handlers decode, call the
 * engine's ScanApi (packages/engine/src/scan/, imported as ScanReads) under the runtime's lock and encode with
 * the Schemas below (splice-scan.yaml's shapes). See docs/api.md for the coverage and deviations.
 *
 *   S1 POST /v0/admin/sv/voteresults                 vote results, newest effective date first, paged
 *   S2 GET  /v1/updates/{update_id}                  (and the deprecated /v0/updates/{update_id})
 *   S3 GET  /v0/events/{update_id}                   update, verdict, traffic summary, app activity
 *   S4 POST /v0/external-party-coin-rules            (and /v0/external-party-amulet-rules)
 *   S5 POST /v0/ans-rules
 *   S6 GET  /v0/transfer-preapprovals/by-party/{party}
 *   S7 GET  /v0/voterequests/{vote_request_contract_id}
 *   S8 GET  /v0/featured-apps/by-contract-id/{contract_id}
 *   S9 GET  /v0/history/bulk/acs                     and GET /v0/history/bulk/objects/{name}
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, HttpServerRequest, OpenApi } from "@effect/platform"
import { isContractId, isUpdateId, parseIso, toIso, type Json } from "@sandnet/core"
import { ScanApi as ScanReads } from "@sandnet/engine"
import { Effect, Schema } from "effect"
import { InvalidRequest } from "../errors.ts"
import { renderOptions, scanViewOf, withScan, type ScanView } from "./engine.ts"
import { bind, surfaceNotFound, Surfaces, mergeRoutes } from "../surface.ts"
import { readRoute, type ReadRoute } from "../read-routes.ts"

// ---------------------------------------------------------------------------------------------
// Shapes (splice-scan.yaml, common-external.yaml, common-internal.yaml)
// ---------------------------------------------------------------------------------------------

/** A JSON value (payloads, choice arguments and results), named for the OpenAPI document. */
export const JsonValue: Schema.Schema<Json> = Schema.suspend(
  (): Schema.Schema<Json> =>
    Schema.Union(
      Schema.Null,
      Schema.Boolean,
      Schema.Number,
      Schema.String,
      Schema.Array(JsonValue),
      Schema.Record({ key: Schema.String, value: JsonValue })
    )
).annotations({ identifier: "JsonValue", description: "A JSON value" })

/** A JSON object (a record's compact JSON). */
export const JsonObject = Schema.Record({ key: Schema.String, value: JsonValue }).annotations({ identifier: "JsonObject" })

/** compact_json (default) or protobuf_json. */
export const ContractValueEncoding = Schema.Literal("compact_json", "protobuf_json").annotations({
  identifier: "ContractValueEncoding",
  description:
    "compact_json: the compact, human-readable encoding (default); protobuf_json: verbose and typed, so values parse losslessly"
})

const Strings = Schema.Array(Schema.String)

export const Contract = Schema.Struct({
  template_id: Schema.String,
  contract_id: Schema.String,
  payload: JsonValue,
  created_event_blob: Schema.String,
  created_at: Schema.String
}).annotations({ identifier: "Contract" })

export const ContractWithState = Schema.Struct({
  contract: Contract,
  domain_id: Schema.optional(Schema.String)
}).annotations({ identifier: "ContractWithState" })

export const MaybeCachedContractWithState = Schema.Struct({
  contract: Schema.optional(Contract),
  domain_id: Schema.optional(Schema.String)
}).annotations({
  identifier: "MaybeCachedContractWithState",
  description: "contract is omitted when the cached contract id is the current one; domain_id is absent while the contract is being reassigned"
})

export const CreatedEvent = Schema.Struct({
  event_type: Schema.Literal("created_event"),
  event_id: Schema.String,
  contract_id: Schema.String,
  template_id: Schema.String,
  package_name: Schema.String,
  create_arguments: JsonValue,
  created_at: Schema.String,
  signatories: Strings,
  observers: Strings
}).annotations({ identifier: "CreatedEvent" })

export const ExercisedEvent = Schema.Struct({
  event_type: Schema.Literal("exercised_event"),
  event_id: Schema.String,
  contract_id: Schema.String,
  template_id: Schema.String,
  package_name: Schema.String,
  choice: Schema.String,
  choice_argument: JsonValue,
  child_event_ids: Strings,
  exercise_result: JsonValue,
  consuming: Schema.Boolean,
  acting_parties: Strings,
  interface_id: Schema.optional(Schema.String)
}).annotations({ identifier: "ExercisedEvent" })

export const TreeEvent = Schema.Union(CreatedEvent, ExercisedEvent).annotations({ identifier: "TreeEvent" })

const transactionFields = {
  update_id: Schema.String,
  migration_id: Schema.Int,
  workflow_id: Schema.String,
  record_time: Schema.String,
  synchronizer_id: Schema.String,
  effective_at: Schema.String
}
const treeFields = {
  root_event_ids: Strings,
  events_by_id: Schema.Record({ key: Schema.String, value: TreeEvent }),
  external_transaction_hash: Schema.optional(Schema.String)
}

export const UpdateHistoryTransaction = Schema.Struct({
  ...transactionFields,
  offset: Schema.String,
  ...treeFields
}).annotations({ identifier: "UpdateHistoryTransaction" })

export const UpdateHistoryTransactionV2 = Schema.Struct({
  ...transactionFields,
  ...treeFields
}).annotations({ identifier: "UpdateHistoryTransactionV2" })

export const UpdateHistoryAssignment = Schema.Struct({
  submitter: Schema.String,
  source_synchronizer: Schema.String,
  target_synchronizer: Schema.String,
  migration_id: Schema.Int,
  unassign_id: Schema.String,
  created_event: CreatedEvent,
  reassignment_counter: Schema.Int
}).annotations({ identifier: "UpdateHistoryAssignment" })

export const UpdateHistoryUnassignment = Schema.Struct({
  submitter: Schema.String,
  source_synchronizer: Schema.String,
  migration_id: Schema.Int,
  target_synchronizer: Schema.String,
  unassign_id: Schema.String,
  reassignment_counter: Schema.Int,
  contract_id: Schema.String
}).annotations({ identifier: "UpdateHistoryUnassignment" })

export const UpdateHistoryReassignment = Schema.Struct({
  update_id: Schema.String,
  offset: Schema.String,
  record_time: Schema.String,
  event: Schema.Union(UpdateHistoryAssignment, UpdateHistoryUnassignment)
}).annotations({ identifier: "UpdateHistoryReassignment" })

export const UpdateHistoryItem = Schema.Union(UpdateHistoryTransaction, UpdateHistoryReassignment).annotations({
  identifier: "UpdateHistoryItem"
})
export const UpdateHistoryItemV2 = Schema.Union(UpdateHistoryTransactionV2, UpdateHistoryReassignment).annotations({
  identifier: "UpdateHistoryItemV2"
})

export const VerdictResult = Schema.Literal("VERDICT_RESULT_UNSPECIFIED", "VERDICT_RESULT_ACCEPTED", "VERDICT_RESULT_REJECTED")

export const EventHistoryVerdict = Schema.Struct({
  update_id: Schema.String,
  migration_id: Schema.Int,
  domain_id: Schema.String,
  record_time: Schema.String,
  finalization_time: Schema.String,
  submitting_parties: Strings,
  submitting_participant_uid: Schema.String,
  verdict_result: VerdictResult,
  mediator_group: Schema.Int,
  transaction_views: Schema.Struct({
    views: Schema.Array(
      Schema.Struct({
        view_id: Schema.Int,
        informees: Strings,
        confirming_parties: Schema.Array(Schema.Struct({ parties: Strings, threshold: Schema.Int })),
        sub_views: Schema.Array(Schema.Int),
        view_hash: Schema.String
      })
    ),
    root_views: Schema.Array(Schema.Int)
  })
}).annotations({ identifier: "EventHistoryVerdict" })

export const EventHistoryTrafficSummary = Schema.Struct({
  total_traffic_cost: Schema.Int,
  envelope_traffic_summaries: Schema.Array(Schema.Struct({ traffic_cost: Schema.Int, view_ids: Schema.Array(Schema.Int) }))
}).annotations({ identifier: "EventHistoryTrafficSummary" })

export const EventHistoryAppActivityRecords = Schema.Struct({
  round_number: Schema.Int,
  records: Schema.Array(Schema.Struct({ party: Schema.String, weight: Schema.Int }))
}).annotations({ identifier: "EventHistoryAppActivityRecords" })

export const EventHistoryItem = Schema.Struct({
  update: Schema.optional(UpdateHistoryItemV2),
  verdict: Schema.optional(EventHistoryVerdict),
  traffic_summary: Schema.optional(EventHistoryTrafficSummary),
  app_activity_records: Schema.optional(EventHistoryAppActivityRecords)
}).annotations({ identifier: "EventHistoryItem" })

// ---------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------

export const ListVoteResultsRequest = Schema.Struct({
  actionName: Schema.optional(Schema.String),
  accepted: Schema.optional(Schema.Boolean),
  requester: Schema.optional(Schema.String),
  effectiveFrom: Schema.optional(Schema.String),
  effectiveTo: Schema.optional(Schema.String),
  limit: Schema.Int.annotations({ description: `1 to ${ScanReads.MAX_VOTE_RESULTS_LIMIT}` }),
  pageToken: Schema.optional(Schema.Int)
}).annotations({ identifier: "ListVoteResultsRequest" })

/** Items: DsoRules_CloseVoteRequestResult (request, completedAt, offboardedVoters, abstainingSvs, outcome). */
export const DsoRulesCloseVoteRequestResult = Schema.Struct({
  request: JsonValue,
  completedAt: Schema.String,
  offboardedVoters: Schema.Array(JsonValue),
  abstainingSvs: Schema.Array(JsonValue),
  outcome: JsonValue
}).annotations({ identifier: "DsoRules_CloseVoteRequestResult" })

export const ListDsoRulesVoteResultsResponse = Schema.Struct({
  dso_rules_vote_results: Schema.Array(DsoRulesCloseVoteRequestResult),
  next_page_token: Schema.optional(Schema.Int)
}).annotations({ identifier: "ListDsoRulesVoteResultsResponse" })

export const ListVoteResults = HttpApiEndpoint.post("listVoteRequestResults", "/v0/admin/sv/voteresults")
  .setPayload(ListVoteResultsRequest)
  .addSuccess(ListDsoRulesVoteResultsResponse)

const UpdatePath = Schema.Struct({ update_id: Schema.String })

/** The spec's name and the upstream name of the value encoding; both are accepted. */
const EncodingQuery = Schema.Struct({
  contract_value_encoding: Schema.optional(ContractValueEncoding),
  daml_value_encoding: Schema.optional(ContractValueEncoding)
})

export const GetUpdateByIdV1 = HttpApiEndpoint.get("getUpdateByIdV1", "/v1/updates/:update_id")
  .setPath(UpdatePath)
  .setUrlParams(EncodingQuery)
  .addSuccess(UpdateHistoryItem)
  .annotate(OpenApi.Deprecated, true)

/** Upstream's v0 lookup: `lossless=true` is protobuf_json; event ids are `#<update id>:<node id>`. */
export const GetUpdateByIdV0 = HttpApiEndpoint.get("getUpdateById", "/v0/updates/:update_id")
  .setPath(UpdatePath)
  .setUrlParams(Schema.Struct({ ...EncodingQuery.fields, lossless: Schema.optional(Schema.BooleanFromString) }))
  .addSuccess(UpdateHistoryItem)
  .annotate(OpenApi.Deprecated, true)

export const GetEventById = HttpApiEndpoint.get("getEventById", "/v0/events/:update_id")
  .setPath(UpdatePath)
  .setUrlParams(EncodingQuery)
  .addSuccess(EventHistoryItem)

export const GetExternalPartyCoinRulesRequest = Schema.Struct({
  cached_external_party_coin_rules_contract_id: Schema.optional(Schema.String),
  cached_external_party_coin_rules_domain_id: Schema.optional(Schema.String)
}).annotations({ identifier: "GetExternalPartyCoinRulesRequest" })
export const GetExternalPartyCoinRules = HttpApiEndpoint.post("getExternalPartyCoinRules", "/v0/external-party-coin-rules")
  .setPayload(GetExternalPartyCoinRulesRequest)
  .addSuccess(Schema.Struct({ external_party_coin_rules_update: MaybeCachedContractWithState }).annotations({ identifier: "GetExternalPartyCoinRulesResponse" }))

/** The upstream path and field names, for existing clients. */
export const GetExternalPartyAmuletRulesRequest = Schema.Struct({
  cached_external_party_amulet_rules_contract_id: Schema.optional(Schema.String),
  cached_external_party_amulet_rules_domain_id: Schema.optional(Schema.String)
}).annotations({ identifier: "GetExternalPartyAmuletRulesRequest" })
export const GetExternalPartyAmuletRules = HttpApiEndpoint.post("getExternalPartyAmuletRules", "/v0/external-party-amulet-rules")
  .setPayload(GetExternalPartyAmuletRulesRequest)
  .addSuccess(Schema.Struct({ external_party_amulet_rules_update: MaybeCachedContractWithState }).annotations({ identifier: "GetExternalPartyAmuletRulesResponse" }))

export const GetAnsRulesRequest = Schema.Struct({
  cached_ans_rules_contract_id: Schema.optional(Schema.String),
  cached_ans_rules_domain_id: Schema.optional(Schema.String)
}).annotations({ identifier: "GetAnsRulesRequest" })
export const GetAnsRules = HttpApiEndpoint.post("getAnsRules", "/v0/ans-rules")
  .setPayload(GetAnsRulesRequest)
  .addSuccess(Schema.Struct({ ans_rules_update: MaybeCachedContractWithState }).annotations({ identifier: "GetAnsRulesResponse" }))

export const LookupTransferPreapprovalByParty = HttpApiEndpoint.get("lookupTransferPreapprovalByParty", "/v0/transfer-preapprovals/by-party/:party")
  .setPath(Schema.Struct({ party: Schema.String }))
  .addSuccess(Schema.Struct({ transfer_preapproval: ContractWithState }).annotations({ identifier: "LookupTransferPreapprovalByPartyResponse" }))

export const LookupVoteRequest = HttpApiEndpoint.get("lookupDsoRulesVoteRequest", "/v0/voterequests/:vote_request_contract_id")
  .setPath(Schema.Struct({ vote_request_contract_id: Schema.String }))
  .addSuccess(Schema.Struct({ dso_rules_vote_request: Contract }).annotations({ identifier: "LookupDsoRulesVoteRequestResponse" }))

export const LookupFeaturedAppRight = HttpApiEndpoint.get("lookupFeaturedAppRightByContractId", "/v0/featured-apps/by-contract-id/:contract_id")
  .setPath(Schema.Struct({ contract_id: Schema.String }))
  .addSuccess(Schema.Struct({ featured_app_right: Schema.optional(Contract) }).annotations({ identifier: "LookupFeaturedAppRightResponse" }))

export const ListBulkAcsSnapshotObjectsResponse = Schema.Struct({
  record_time: Schema.String,
  object_refs: Schema.Array(Schema.Struct({ url: Schema.String, digest: Schema.String }).annotations({ identifier: "BulkStorageObjectRef" }))
}).annotations({ identifier: "ListBulkAcsSnapshotObjectsResponse" })

export const GetAcsSnapshotObjects = HttpApiEndpoint.get("listBulkAcsSnapshotObjects", "/v0/history/bulk/acs")
  .setUrlParams(Schema.Struct({ at_or_before_record_time: Schema.String }))
  .addSuccess(ListBulkAcsSnapshotObjectsResponse)

/** The download address of a snapshot object (gzipped JSON lines of ActiveContract items). */
export const GetBulkObject = HttpApiEndpoint.get("getBulkStorageObject", "/v0/history/bulk/objects/:name")
  .setPath(Schema.Struct({ name: Schema.String }))
  .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/gzip" }))

export const ScanGroup = HttpApiGroup.make("scan")
  .add(ListVoteResults)
  .add(GetUpdateByIdV1)
  .add(GetUpdateByIdV0)
  .add(GetEventById)
  .add(GetExternalPartyCoinRules)
  .add(GetExternalPartyAmuletRules)
  .add(GetAnsRules)
  .add(LookupTransferPreapprovalByParty)
  .add(LookupVoteRequest)
  .add(LookupFeaturedAppRight)
  .add(GetAcsSnapshotObjects)
  .add(GetBulkObject)
  .annotate(OpenApi.Title, "Scan")

/** The scan surface's API declaration (for the OpenAPI document; servers: /api/scan). */
export const ScanApi = HttpApi.make("scan")
  .add(ScanGroup)
  .annotate(OpenApi.Title, "Scan API (Sandnet)")
  .annotate(OpenApi.Servers, [{ url: Surfaces.scan.mount }])

// ---------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------

const pathParameter = (parameter: string, detail: string) => new InvalidRequest({ location: "path parameter", parameter, detail })
const queryParameter = (parameter: string, detail: string) => new InvalidRequest({ location: "query parameter", parameter, detail })

const requireUpdateId = (updateId: string): Effect.Effect<string, InvalidRequest> =>
  isUpdateId(updateId) ? Effect.succeed(updateId) : Effect.fail(pathParameter("update_id", `expected an update id (1220 followed by 64 hex digits), got ${JSON.stringify(updateId)}`))

const requireContractId = (parameter: string, contractId: string): Effect.Effect<string, InvalidRequest> =>
  isContractId(contractId) ? Effect.succeed(contractId) : Effect.fail(pathParameter(parameter, `expected a contract id, got ${JSON.stringify(contractId)}`))

/** contract_value_encoding (spec) or daml_value_encoding (upstream); they must agree when both are given. */
const encodingOf = (query: {
  readonly contract_value_encoding?: ScanReads.ValueEncoding | undefined
  readonly daml_value_encoding?: ScanReads.ValueEncoding | undefined
  readonly lossless?: boolean | undefined
}): Effect.Effect<ScanReads.ValueEncoding, InvalidRequest> => {
  const given = [query.contract_value_encoding, query.daml_value_encoding, query.lossless === undefined ? undefined : query.lossless ? "protobuf_json" : "compact_json"].filter(
    (e): e is ScanReads.ValueEncoding => e !== undefined
  )
  const first = given[0]
  if (first !== undefined && given.some((e) => e !== first)) {
    return Effect.fail(queryParameter("contract_value_encoding", `the encoding parameters disagree (${given.join(", ")})`))
  }
  return Effect.succeed(first ?? DEFAULT_VALUE_ENCODING)
}

/** The value encoding of a request that names none. */
const DEFAULT_VALUE_ENCODING: ScanReads.ValueEncoding = "compact_json"

const rulesUpdate = (reference: string, cachedContractId: string | undefined, operation: string) =>
  withScan(operation, (view) =>
    ScanReads.maybeCachedRules(view.engine.network, view.sv, reference, cachedContractId)
  )

// Request checks run inside withScan: a node without an engine answers 501 to every request.

/** `http://<host>` of the request, for absolute download URLs. */
const requestOrigin = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const host = request.headers["host"] ?? "127.0.0.1"
  const forwarded = request.headers["x-forwarded-proto"]
  return `${forwarded === "https" ? "https" : "http"}://${host}`
})

export const ScanRoutes = mergeRoutes(
  surfaceNotFound(Surfaces.scan),

  bind(Surfaces.scan, ListVoteResults, ({ payload }) =>
    withScan("POST /api/scan/v0/admin/sv/voteresults", (view) => ScanReads.listVoteResults(view.sv.scan, payload))
  ),

  bind(Surfaces.scan, GetUpdateByIdV1, ({ path, urlParams }) =>
    withScan("GET /api/scan/v1/updates", (view) =>
      Effect.gen(function* () {
        const updateId = yield* requireUpdateId(path.update_id)
        const encoding = yield* encodingOf(urlParams)
        return yield* ScanReads.updateById(view.sv.scan, updateId, "v1", renderOptions(view, encoding))
      })
    )
  ),

  bind(Surfaces.scan, GetUpdateByIdV0, ({ path, urlParams }) =>
    withScan("GET /api/scan/v0/updates", (view) =>
      Effect.gen(function* () {
        const updateId = yield* requireUpdateId(path.update_id)
        const encoding = yield* encodingOf(urlParams)
        return yield* ScanReads.updateById(view.sv.scan, updateId, "v0", renderOptions(view, encoding))
      })
    )
  ),

  bind(Surfaces.scan, GetEventById, ({ path, urlParams }) =>
    withScan("GET /api/scan/v0/events", (view) =>
      Effect.gen(function* () {
        const updateId = yield* requireUpdateId(path.update_id)
        const encoding = yield* encodingOf(urlParams)
        return yield* ScanReads.eventById(view.sv.scan, updateId, renderOptions(view, encoding))
      })
    )
  ),

  bind(Surfaces.scan, GetExternalPartyCoinRules, ({ payload }) =>
    Effect.map(
      rulesUpdate(ScanReads.ScanTemplates.externalPartyCoinRules, payload.cached_external_party_coin_rules_contract_id, "POST /api/scan/v0/external-party-coin-rules"),
      (update) => ({ external_party_coin_rules_update: update })
    )
  ),

  bind(Surfaces.scan, GetExternalPartyAmuletRules, ({ payload }) =>
    Effect.map(
      rulesUpdate(ScanReads.ScanTemplates.externalPartyCoinRules, payload.cached_external_party_amulet_rules_contract_id, "POST /api/scan/v0/external-party-amulet-rules"),
      (update) => ({ external_party_amulet_rules_update: update })
    )
  ),

  bind(Surfaces.scan, GetAnsRules, ({ payload }) =>
    Effect.map(rulesUpdate(ScanReads.ScanTemplates.ansRules, payload.cached_ans_rules_contract_id, "POST /api/scan/v0/ans-rules"), (update) => ({
      ans_rules_update: update
    }))
  ),

  bind(Surfaces.scan, LookupTransferPreapprovalByParty, ({ path }) =>
    Effect.map(
      withScan("GET /api/scan/v0/transfer-preapprovals/by-party", (view) =>
        ScanReads.transferPreapprovalByParty(view.engine.network, view.sv, path.party)
      ),
      (contract) => ({ transfer_preapproval: contract })
    )
  ),

  bind(Surfaces.scan, LookupVoteRequest, ({ path }) =>
    withScan("GET /api/scan/v0/voterequests", (view) =>
      Effect.gen(function* () {
        const contractId = yield* requireContractId("vote_request_contract_id", path.vote_request_contract_id)
        const contract = yield* ScanReads.voteRequestById(view.engine.network, view.sv, contractId)
        return { dso_rules_vote_request: contract }
      })
    )
  ),

  bind(Surfaces.scan, LookupFeaturedAppRight, ({ path }) =>
    Effect.map(
      withScan("GET /api/scan/v0/featured-apps/by-contract-id", (view) =>
        Effect.sync(() => ScanReads.featuredAppRightById(view.sv, path.contract_id))
      ),
      (contract) => (contract === undefined ? {} : { featured_app_right: contract })
    )
  ),

  bind(Surfaces.scan, GetAcsSnapshotObjects, ({ urlParams }) =>
    Effect.gen(function* () {
      const snapshot = yield* withScan("GET /api/scan/v0/history/bulk/acs", (view) =>
        Effect.gen(function* () {
          const at = parseIso(urlParams.at_or_before_record_time)
          if (at === undefined) {
            return yield* Effect.fail(
              queryParameter("at_or_before_record_time", `expected an ISO-8601 date-time, got ${JSON.stringify(urlParams.at_or_before_record_time)}`)
            )
          }
          return yield* ScanReads.acsSnapshotAtOrBefore(view.sv.scan, at)
        })
      )
      const origin = yield* requestOrigin
      return {
        record_time: toIso(snapshot.recordTime),
        object_refs: snapshot.objects.map((o) => ({
          url: `${origin}${Surfaces.scan.mount}/v0/history/bulk/objects/${o.name}`,
          digest: o.digest
        }))
      }
    })
  ),

  bind(Surfaces.scan, GetBulkObject, ({ path }) =>
    withScan("GET /api/scan/v0/history/bulk/objects", (view) => ScanReads.acsSnapshotObject(view.sv.scan, path.name))
  )
)

/** GetEventById's read for a request without query parameters (undefined: a bad id, answered 400 by its `bind`). */
const eventNow = (view: ScanView, updateId: string) =>
  isUpdateId(updateId) ? ScanReads.eventById(view.sv.scan, updateId, renderOptions(view, DEFAULT_VALUE_ENCODING)) : undefined

/** GetUpdateById's (v0, v1) read for a request without query parameters. */
const updateNow = (view: ScanView, updateId: string, style: "v0" | "v1") =>
  isUpdateId(updateId) ? ScanReads.updateById(view.sv.scan, updateId, style, renderOptions(view, DEFAULT_VALUE_ENCODING)) : undefined

/**
 * The scan reads answered without a fiber (read-routes.ts): the same engine reads as their `bind`
 * above, for a request without query parameters; anything else (a bad or unknown update id) is
 * answered by `ScanRoutes`.
 */
export const ScanReadRoutes: ReadonlyArray<ReadRoute> = [
  readRoute(Surfaces.scan, GetEventById, ({ path }, engine) => eventNow(scanViewOf(engine), path["update_id"] ?? "")),
  readRoute(Surfaces.scan, GetUpdateByIdV1, ({ path }, engine) => updateNow(scanViewOf(engine), path["update_id"] ?? "", "v1")),
  readRoute(Surfaces.scan, GetUpdateByIdV0, ({ path }, engine) => updateNow(scanViewOf(engine), path["update_id"] ?? "", "v0"))
]
