/**
 * Upstream scan reads the spec does not name, served on the scan surface with upstream's shapes
 * (endpoints.ts: declarations; routes.ts: handlers; reads.ts: what they read of the engine;
 * holdings.ts: the holdings summaries, declared and handled).
 */
import { ScanUpstreamGroup as ReadsGroup } from "./endpoints.ts"
import { GetHoldingsSummary, GetHoldingsSummaryV1, HoldingsRoutes } from "./holdings.ts"
import { ScanUpstreamRoutes as ReadsRoutes } from "./routes.ts"
import { mergeRoutes } from "../../surface.ts"

export const ScanUpstreamGroup = ReadsGroup.add(GetHoldingsSummary).add(GetHoldingsSummaryV1)
export const ScanUpstreamRoutes = mergeRoutes(ReadsRoutes, HoldingsRoutes)
