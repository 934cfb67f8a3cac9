/** What the wallet's automations did, counted (tests and simulation reports read it). */
export interface WalletAutomationStats {
  offersAutoAccepted: number
  acceptedOffersCompleted: number
  acceptedOffersAborted: number
  offersExpired: number
  instructionsExpired: number
  buyTrafficRequestsCompleted: number
  buyTrafficRequestsRejected: number
  buyTrafficRequestsExpired: number
  preapprovalsRenewed: number
  preapprovalProposalsAccepted: number
  /** Attempts to accept a preapproval proposal left for later: the operator lacked the coin for the fee. */
  preapprovalProposalsUnpaid: number
  mergeDelegationsAccepted: number
  rewardCollections: number
  appCouponsCollected: number
  validatorCouponsCollected: number
  livenessRecordsCollected: number
  /** Coin minted from collected rewards, in Numeric-10 units. */
  rewardsMinted: bigint
  livenessRecorded: number
  mergeTransactions: number
  holdingsMerged: number
  trafficPurchases: number
  trafficBytesBought: number
  /** Coin burned for traffic (top-ups and users' requests), in Numeric-10 units. */
  trafficCoinBurned: bigint
  taps: number
  sweeps: number
  commandsFailed: number
}

export const emptyStats = (): WalletAutomationStats => ({
  offersAutoAccepted: 0,
  acceptedOffersCompleted: 0,
  acceptedOffersAborted: 0,
  offersExpired: 0,
  instructionsExpired: 0,
  buyTrafficRequestsCompleted: 0,
  buyTrafficRequestsRejected: 0,
  buyTrafficRequestsExpired: 0,
  preapprovalsRenewed: 0,
  preapprovalProposalsAccepted: 0,
  preapprovalProposalsUnpaid: 0,
  mergeDelegationsAccepted: 0,
  rewardCollections: 0,
  appCouponsCollected: 0,
  validatorCouponsCollected: 0,
  livenessRecordsCollected: 0,
  rewardsMinted: 0n,
  livenessRecorded: 0,
  mergeTransactions: 0,
  holdingsMerged: 0,
  trafficPurchases: 0,
  trafficBytesBought: 0,
  trafficCoinBurned: 0n,
  taps: 0,
  sweeps: 0,
  commandsFailed: 0
})
