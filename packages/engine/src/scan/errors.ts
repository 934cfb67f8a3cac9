/**
 * The tagged errors of scan and registry reads (each with the error code the HTTP layer reports);
 * ScanReadError is their union.
 */
import { Schema } from "effect"

/** No update with this id was ingested by the scan. */
export class UpdateNotFound extends Schema.TaggedError<UpdateNotFound>()("UpdateNotFound", {
  updateId: Schema.String
}) {
  get code(): string {
    return "UPDATE_NOT_FOUND"
  }
  override get message() {
    return `update ${this.updateId} not found`
  }
}

/** The DSO has no active contract of a template the request needs (rules, open round). */
export class DsoContractNotFound extends Schema.TaggedError<DsoContractNotFound>()("DsoContractNotFound", {
  template: Schema.String
}) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `no active ${this.template} contract of the DSO`
  }
}

export class TransferPreapprovalNotFound extends Schema.TaggedError<TransferPreapprovalNotFound>()(
  "TransferPreapprovalNotFound",
  { party: Schema.String }
) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `no TransferPreapproval for receiver ${this.party}`
  }
}

export class VoteRequestNotFound extends Schema.TaggedError<VoteRequestNotFound>()("VoteRequestNotFound", {
  contractId: Schema.String
}) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `VoteRequest ${this.contractId} not found`
  }
}

export class TransferInstructionNotFound extends Schema.TaggedError<TransferInstructionNotFound>()(
  "TransferInstructionNotFound",
  { contractId: Schema.String }
) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `transfer instruction ${this.contractId} not found`
  }
}

export class AllocationNotFound extends Schema.TaggedError<AllocationNotFound>()("AllocationNotFound", { contractId: Schema.String }) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `allocation ${this.contractId} not found`
  }
}

/** Accepting needs the locked holding; it is gone once the lock expired and was released. */
export class LockedHoldingNotFound extends Schema.TaggedError<LockedHoldingNotFound>()("LockedHoldingNotFound", {
  contractId: Schema.String,
  instructionId: Schema.String,
  expiresAt: Schema.String
}) {
  get code(): string {
    return "CONTRACT_NOT_FOUND"
  }
  override get message() {
    return `locked holding ${this.contractId} of transfer instruction ${this.instructionId} not found (the lock expires at ${this.expiresAt})`
  }
}

export class AcsSnapshotNotFound extends Schema.TaggedError<AcsSnapshotNotFound>()("AcsSnapshotNotFound", {
  atOrBefore: Schema.String
}) {
  get code(): string {
    return "ACS_SNAPSHOT_NOT_FOUND"
  }
  override get message() {
    return `no ACS snapshot at or before ${this.atOrBefore}`
  }
}

/** A holdings summary asked for the snapshot taken at an exact record time, and none was taken then. */
export class AcsSnapshotNotTakenAt extends Schema.TaggedError<AcsSnapshotNotTakenAt>()("AcsSnapshotNotTakenAt", {
  recordTime: Schema.String
}) {
  get code(): string {
    return "ACS_SNAPSHOT_NOT_FOUND"
  }
  override get message() {
    return `no ACS snapshot was taken at ${this.recordTime} (ask with record_time_match "at_or_before" for the latest one before it)`
  }
}

export class BulkObjectNotFound extends Schema.TaggedError<BulkObjectNotFound>()("BulkObjectNotFound", {
  name: Schema.String
}) {
  get code(): string {
    return "BULK_OBJECT_NOT_FOUND"
  }
  override get message() {
    return `bulk storage object ${this.name} not found`
  }
}

export class InstrumentNotFound extends Schema.TaggedError<InstrumentNotFound>()("InstrumentNotFound", {
  instrumentId: Schema.String
}) {
  get code(): string {
    return "INSTRUMENT_NOT_FOUND"
  }
  override get message() {
    return `instrument ${this.instrumentId} not found`
  }
}

/** A member's traffic on a synchronizer: the synchronizer or the member is not known. */
export class MemberTrafficNotFound extends Schema.TaggedError<MemberTrafficNotFound>()("MemberTrafficNotFound", {
  detail: Schema.String
}) {
  get code(): string {
    return "MEMBER_TRAFFIC_NOT_FOUND"
  }
  override get message() {
    return this.detail
  }
}

/** Everything a scan or registry read fails with that is not a core error. */
export type ScanReadError =
  | UpdateNotFound
  | DsoContractNotFound
  | TransferPreapprovalNotFound
  | VoteRequestNotFound
  | TransferInstructionNotFound
  | AllocationNotFound
  | LockedHoldingNotFound
  | AcsSnapshotNotFound
  | AcsSnapshotNotTakenAt
  | BulkObjectNotFound
  | InstrumentNotFound
  | MemberTrafficNotFound
