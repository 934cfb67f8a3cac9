/**
 * Upstream scan reads the spec does not name, served on the scan surface with upstream's shapes
 * (endpoints.ts: declarations; routes.ts: handlers; reads.ts: what they read of the engine).
 */
export { ScanUpstreamGroup } from "./endpoints.ts"
export { ScanUpstreamRoutes } from "./routes.ts"
