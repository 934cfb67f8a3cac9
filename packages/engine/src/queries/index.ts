/**
 * The ledger API's queries over a participant (exported as `LedgerApi`): what `/v2/updates`, the
 * single-update lookups, the active contract set and the command endpoints of the JSON ledger API
 * need, as pure functions of a participant (its update log, ACS, hosted parties, packages,
 * vetting and external parties' keys). Those the HTTP layer calls take the participant's handle
 * (ParticipantNode), never its logic, and decide the domain rules (offset checks, paging,
 * visibility) here. Rendering to JSON is the HTTP layer's job.
 */
export * from "./active-contracts.ts"
export * from "./commands.ts"
export * from "./completions.ts"
export * from "./contract-events.ts"
export * from "./created-event-blob.ts"
export * from "./errors.ts"
export * from "./event-format.ts"
export * from "./interactive-submission.ts"
export * from "./packages.ts"
export * from "./parties.ts"
export * from "./prepared-transaction.ts"
export * from "./state.ts"
export * from "./updates.ts"
export * from "./vetting.ts"
export * from "./views.ts"
