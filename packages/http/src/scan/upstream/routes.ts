/**
 * Handlers of the upstream scan reads (endpoints.ts) on the scan surface: each runs under the node
 * runtime's lock through `withScan`, like the spec's scan endpoints (a node without an engine
 * answers 501), and renders with the engine's scan renderers.
 */
import { parseIso } from "@sandnet/core"
import { ScanApi as ScanReads, requiredNumVotes } from "@sandnet/engine"
import { Effect, Either } from "effect"
import { InvalidRequest } from "../../errors.ts"
import { dsoContracts, dsoRounds, renderOptions, withScan, type ScanView } from "../engine.ts"
import { bind, Surfaces, mergeRoutes } from "../../surface.ts"
import {
  GetClosedRounds,
  GetDso,
  GetDsoPartyId,
  GetEventHistory,
  GetOpenAndIssuingMiningRounds,
  GetUpdateHistoryV2,
  ListFeaturedAppRights,
  ListVoteRequests
} from "./endpoints.ts"
import { maybeCachedMap, withState } from "./reads.ts"

const scan = Surfaces.scan
const Templates = ScanReads.ScanTemplates

/** GetDsoInfoResponse: the scan's SV, the DSO's rules, its newest open round. */
const dsoInfo = (view: ScanView) =>
  Effect.gen(function* () {
    const network = view.engine.network
    const dsoRules = yield* ScanReads.dsoSingletonOf(network, view.sv, Templates.dsoRules)
    const coinRules = yield* ScanReads.dsoSingletonOf(network, view.sv, Templates.coinRules)
    const latest = yield* ScanReads.newestDsoRound(network, view.sv, Templates.openMiningRound)
    const svs = dsoRules.contract.created.createArguments["svs"]
    return {
      // Sandnet runs no SV app: its user is named after the super validator node.
      sv_user: view.sv.name,
      sv_party_id: view.sv.operator,
      dso_party_id: view.engine.network.dso,
      voting_threshold: requiredNumVotes(Array.isArray(svs) ? svs.length : 1),
      latest_mining_round: withState(latest),
      amulet_rules: withState(coinRules),
      dso_rules: withState(dsoRules),
      // The coin model has no SvNodeState contracts.
      sv_node_states: []
    }
  })

/** `after` of an update or event history request. */
const afterKey = (after: { readonly after_migration_id: number; readonly after_record_time: string } | undefined): Effect.Effect<ScanReads.HistoryKey | undefined, InvalidRequest> => {
  if (after === undefined) return Effect.succeed(undefined)
  const recordTime = parseIso(after.after_record_time)
  return recordTime === undefined
    ? Effect.fail(new InvalidRequest({ location: "body", parameter: "after.after_record_time", detail: `expected an ISO-8601 date-time, got ${JSON.stringify(after.after_record_time)}` }))
    : Effect.succeed({ migrationId: after.after_migration_id, recordTime })
}

/** Open rounds open for the caller until the next one may open: one tick. */
const roundsTtl = (view: ScanView): number => view.engine.network.config.tickDuration

export const ScanUpstreamRoutes = mergeRoutes(
  bind(scan, GetDso, () => withScan("GET /api/scan/v0/dso", dsoInfo)),

  bind(scan, GetDsoPartyId, () =>
    withScan("GET /api/scan/v0/dso-party-id", (view) => Effect.succeed({ dso_party_id: view.engine.network.dso as string }))
  ),

  bind(scan, GetOpenAndIssuingMiningRounds, ({ payload }) =>
    withScan("POST /api/scan/v0/open-and-issuing-mining-rounds", (view) =>
      Effect.sync(() => ({
        time_to_live_in_microseconds: roundsTtl(view),
        open_mining_rounds: maybeCachedMap(dsoRounds(view, Templates.openMiningRound), payload.cached_open_mining_round_contract_ids),
        issuing_mining_rounds: maybeCachedMap(dsoRounds(view, Templates.issuingMiningRound), payload.cached_issuing_round_contract_ids)
      }))
    )
  ),

  bind(scan, GetClosedRounds, () =>
    withScan("GET /api/scan/v0/closed-rounds", (view) =>
      Effect.sync(() => ({ rounds: dsoRounds(view, Templates.closedMiningRound).map((c) => ScanReads.renderContract(c.contract)) }))
    )
  ),

  bind(scan, GetUpdateHistoryV2, ({ payload }) =>
    withScan("POST /api/scan/v2/updates", (view) =>
      Effect.map(afterKey(payload.after), (after) => ({
        transactions: ScanReads.updatesAfter(view.sv.scan, after, payload.page_size).map((entry) =>
          ScanReads.renderUpdateV2(entry, renderOptions(view, payload.daml_value_encoding ?? "compact_json"))
        )
      }))
    )
  ),

  bind(scan, GetEventHistory, ({ payload }) =>
    withScan("POST /api/scan/v0/events", (view) =>
      Effect.map(afterKey(payload.after), (after) => ({
        events: ScanReads.eventIdsAfter(view.sv.scan, after, payload.page_size).flatMap((id) => {
          const item = ScanReads.eventById(view.sv.scan, id, renderOptions(view, payload.daml_value_encoding ?? "compact_json"))
          return Either.isRight(item) ? [item.right] : []
        })
      }))
    )
  ),

  bind(scan, ListFeaturedAppRights, () =>
    withScan("GET /api/scan/v0/featured-apps", (view) =>
      Effect.sync(() => ({ featured_apps: dsoContracts(view, Templates.featuredAppRight).map((c) => ScanReads.renderContract(c.contract)) }))
    )
  ),

  bind(scan, ListVoteRequests, () =>
    withScan("GET /api/scan/v0/admin/sv/voterequests", (view) =>
      Effect.sync(() => ({ dso_rules_vote_requests: dsoContracts(view, Templates.voteRequest).map((c) => ScanReads.renderContract(c.contract)) }))
    )
  )
)
