/**
 * What the scan and registry surfaces serve (exported as `ScanApi`): the engine-side reads over a
 * super validator's ScanStore and its participant's ACS, which return domain values, and their JSON
 * rendering in `json/` (Splice's splice-scan.yaml and the token standard's shapes). Nothing here
 * changes the ledger; the only state kept is memoised, deterministic indexes derived from the
 * scan's ingested updates (vote results, ACS snapshots), caught up on each read. The store itself
 * (ScanStore) is exported by the engine's index on its own.
 *
 * json/ depends on the reads, never the other way round: it belongs to the HTTP layer and moves
 * there in a next step.
 */
export * from "./acs-snapshots.ts"
export * from "./allocation.ts"
export * from "./contracts.ts"
export * from "./errors.ts"
export * from "./holdings.ts"
export * from "./registry.ts"
export * from "./templates.ts"
export * from "./traffic-status.ts"
export * from "./transfer-factory.ts"
export * from "./updates.ts"
export * from "./vote-results.ts"
export * from "./json/acs-snapshots.ts"
export * from "./json/contracts.ts"
export * from "./json/events.ts"
export * from "./json/registry.ts"
export * from "./json/transfer-factory.ts"
export * from "./json/updates.ts"
export * from "./json/values.ts"
export * from "./json/vote-results.ts"
