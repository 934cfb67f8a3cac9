/**
 * External parties: Ed25519 keys and fingerprints, the onboarding topology transactions
 * (generate-topology / allocate, and the wallet-admin variant), and prepared-transaction hashing
 * and signature checks. Pure library code: no HTTP, no actors. See docs/external-parties.md.
 */
export * from "./allocate.ts"
export * from "./daml-value.ts"
export * from "./encoding.ts"
export * from "./errors.ts"
export * from "./hash.ts"
export * from "./hashing-v2.ts"
export * from "./keys.ts"
export * from "./prepared.ts"
export * from "./proto.ts"
export * from "./signatures.ts"
export * from "./topology.ts"
export * from "./wallet.ts"
export * from "./journaled-keys.ts"
