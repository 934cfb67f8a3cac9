/**
 * The validator's scan proxy (`/api/validator/v0/scan-proxy/...`, splice-validator-scan-proxy.yaml):
 * the scan reads a wallet needs, answered from the node's scan with upstream's shapes, behind the
 * wallet surface's bearer token. What the Wallet SDK calls to tap and transfer:
 *
 *   GET /v0/scan-proxy/dso-party-id                        GetDsoPartyIdResponse
 *   GET /v0/scan-proxy/amulet-rules                        GetAmuletRulesProxyResponse
 *   GET /v0/scan-proxy/open-and-issuing-mining-rounds      GetOpenAndIssuingMiningRoundsProxyResponse
 *   GET /v0/scan-proxy/transfer-preapprovals/by-party/{party}   LookupTransferPreapprovalByPartyResponse
 *   GET /v0/scan-proxy/featured-apps/{provider_party_id}   LookupFeaturedAppRightResponse
 *
 * and the token standard registry under `/v0/scan-proxy/registry/...` (`scanProxyRegistryPath`,
 * rewritten to `/registry/...` before routing, as the validator forwards it to scan).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ScanApi as ScanReads } from "@sandnet/engine"
import { Effect, Either, Schema } from "effect"
import { Contract, ContractWithState } from "../scan/index.ts"
import { dsoRounds, withScan } from "../scan/engine.ts"
import { withState } from "../scan/upstream/reads.ts"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"

export const GetDsoPartyIdProxy = HttpApiEndpoint.get("getDsoPartyIdProxy", "/v0/scan-proxy/dso-party-id").addSuccess(
  Schema.Struct({ dso_party_id: Schema.String }).annotations({ identifier: "GetDsoPartyIdResponse" })
)

export const GetAmuletRulesProxy = HttpApiEndpoint.get("getAmuletRules", "/v0/scan-proxy/amulet-rules").addSuccess(
  Schema.Struct({ amulet_rules: ContractWithState }).annotations({ identifier: "GetAmuletRulesProxyResponse" })
)

export const GetOpenAndIssuingMiningRoundsProxy = HttpApiEndpoint.get("getOpenAndIssuingMiningRoundsProxy", "/v0/scan-proxy/open-and-issuing-mining-rounds").addSuccess(
  Schema.Struct({ open_mining_rounds: Schema.Array(ContractWithState), issuing_mining_rounds: Schema.Array(ContractWithState) }).annotations({
    identifier: "GetOpenAndIssuingMiningRoundsProxyResponse"
  })
)

export const LookupTransferPreapprovalByPartyProxy = HttpApiEndpoint.get("lookupTransferPreapprovalByPartyProxy", "/v0/scan-proxy/transfer-preapprovals/by-party/:party")
  .setPath(Schema.Struct({ party: Schema.String }))
  .addSuccess(Schema.Struct({ transfer_preapproval: ContractWithState }).annotations({ identifier: "LookupTransferPreapprovalByPartyResponse" }))

export const LookupFeaturedAppRightProxy = HttpApiEndpoint.get("lookupFeaturedAppRight", "/v0/scan-proxy/featured-apps/:provider_party_id")
  .setPath(Schema.Struct({ provider_party_id: Schema.String }))
  .addSuccess(Schema.Struct({ featured_app_right: Schema.optional(Contract) }).annotations({ identifier: "LookupFeaturedAppRightResponse" }))

export const ScanProxyGroup = HttpApiGroup.make("scanProxy")
  .add(GetDsoPartyIdProxy)
  .add(GetAmuletRulesProxy)
  .add(GetOpenAndIssuingMiningRoundsProxy)
  .add(LookupTransferPreapprovalByPartyProxy)
  .add(LookupFeaturedAppRightProxy)
  .annotate(OpenApi.Title, "Scan proxy")

export { scanProxyRegistryPath } from "./scan-proxy-path.ts"

const wallet = Surfaces.wallet

export const ScanProxyRoutes = mergeRoutes(
  bind(wallet, GetDsoPartyIdProxy, () =>
    withScan("GET /api/validator/v0/scan-proxy/dso-party-id", (view) => Effect.succeed({ dso_party_id: view.engine.network.dso as string }))
  ),

  bind(wallet, GetAmuletRulesProxy, () =>
    withScan("GET /api/validator/v0/scan-proxy/amulet-rules", (view) =>
      Either.map(ScanReads.dsoSingletonOf(view.engine.network, view.sv, ScanReads.ScanTemplates.coinRules), (rules) => ({ amulet_rules: withState(rules) }))
    )
  ),

  bind(wallet, GetOpenAndIssuingMiningRoundsProxy, () =>
    withScan("GET /api/validator/v0/scan-proxy/open-and-issuing-mining-rounds", (view) =>
      Effect.sync(() => ({
        open_mining_rounds: dsoRounds(view, ScanReads.ScanTemplates.openMiningRound).map(withState),
        issuing_mining_rounds: dsoRounds(view, ScanReads.ScanTemplates.issuingMiningRound).map(withState)
      }))
    )
  ),

  bind(wallet, LookupTransferPreapprovalByPartyProxy, ({ path }) =>
    Effect.map(
      withScan("GET /api/validator/v0/scan-proxy/transfer-preapprovals/by-party", (view) =>
        ScanReads.transferPreapprovalByParty(view.engine.network, view.sv, path.party)
      ),
      (contract) => ({ transfer_preapproval: contract })
    )
  ),

  bind(wallet, LookupFeaturedAppRightProxy, ({ path }) =>
    withScan("GET /api/validator/v0/scan-proxy/featured-apps", (view) =>
      Effect.sync(() => {
        const right = ScanReads.featuredAppRightOfProvider(view.engine.network, view.sv, path.provider_party_id)
        return right === undefined ? {} : { featured_app_right: ScanReads.renderContract(right.contract) }
      })
    )
  )
)
