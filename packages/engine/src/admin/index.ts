/**
 * Ledger user management and identity provider configurations (the state behind /v2/users and
 * /v2/idps and behind token authentication). Exported from @sandnet/engine as `Admin`.
 */
export * from "./decide.ts"
export * from "./errors.ts"
export * from "./events.ts"
export * from "./model.ts"
export * from "./parties.ts"
export * from "./service.ts"
export * from "./state.ts"
