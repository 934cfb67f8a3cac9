/**
 * Errors of the wallet service. Each names one situation; the comment gives the HTTP status the
 * wallet surface answers with (`{error}` body). Invalid input is core's InvalidArgument (400).
 */
import { Schema } from "effect"
import type { InvalidArgument } from "@sandnet/core"

/** The user has no wallet on this validator (not onboarded): 404. */
export class WalletNotFound extends Schema.TaggedError<WalletNotFound>()("WalletNotFound", { user: Schema.String }) {
  override get message() {
    return `user ${this.user} has no wallet on this validator`
  }
}

/** Onboarding a user name that is already tied to another party: 409. */
export class UserAlreadyExists extends Schema.TaggedError<UserAlreadyExists>()("UserAlreadyExists", {
  user: Schema.String,
  party: Schema.String
}) {
  override get message() {
    return `user ${this.user} is already onboarded with party ${this.party}`
  }
}

/** A party named at onboarding is not hosted on this validator: 400. */
export class PartyNotHostedHere extends Schema.TaggedError<PartyNotHostedHere>()("PartyNotHostedHere", { party: Schema.String }) {
  override get message() {
    return `party ${this.party} is not hosted on this validator`
  }
}

/** A submission with this tracking id is being processed: 429, retry with back-off. */
export class TrackingIdInProgress extends Schema.TaggedError<TrackingIdInProgress>()("TrackingIdInProgress", { trackingId: Schema.String }) {
  override get message() {
    return `a request with tracking id ${this.trackingId} is being processed; retry with exponential back-off`
  }
}

/** A submission with this tracking id already created its contract: 409, check the status. */
export class TrackingIdAlreadyUsed extends Schema.TaggedError<TrackingIdAlreadyUsed>()("TrackingIdAlreadyUsed", {
  trackingId: Schema.String,
  contractId: Schema.String
}) {
  override get message() {
    return `tracking id ${this.trackingId} was already used to create ${this.contractId}; check the status endpoint`
  }
}

/** No request with this tracking id is known: 404. */
export class TrackingIdNotFound extends Schema.TaggedError<TrackingIdNotFound>()("TrackingIdNotFound", { trackingId: Schema.String }) {
  override get message() {
    return `no request with tracking id ${this.trackingId} is known`
  }
}

/** The sender's spendable coin does not cover the amount: 400. */
export class InsufficientFunds extends Schema.TaggedError<InsufficientFunds>()("InsufficientFunds", {
  party: Schema.String,
  required: Schema.String,
  available: Schema.String
}) {
  override get message() {
    return `insufficient funds: ${this.party} needs ${this.required}, has ${this.available} spendable (in at most 100 holdings)`
  }
}

/** No open transfer offer (or accepted offer) with this id concerns the user: 404. */
export class OfferNotFound extends Schema.TaggedError<OfferNotFound>()("OfferNotFound", { contractId: Schema.String }) {
  override get message() {
    return `transfer offer ${this.contractId} not found`
  }
}

/** The offer is past its expiry (ledger time): 409; it can no longer be accepted. */
export class OfferExpired extends Schema.TaggedError<OfferExpired>()("OfferExpired", { contractId: Schema.String, expiresAt: Schema.String }) {
  override get message() {
    return `transfer offer ${this.contractId} expired at ${this.expiresAt}`
  }
}

/**
 * The lifecycle of the offer, transfer instruction or delegation does not allow the step the user
 * asks for now (its machine refused it; an expired offer is OfferExpired instead): 409.
 */
export class LifecycleStepRefused extends Schema.TaggedError<LifecycleStepRefused>()("LifecycleStepRefused", {
  lifecycle: Schema.String,
  contractId: Schema.String,
  state: Schema.String,
  step: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.lifecycle} ${this.contractId} cannot ${this.step} in state ${this.state}: ${this.reason}`
  }
}

/** No open token-standard transfer (transfer instruction) with this id concerns the user: 404. */
export class TokenTransferNotFound extends Schema.TaggedError<TokenTransferNotFound>()("TokenTransferNotFound", { contractId: Schema.String }) {
  override get message() {
    return `token-standard transfer ${this.contractId} not found`
  }
}

/** The receiver has no TransferPreapproval: 404 (send) — use a transfer offer instead. */
export class PreapprovalNotFound extends Schema.TaggedError<PreapprovalNotFound>()("PreapprovalNotFound", { receiver: Schema.String }) {
  override get message() {
    return `receiver ${this.receiver} has no transfer preapproval`
  }
}

/** The user already has a TransferPreapproval: 409 (the body carries its id). */
export class PreapprovalAlreadyExists extends Schema.TaggedError<PreapprovalAlreadyExists>()("PreapprovalAlreadyExists", { contractId: Schema.String }) {
  override get message() {
    return `a transfer preapproval already exists: ${this.contractId}`
  }
}

/** No minting-delegation proposal or delegation with this id concerns the user: 404. */
export class DelegationNotFound extends Schema.TaggedError<DelegationNotFound>()("DelegationNotFound", { contractId: Schema.String }) {
  override get message() {
    return `minting delegation (proposal) ${this.contractId} not found`
  }
}

/** Only a development network allows this (tap, self-featuring): 400. */
export class DevNetOnly extends Schema.TaggedError<DevNetOnly>()("DevNetOnly", { operation: Schema.String }) {
  override get message() {
    return `${this.operation} is only possible on a development network`
  }
}

/** The party is not an external party hosted on this validator (wallet admin API): 404. */
export class ExternalPartyNotFound extends Schema.TaggedError<ExternalPartyNotFound>()("ExternalPartyNotFound", { party: Schema.String }) {
  override get message() {
    return `no wallet for external party ${this.party}: it is not an external party hosted on this validator`
  }
}

/** An ExternalPartySetupProposal for this party exists already: 409. */
export class SetupProposalAlreadyExists extends Schema.TaggedError<SetupProposalAlreadyExists>()("SetupProposalAlreadyExists", { contractId: Schema.String }) {
  override get message() {
    return `ExternalPartySetupProposal contract already exists: ${this.contractId}`
  }
}

/** No ExternalPartySetupProposal for this party: 404. */
export class SetupProposalNotFound extends Schema.TaggedError<SetupProposalNotFound>()("SetupProposalNotFound", { party: Schema.String }) {
  override get message() {
    return `no ExternalPartySetupProposal contract found for ${this.party}`
  }
}

/** An externally signed submission whose signature does not authorize it (bad signature, unknown key): 400. */
export class InvalidExternalSignature extends Schema.TaggedError<InvalidExternalSignature>()("InvalidExternalSignature", {
  party: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the signature does not authorize the transaction for ${this.party}: ${this.reason}`
  }
}

/** The network's DSO contracts are not available yet (no open round): 503. */
export class DsoNotReady extends Schema.TaggedError<DsoNotReady>()("DsoNotReady", { reason: Schema.String }) {}

/**
 * The ledger rejected the wallet's command (interpretation, contention, timeout): 500, or the
 * Canton code's own mapping. `code` is the ledger error code, `reason` its explanation.
 */
export class WalletCommandFailed extends Schema.TaggedError<WalletCommandFailed>()("WalletCommandFailed", {
  commandId: Schema.String,
  code: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `command ${this.commandId} failed: ${this.code}: ${this.reason}`
  }
}

export type WalletError =
  | InvalidArgument
  | WalletNotFound
  | UserAlreadyExists
  | PartyNotHostedHere
  | TrackingIdInProgress
  | TrackingIdAlreadyUsed
  | TrackingIdNotFound
  | InsufficientFunds
  | OfferNotFound
  | OfferExpired
  | LifecycleStepRefused
  | TokenTransferNotFound
  | PreapprovalNotFound
  | PreapprovalAlreadyExists
  | DelegationNotFound
  | DevNetOnly
  | DsoNotReady
  | WalletCommandFailed
  | ExternalPartyNotFound
  | SetupProposalAlreadyExists
  | SetupProposalNotFound
  | InvalidExternalSignature

/** The HTTP status each wallet error maps to. */
export const walletErrorStatus = (error: WalletError): number => {
  switch (error._tag) {
    case "InvalidArgument":
    case "PartyNotHostedHere":
    case "InsufficientFunds":
    case "DevNetOnly":
    case "InvalidExternalSignature":
      return 400
    case "WalletNotFound":
    case "TrackingIdNotFound":
    case "OfferNotFound":
    case "TokenTransferNotFound":
    case "PreapprovalNotFound":
    case "DelegationNotFound":
    case "ExternalPartyNotFound":
    case "SetupProposalNotFound":
      return 404
    case "UserAlreadyExists":
    case "TrackingIdAlreadyUsed":
    case "OfferExpired":
    case "LifecycleStepRefused":
    case "PreapprovalAlreadyExists":
    case "SetupProposalAlreadyExists":
      return 409
    case "TrackingIdInProgress":
      return 429
    case "DsoNotReady":
      return 503
    case "WalletCommandFailed":
      return 500
  }
}
