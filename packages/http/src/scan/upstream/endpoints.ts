/**
 * Upstream scan endpoints that the spec does not name, declared with upstream's paths, operation
 * ids and shapes (splice-scan.yaml and splice-common-internal.yaml of Splice 0.7.5): what the web
 * pages (packages/web) read besides the spec's endpoints. packages/http/test/scan-upstream.test.ts
 * type-checks the answers against the response types core-splice-client generates from upstream's document.
 *
 *   GET  /v0/dso                               GetDsoInfoResponse
 *   GET  /v0/dso-party-id                      GetDsoPartyIdResponse
 *   POST /v0/open-and-issuing-mining-rounds    GetOpenAndIssuingMiningRoundsResponse
 *   GET  /v0/closed-rounds                     GetClosedRoundsResponse
 *   POST /v2/updates                           UpdateHistoryResponseV2 (paged by record time)
 *   POST /v0/events                            EventHistoryResponse (updates with their verdicts)
 *   GET  /v0/featured-apps                     ListFeaturedAppRightsResponse
 *   GET  /v0/admin/sv/voterequests             ListDsoRulesVoteRequestsResponse
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Contract, ContractValueEncoding, ContractWithState, EventHistoryItem, MaybeCachedContractWithState, UpdateHistoryItemV2 } from "../index.ts"

export const GetDsoInfoResponse = Schema.Struct({
  sv_user: Schema.String,
  sv_party_id: Schema.String,
  dso_party_id: Schema.String,
  voting_threshold: Schema.Int,
  latest_mining_round: ContractWithState,
  amulet_rules: ContractWithState,
  dso_rules: ContractWithState,
  sv_node_states: Schema.Array(ContractWithState),
  initial_round: Schema.optional(Schema.String)
}).annotations({ identifier: "GetDsoInfoResponse" })

export const GetDso = HttpApiEndpoint.get("getDsoInfo", "/v0/dso").addSuccess(GetDsoInfoResponse)

export const GetDsoPartyId = HttpApiEndpoint.get("getDsoPartyId", "/v0/dso-party-id").addSuccess(
  Schema.Struct({ dso_party_id: Schema.String }).annotations({ identifier: "GetDsoPartyIdResponse" })
)

const ContractIds = Schema.Array(Schema.String)

export const GetOpenAndIssuingMiningRoundsRequest = Schema.Struct({
  cached_open_mining_round_contract_ids: ContractIds,
  cached_issuing_round_contract_ids: ContractIds
}).annotations({ identifier: "GetOpenAndIssuingMiningRoundsRequest" })

export const MaybeCachedContractWithStateMap = Schema.Record({ key: Schema.String, value: MaybeCachedContractWithState }).annotations({
  identifier: "MaybeCachedContractWithStateMap"
})

export const GetOpenAndIssuingMiningRoundsResponse = Schema.Struct({
  time_to_live_in_microseconds: Schema.Int,
  open_mining_rounds: MaybeCachedContractWithStateMap,
  issuing_mining_rounds: MaybeCachedContractWithStateMap
}).annotations({ identifier: "GetOpenAndIssuingMiningRoundsResponse" })

export const GetOpenAndIssuingMiningRounds = HttpApiEndpoint.post("getOpenAndIssuingMiningRounds", "/v0/open-and-issuing-mining-rounds")
  .setPayload(GetOpenAndIssuingMiningRoundsRequest)
  .addSuccess(GetOpenAndIssuingMiningRoundsResponse)

export const GetClosedRounds = HttpApiEndpoint.get("getClosedRounds", "/v0/closed-rounds").addSuccess(
  Schema.Struct({ rounds: Schema.Array(Contract) }).annotations({ identifier: "GetClosedRoundsResponse" })
)

export const UpdateHistoryRequestAfter = Schema.Struct({
  after_migration_id: Schema.Int,
  after_record_time: Schema.String
}).annotations({ identifier: "UpdateHistoryRequestAfter" })

const PageSize = Schema.Int.pipe(Schema.between(1, 1000)).annotations({ description: "1 to 1000" })

export const UpdateHistoryRequestV2 = Schema.Struct({
  after: Schema.optional(UpdateHistoryRequestAfter),
  page_size: PageSize,
  daml_value_encoding: Schema.optional(ContractValueEncoding)
}).annotations({ identifier: "UpdateHistoryRequestV2" })

export const GetUpdateHistoryV2 = HttpApiEndpoint.post("getUpdateHistoryV2", "/v2/updates")
  .setPayload(UpdateHistoryRequestV2)
  .addSuccess(Schema.Struct({ transactions: Schema.Array(UpdateHistoryItemV2) }).annotations({ identifier: "UpdateHistoryResponseV2" }))

export const EventHistoryRequest = Schema.Struct({
  after: Schema.optional(UpdateHistoryRequestAfter),
  page_size: PageSize,
  daml_value_encoding: Schema.optional(ContractValueEncoding)
}).annotations({ identifier: "EventHistoryRequest" })

export const GetEventHistory = HttpApiEndpoint.post("getEventHistory", "/v0/events")
  .setPayload(EventHistoryRequest)
  .addSuccess(Schema.Struct({ events: Schema.Array(EventHistoryItem) }).annotations({ identifier: "EventHistoryResponse" }))

export const ListFeaturedAppRights = HttpApiEndpoint.get("listFeaturedAppRights", "/v0/featured-apps").addSuccess(
  Schema.Struct({ featured_apps: Schema.Array(Contract) }).annotations({ identifier: "ListFeaturedAppRightsResponse" })
)

export const ListVoteRequests = HttpApiEndpoint.get("listDsoRulesVoteRequests", "/v0/admin/sv/voterequests").addSuccess(
  Schema.Struct({ dso_rules_vote_requests: Schema.Array(Contract) }).annotations({ identifier: "ListDsoRulesVoteRequestsResponse" })
)

/** For the scan surface's OpenAPI document (openapi.ts adds the group to the scan API). */
export const ScanUpstreamGroup = HttpApiGroup.make("scanUpstream")
  .add(GetDso)
  .add(GetDsoPartyId)
  .add(GetOpenAndIssuingMiningRounds)
  .add(GetClosedRounds)
  .add(GetUpdateHistoryV2)
  .add(GetEventHistory)
  .add(ListFeaturedAppRights)
  .add(ListVoteRequests)
  .annotate(OpenApi.Title, "Scan (upstream reads)")
