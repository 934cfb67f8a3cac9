/**
 * The packages of Sandnet's coin model. Names follow the real network's packages with the product
 * name replaced by "coin" (as the spec does: CoinRules, CoinConfig). Package ids are derived from
 * each package's description, so they are stable across runs and machines.
 */
import { PackageDef } from "../ledger/template.ts"

export const CoinPackage = new PackageDef("splice-coin", "0.1.14")
export const WalletPackage = new PackageDef("splice-wallet", "0.1.14")
export const DsoGovernancePackage = new PackageDef("splice-dso-governance", "0.1.20")
export const NameServicePackage = new PackageDef("splice-coin-name-service", "0.1.14")
export const HoldingApiPackage = new PackageDef("splice-api-token-holding-v1", "1.0.0")
export const TransferInstructionApiPackage = new PackageDef("splice-api-token-transfer-instruction-v1", "1.0.0")
export const AllocationApiPackage = new PackageDef("splice-api-token-allocation-v1", "1.0.0")
export const AllocationInstructionApiPackage = new PackageDef("splice-api-token-allocation-instruction-v1", "1.0.0")
/** Splice's token-standard wallet utilities (LocalNet ships its DAR; the Wallet SDK's delegatedMerge uses it). */
export const TokenStandardWalletPackage = new PackageDef("splice-util-token-standard-wallet", "1.0.0")
/** Splice's featured-app proxies (LocalNet ships its DAR; the Wallet SDK's token.transfer.delegatedProxy uses it). */
export const FeaturedAppProxiesPackage = new PackageDef("splice-util-featured-app-proxies", "1.1.0")
