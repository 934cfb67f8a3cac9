/**
 * Domain errors shared by every package. Each is a Schema.TaggedError with a precise name; the HTTP
 * layer maps them onto each surface's error shape (`{error}` bodies, the ledger's standard error).
 */
import { Schema } from "effect"

/** Input that does not satisfy a rule of the interface (maps to 400). */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  field: Schema.String,
  message: Schema.String
}) {}

export class ContractNotFound extends Schema.TaggedError<ContractNotFound>()("ContractNotFound", {
  contractId: Schema.String
}) {
  override get message() {
    return `contract ${this.contractId} not found`
  }
}

/** The contract exists (or existed) but cannot be used: archived, or in flight between synchronizers. */
export class ContractNotActive extends Schema.TaggedError<ContractNotActive>()("ContractNotActive", {
  contractId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `contract ${this.contractId} is not active: ${this.reason}`
  }
}

export class TemplateNotFound extends Schema.TaggedError<TemplateNotFound>()("TemplateNotFound", {
  templateId: Schema.String
}) {}

export class ChoiceNotFound extends Schema.TaggedError<ChoiceNotFound>()("ChoiceNotFound", {
  templateId: Schema.String,
  choice: Schema.String
}) {}

/** A choice was exercised through an interface the contract's template does not implement. */
export class ContractDoesNotImplementInterface extends Schema.TaggedError<ContractDoesNotImplementInterface>()("ContractDoesNotImplementInterface", {
  contractId: Schema.String,
  templateId: Schema.String,
  interfaceId: Schema.String
}) {
  override get message() {
    return `contract ${this.contractId} (${this.templateId}) does not implement interface ${this.interfaceId}`
  }
}

/** Required authorizers (signatories of a create, controllers of a choice) are missing. */
export class AuthorizationFailed extends Schema.TaggedError<AuthorizationFailed>()("AuthorizationFailed", {
  message: Schema.String,
  missing: Schema.Array(Schema.String)
}) {}

/** A precondition inside a choice body does not hold (Daml's `require` / `assertMsg`). */
export class ChoiceFailed extends Schema.TaggedError<ChoiceFailed>()("ChoiceFailed", {
  templateId: Schema.String,
  choice: Schema.String,
  message: Schema.String
}) {}

export class PartyNotFound extends Schema.TaggedError<PartyNotFound>()("PartyNotFound", {
  party: Schema.String
}) {}

/** The mediator rejected the transaction (conflict, timeout, inactive input, ...). */
export class TransactionRejected extends Schema.TaggedError<TransactionRejected>()("TransactionRejected", {
  updateId: Schema.String,
  reason: Schema.String
}) {}

export type InterpretationError =
  | ContractNotFound
  | ContractNotActive
  | TemplateNotFound
  | ChoiceNotFound
  | ContractDoesNotImplementInterface
  | AuthorizationFailed
  | ChoiceFailed
