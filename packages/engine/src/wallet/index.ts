/** The wallet of a validator node: users, balances, transfers of every kind, its journal, its automations and its Effect service. */
export * as WalletTypes from "./api.ts"
export * from "./automation.ts"
export * from "./config.ts"
export * from "./errors.ts"
export * as ExternalPartyWallet from "./external-party.ts"
export * from "./journal.ts"
export * from "./service.ts"
export * from "./wallet.ts"
