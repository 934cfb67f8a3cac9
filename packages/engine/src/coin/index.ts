import {
  AllocationApiPackage,
  AllocationInstructionApiPackage,
  CoinPackage,
  DsoGovernancePackage, FeaturedAppProxiesPackage, HoldingApiPackage, NameServicePackage, TokenStandardWalletPackage, TransferInstructionApiPackage, WalletPackage } from "./packages.ts"
import "./coin.ts"
import "./rules.ts"
import "./rewards.ts"
import "./rounds.ts"
import "./traffic.ts"
import "./preapproval.ts"
import "./preapproval-proposal.ts"
import "./offers.ts"
import "./instruction.ts"
import "./allocation.ts"
import "./delegations.ts"
import "./token-wallet-merge.ts"
import "./featured-app-proxy.ts"
import "./activity-markers.ts"
import "./governance.ts"

export * from "./packages.ts"
export * from "./schemas.ts"
export * from "./coin.ts"
export * from "./rules.ts"
export * from "./rewards.ts"
export * from "./activity-markers.ts"
export * from "./rounds.ts"
export * from "./traffic.ts"
export * from "./preapproval.ts"
export * from "./preapproval-proposal.ts"
export * from "./offers.ts"
export * from "./instruction.ts"
export * from "./allocation-api.ts"
export * from "./allocation.ts"
export * from "./delegations.ts"
export * from "./token-wallet-merge.ts"
export * from "./featured-app-proxy.ts"
export * from "./governance.ts"
export * from "./genesis.ts"

/** Every package of the coin model (templates register when their modules load, above). */
export const ALL_PACKAGES = [CoinPackage, WalletPackage, DsoGovernancePackage, NameServicePackage, HoldingApiPackage,
  TransferInstructionApiPackage,
  AllocationApiPackage,
  AllocationInstructionApiPackage,
  TokenStandardWalletPackage,
  FeaturedAppProxiesPackage
]
