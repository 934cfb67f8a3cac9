/**
 * Ledger JSON surface (`/v2`): the API declaration (for the OpenAPI document) and the routes, one
 * module per service: users.ts (identity providers and users), updates.ts and active-contracts.ts
 * (update and state services), commands.ts (command and interactive submission), completions.ts,
 * events.ts, parties.ts, packages.ts, vetting.ts, dev.ts (Sandnet's own), reserved.ts; the JSON
 * shapes in encoding.ts, shared settings and error mapping in context.ts. The engine endpoints bind
 * when a NodeRuntime is in the routes' context.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { SandnetStorageGroup } from "../sandnet-storage.ts"
import { surfaceNotFound, Surfaces, mergeRoutes } from "../surface.ts"
import { CommandRoutes, CommandsGroup, InteractiveSubmissionGroup } from "./commands.ts"
import { CompletionRoutes, CompletionsGroup } from "./completions.ts"
import { DevRoutes, SandnetGroup } from "./dev.ts"
import { ContractGroup, EventQueryGroup, EventRoutes } from "./events.ts"
import { PackageRoutes, PackagesGroup, VersionGroup } from "./packages.ts"
import { PartiesGroup, PartyRoutes } from "./parties.ts"
import { ReservedLedgerGroup, ReservedLedgerRoutes } from "./reserved.ts"
import { StateGroup, StateRoutes } from "./state.ts"
import { UpdateRoutes, UpdatesGroup } from "./updates.ts"
import { IdentityProviderRoutes, IdentityProvidersGroup, UserRoutes, UsersGroup } from "./users.ts"
import { PackageVettingGroup, PreferredPackagesGroup, VettingRoutes } from "./vetting.ts"

export * from "./users.ts"

const ledger = Surfaces.ledger

/** The ledger surface's API declaration (for the OpenAPI document). */
export const LedgerApi = HttpApi.make("ledger")
  .add(CommandsGroup)
  .add(CompletionsGroup)
  .add(InteractiveSubmissionGroup)
  .add(PreferredPackagesGroup)
  .add(UpdatesGroup)
  .add(StateGroup)
  .add(EventQueryGroup)
  .add(ContractGroup)
  .add(PartiesGroup)
  .add(PackagesGroup)
  .add(PackageVettingGroup)
  .add(VersionGroup)
  .add(IdentityProvidersGroup)
  .add(UsersGroup)
  .add(SandnetGroup)
  .add(SandnetStorageGroup)
  .add(ReservedLedgerGroup)
  .annotate(OpenApi.Title, "JSON Ledger API HTTP endpoints (Sandnet)")
  .annotate(OpenApi.Version, "3.5")

/** Every ledger route implemented in this package, plus the ledger's 404 for unknown /v2 paths. */
export const LedgerRoutes = mergeRoutes(
  IdentityProviderRoutes,
  UserRoutes,
  UpdateRoutes,
  StateRoutes,
  CommandRoutes,
  CompletionRoutes,
  EventRoutes,
  PartyRoutes,
  PackageRoutes,
  VettingRoutes,
  DevRoutes,
  ReservedLedgerRoutes,
  surfaceNotFound(ledger)
)
