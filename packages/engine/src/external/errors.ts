/**
 * Errors of the external-party flows. Each is a Schema.TaggedError with a precise name, a `code`
 * (the Canton ledger error code id the HTTP layer puts into the standard error body) and a
 * `field` naming the request field at fault (for the ledger's 400 text/plain answers).
 *
 * Validation errors of `generateExternalPartyTopology` are core's `InvalidArgument` (field +
 * message, code INVALID_ARGUMENT).
 */
import { Schema } from "effect"

/** Canton's `RequestValidationErrors.InvalidArgument`. */
export const INVALID_ARGUMENT = "INVALID_ARGUMENT" as const
/** Canton's `TopologyManagerError.InvalidSignatureError`. */
export const TOPOLOGY_INVALID_TX_SIGNATURE = "TOPOLOGY_INVALID_TX_SIGNATURE" as const
/** Canton's `TopologyManagerError.UnauthorizedTransaction`. */
export const TOPOLOGY_UNAUTHORIZED_TRANSACTION = "TOPOLOGY_UNAUTHORIZED_TRANSACTION" as const

/** The bytes of an onboarding transaction are not base64, not an UntypedVersionedMessage, or not a v30 TopologyTransaction. */
export class TopologyTransactionUndecodable extends Schema.TaggedError<TopologyTransactionUndecodable>()(
  "TopologyTransactionUndecodable",
  { transactionIndex: Schema.Number, reason: Schema.String }
) {
  get code(): typeof INVALID_ARGUMENT {
    return INVALID_ARGUMENT
  }
  get field(): string {
    return `onboardingTransactions[${this.transactionIndex}].transaction`
  }
  override get message(): string {
    return `${this.field}: cannot decode the topology transaction: ${this.reason}`
  }
}

/** One onboarding transaction decodes but breaks a rule (operation, serial, threshold, key, unsupported mapping). */
export class TopologyTransactionInvalid extends Schema.TaggedError<TopologyTransactionInvalid>()(
  "TopologyTransactionInvalid",
  { transactionIndex: Schema.Number, reason: Schema.String }
) {
  get code(): typeof INVALID_ARGUMENT {
    return INVALID_ARGUMENT
  }
  get field(): string {
    return `onboardingTransactions[${this.transactionIndex}].transaction`
  }
  override get message(): string {
    return `${this.field}: ${this.reason}`
  }
}

/** The onboarding transactions do not describe one party consistently (different parties, namespace not the key's, missing mapping, ...). */
export class OnboardingTransactionsInconsistent extends Schema.TaggedError<OnboardingTransactionsInconsistent>()(
  "OnboardingTransactionsInconsistent",
  { reason: Schema.String }
) {
  get code(): typeof INVALID_ARGUMENT {
    return INVALID_ARGUMENT
  }
  get field(): string {
    return "onboardingTransactions"
  }
  override get message(): string {
    return `onboardingTransactions: ${this.reason}`
  }
}

/** A signature's `format` or `signingAlgorithmSpec` is unknown or not usable with Ed25519. */
export class UnsupportedSignatureFormat extends Schema.TaggedError<UnsupportedSignatureFormat>()(
  "UnsupportedSignatureFormat",
  { location: Schema.String, attribute: Schema.String, value: Schema.String, reason: Schema.String }
) {
  get code(): typeof INVALID_ARGUMENT {
    return INVALID_ARGUMENT
  }
  get field(): string {
    return `${this.location}.${this.attribute}`
  }
  override get message(): string {
    return `${this.field}: ${this.reason}`
  }
}

/** A signature's bytes are not base64/hex, not 64 bytes, or its `signedBy` is not a fingerprint. */
export class MalformedSignature extends Schema.TaggedError<MalformedSignature>()("MalformedSignature", {
  location: Schema.String,
  attribute: Schema.String,
  reason: Schema.String
}) {
  get code(): typeof INVALID_ARGUMENT {
    return INVALID_ARGUMENT
  }
  get field(): string {
    return `${this.location}.${this.attribute}`
  }
  override get message(): string {
    return `${this.field}: ${this.reason}`
  }
}

/** `signedBy` names a key that none of the onboarding transactions registers for the party ("wrong key"). */
export class UnknownSigningKey extends Schema.TaggedError<UnknownSigningKey>()("UnknownSigningKey", {
  location: Schema.String,
  signedBy: Schema.String,
  knownKeys: Schema.Array(Schema.String)
}) {
  get code(): typeof TOPOLOGY_INVALID_TX_SIGNATURE {
    return TOPOLOGY_INVALID_TX_SIGNATURE
  }
  get field(): string {
    return `${this.location}.signedBy`
  }
  override get message(): string {
    return `${this.field}: key ${this.signedBy} is not a key of the party (known keys: ${this.knownKeys.join(", ")})`
  }
}

/**
 * The Ed25519 signature does not verify against the hash it claims to cover, with the key named by
 * `signedBy`: the signature is wrong, was made by another key, or the transaction bytes changed
 * after signing (a tampered transaction has a different hash).
 */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {
  location: Schema.String,
  signedBy: Schema.String,
  /** Multihash hex of what the signature should cover. */
  hash: Schema.String
}) {
  get code(): typeof TOPOLOGY_INVALID_TX_SIGNATURE {
    return TOPOLOGY_INVALID_TX_SIGNATURE
  }
  get field(): string {
    return `${this.location}.signature`
  }
  override get message(): string {
    return `${this.field}: signature by ${this.signedBy} does not verify against hash ${this.hash} (wrong signature, wrong key, or the transaction changed after signing)`
  }
}

/** A transaction lacks a signature by a key whose authorization it needs (per transaction or over the multiHash). */
export class MissingSignature extends Schema.TaggedError<MissingSignature>()("MissingSignature", {
  transactionIndex: Schema.Number,
  mapping: Schema.String,
  missingKeys: Schema.Array(Schema.String)
}) {
  get code(): typeof TOPOLOGY_UNAUTHORIZED_TRANSACTION {
    return TOPOLOGY_UNAUTHORIZED_TRANSACTION
  }
  get field(): string {
    return `onboardingTransactions[${this.transactionIndex}].signatures`
  }
  override get message(): string {
    return `${this.field}: the ${this.mapping} needs signatures by ${this.missingKeys.join(", ")} (on the transaction hash or on the multiHash)`
  }
}

/** The party is not hosted on the participant that processes the allocation, or with a permission it cannot have there. */
export class LocalParticipantNotHosting extends Schema.TaggedError<LocalParticipantNotHosting>()(
  "LocalParticipantNotHosting",
  { participantUid: Schema.String, reason: Schema.String }
) {
  get code(): typeof INVALID_ARGUMENT {
    return INVALID_ARGUMENT
  }
  get field(): string {
    return "onboardingTransactions"
  }
  override get message(): string {
    return `onboardingTransactions: ${this.reason}`
  }
}

/** Not enough valid signatures from a party's registered keys over a prepared transaction's hash. */
export class PreparedTransactionNotAuthorized extends Schema.TaggedError<PreparedTransactionNotAuthorized>()(
  "PreparedTransactionNotAuthorized",
  {
    partyId: Schema.String,
    threshold: Schema.Number,
    validSignatures: Schema.Number,
    /** Hex of the 32-byte hash that had to be signed. */
    hash: Schema.String,
    problems: Schema.Array(Schema.String)
  }
) {
  get code(): typeof INVALID_ARGUMENT {
    return INVALID_ARGUMENT
  }
  get field(): string {
    return "partySignatures"
  }
  override get message(): string {
    const problems = this.problems.length === 0 ? "" : ` (${this.problems.join("; ")})`
    return `${this.partyId}: ${this.validSignatures} valid signature(s) from distinct keys, ${this.threshold} needed over hash ${this.hash}${problems}`
  }
}

export type SignatureError = UnsupportedSignatureFormat | MalformedSignature | UnknownSigningKey | InvalidSignature

export type AllocationError =
  | TopologyTransactionUndecodable
  | TopologyTransactionInvalid
  | OnboardingTransactionsInconsistent
  | SignatureError
  | MissingSignature
  | LocalParticipantNotHosting
