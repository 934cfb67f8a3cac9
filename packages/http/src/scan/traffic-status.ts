/**
 * A member's traffic (splice-scan.yaml, getMemberTrafficStatus), open like the rest of scan:
 *
 *   GET /v0/domains/{domain_id}/members/{member_id}/traffic-status   GetMemberTrafficStatusResponse
 *
 * `member_id` is a participant's `PAR::name::fingerprint`; 404 for an unknown synchronizer or
 * member (ScanApi.memberTrafficStatus).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ScanApi as ScanReads } from "@sandnet/engine"
import { Effect, Schema } from "effect"
import { withScan } from "./engine.ts"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"

export const GetMemberTrafficStatusResponse = Schema.Struct({
  traffic_status: Schema.Struct({
    actual: Schema.Struct({ total_consumed: Schema.Int, total_limit: Schema.Int }).annotations({ identifier: "ActualMemberTrafficState" }),
    target: Schema.Struct({ total_purchased: Schema.Int }).annotations({ identifier: "TargetMemberTrafficState" })
  }).annotations({ identifier: "MemberTrafficStatus" })
}).annotations({ identifier: "GetMemberTrafficStatusResponse" })

export const GetMemberTrafficStatus = HttpApiEndpoint.get("getMemberTrafficStatus", "/v0/domains/:domain_id/members/:member_id/traffic-status")
  .setPath(Schema.Struct({ domain_id: Schema.String, member_id: Schema.String }))
  .addSuccess(GetMemberTrafficStatusResponse)

export const TrafficStatusGroup = HttpApiGroup.make("trafficStatus").add(GetMemberTrafficStatus).annotate(OpenApi.Title, "Member traffic")

export const TrafficStatusRoutes = mergeRoutes(
  bind(Surfaces.scan, GetMemberTrafficStatus, ({ path }) =>
    withScan("GET /api/scan/v0/domains/{domain_id}/members/{member_id}/traffic-status", (view) => {
      const status = ScanReads.memberTrafficStatus(view.engine.network, view.sv, path.domain_id, path.member_id)
      return Effect.map(status, (s) => ({
        traffic_status: { actual: { total_consumed: s.totalConsumed, total_limit: s.totalLimit }, target: { total_purchased: s.totalPurchased } }
      }))
    })
  )
)
