/**
 * Endpoints of the reference's ledger API that this node does not serve yet: routed and
 * documented, authenticated as usual, answered 501 UNSUPPORTED_OPERATION (see docs/api.md).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Layer } from "effect"
import { op } from "./context.ts"
import { notImplemented, reserved, Surfaces, mergeRoutes } from "../surface.ts"

const r = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E, id: string, description: string): E => reserved(op(endpoint, id, description))

export const RESERVED_LEDGER_ENDPOINTS = [
  r(
    HttpApiEndpoint.post("submitAndWaitForReassignment", "/v2/commands/submit-and-wait-for-reassignment"),
    "postV2CommandsSubmit-and-wait-for-reassignment",
    "Submits a reassignment command and waits for the reassignment."
  ),
  r(HttpApiEndpoint.post("submitReassignmentAsync", "/v2/commands/async/submit-reassignment"), "postV2CommandsAsyncSubmit-reassignment", "Submit a reassignment command asynchronously."),
  r(HttpApiEndpoint.post("updateVettedPackages", "/v2/package-vetting/update"), "postV2Package-vettingUpdate", "Update the vetted packages of this participant."),
  r(HttpApiEndpoint.post("updateVettedPackagesDeprecated", "/v2/package-vetting"), "postV2Package-vetting", "Deprecated: use POST /v2/package-vetting/update.")
] as const

export const ReservedLedgerGroup = (
  RESERVED_LEDGER_ENDPOINTS as ReadonlyArray<HttpApiEndpoint.HttpApiEndpoint.Any>
).reduce<HttpApiGroup.HttpApiGroup<"reserved", HttpApiEndpoint.HttpApiEndpoint.Any>>(
  (group, endpoint) => group.add(endpoint),
  HttpApiGroup.make("reserved") as unknown as HttpApiGroup.HttpApiGroup<"reserved", HttpApiEndpoint.HttpApiEndpoint.Any>
).annotate(OpenApi.Title, "Not served yet (501)")

export const ReservedLedgerRoutes = mergeRoutes(
  Layer.empty,
  ...RESERVED_LEDGER_ENDPOINTS.map((endpoint) => notImplemented(Surfaces.ledger, endpoint))
)
