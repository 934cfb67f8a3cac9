/**
 * Interactive submission: prepare (interpret without submitting; the prepared transaction is
 * Canton's protobuf `PreparedTransaction`, see prepared-transaction.ts, and the hash its parties
 * sign is Canton's hashing scheme V2 over it), read a prepared transaction back, verify the
 * parties' signatures, and replay it before execution: its roots, as commands, must interpret
 * here to exactly the transaction that was signed.
 */
import { PreparedTransaction as ProtoPreparedTransaction } from "@canton-network/core-ledger-proto"
import { Either, Schema } from "effect"
import {
  InvalidArgument,
  canonicalJson,
  type ActiveContract,
  type ContractId,
  type InterpretationError,
  type Json,
  type Micros,
  type PartyId,
  type SynchronizerId
} from "@sandnet/core"
import { CommandRejected, ErrorCodes } from "../errors.ts"
import * as External from "../external/index.ts"
import { interpret, type Command, type InterpretedTransaction } from "../ledger/interpreter.ts"
import type { ParticipantLogic, ParticipantNode } from "../participant/index.ts"
import { checkCommands } from "./commands.ts"
import { decodeCreatedEventBlob } from "./created-event-blob.ts"
import { externalPartyKeys } from "./parties.ts"
import {
  commandsOfRoots,
  isTransactionUuid,
  preparedTransactionOf,
  transactionSeedOf,
  transactionUuidOf,
  type PreparedMetadata
} from "./prepared-transaction.ts"
import type { LedgerNetwork } from "./state.ts"

export interface PreparedTransaction {
  /** Canton's protobuf message. */
  readonly message: ProtoPreparedTransaction
  /** Standard base64 of its binary encoding (the JSON API's `preparedTransaction`). */
  readonly encoded: string
  readonly hash: External.PreparedTransactionHash
  readonly transaction: InterpretedTransaction
}

export interface PrepareInput {
  readonly commandId: string
  readonly actAs: ReadonlyArray<PartyId>
  readonly readAs: ReadonlyArray<PartyId>
  readonly commands: ReadonlyArray<Command>
  readonly disclosedContracts: ReadonlyArray<ActiveContract>
  readonly synchronizerId?: SynchronizerId | undefined
}

/** What a prepared transaction's interpretation may use: what the readers see here, then the disclosed contracts. */
const lookupOf = (logic: ParticipantLogic, readers: ReadonlySet<PartyId>, disclosedContracts: ReadonlyArray<ActiveContract>) => {
  const disclosed = new Map(disclosedContracts.map((c) => [c.created.contractId, c] as const))
  return (contractId: ContractId): ActiveContract | undefined => {
    const own = logic.visibleContract(contractId, readers)
    if (own !== undefined) return own
    const shared = disclosed.get(contractId)
    return shared !== undefined && logic.acs.inFlightOf(contractId) === undefined ? shared : undefined
  }
}

const synchronizerOf = (logic: ParticipantLogic, requested: SynchronizerId | undefined, transaction: InterpretedTransaction): Either.Either<string, CommandRejected> => {
  let synchronizerId = requested
  for (const [contractId, used] of transaction.inputs) {
    const at = logic.acs.get(contractId)?.synchronizerId ?? used.contract.synchronizerId
    if (at === "") continue
    if (synchronizerId === undefined) synchronizerId = at
    else if (synchronizerId !== at) {
      return Either.left(
        new CommandRejected({ code: "NO_SYNCHRONIZER_FOR_SUBMISSION", message: `inputs are on different synchronizers (${synchronizerId}, ${at})` })
      )
    }
  }
  return Either.right(synchronizerId ?? logic.config.defaultSynchronizer)
}

const encodeMessage = (message: ProtoPreparedTransaction): string => Buffer.from(ProtoPreparedTransaction.toBinary(message)).toString("base64")

/** The hash of a message this node built; one that cannot be hashed (e.g. a contract id value of odd length) is refused. */
const hashOf = (message: ProtoPreparedTransaction): Either.Either<External.PreparedTransactionHash, CommandRejected> =>
  Either.mapLeft(
    External.preparedTransactionHash(message),
    (reason) => new CommandRejected({ code: "INVALID_ARGUMENT", message: `the transaction cannot be hashed with hashing scheme V2: ${reason}` })
  )

/**
 * Interprets commands without submitting them (interactive submission's prepare): the same
 * contract lookup as a submission (the readers' visible contracts, then disclosed ones), the
 * ledger time `now`. Returns the prepared transaction and the hash the parties sign.
 */
export const prepareSubmission = (
  participant: ParticipantNode,
  input: PrepareInput,
  now: Micros
): Either.Either<PreparedTransaction, InterpretationError | CommandRejected> => {
  const logic = participant.logic
  if (input.actAs.length === 0) return Either.left(new CommandRejected({ code: "INVALID_ARGUMENT", message: "actAs must name at least one party" }))
  for (const party of input.actAs) {
    if (!logic.hosts(party)) {
      return Either.left(new CommandRejected({ code: "PARTY_NOT_KNOWN_ON_LEDGER", message: `party ${party} is not hosted on participant ${logic.uid}` }))
    }
  }
  const transactionUuid = transactionUuidOf(logic.uid, input.commandId, String(now), canonicalJson(input.commands as unknown as Json))
  const interpreted = interpret({
    registry: logic.registry,
    transactionSeed: transactionSeedOf(transactionUuid),
    ledgerTime: now,
    actAs: input.actAs,
    lookup: lookupOf(logic, new Set([...input.actAs, ...input.readAs]), input.disclosedContracts),
    commands: input.commands
  })
  if (Either.isLeft(interpreted)) return Either.left(interpreted.left)
  const transaction = interpreted.right
  const synchronizerId = synchronizerOf(logic, input.synchronizerId, transaction)
  if (Either.isLeft(synchronizerId)) return Either.left(synchronizerId.left)
  const metadata: PreparedMetadata = { actAs: input.actAs, commandId: input.commandId, synchronizerId: synchronizerId.right, transactionUuid, preparationTime: now }
  const message = preparedTransactionOf(logic.registry, transaction, metadata)
  return Either.map(hashOf(message), (hash) => ({ message, encoded: encodeMessage(message), hash, transaction }))
}

/** A prepared transaction read back: its message, its hash and what executing it needs. */
export interface DecodedPreparedTransaction {
  readonly message: ProtoPreparedTransaction
  readonly hash: External.PreparedTransactionHash
  readonly actAs: ReadonlyArray<PartyId>
  readonly commandId: string
  readonly synchronizerId: string
  readonly transactionUuid: string
  readonly transactionSeed: string
  /** The preparation time: the ledger time the transaction executes at. */
  readonly ledgerTime: Micros
  /** The input contracts none of the submitters is a stakeholder of, from their created-event blobs (disclosed contracts). */
  readonly disclosedContracts: ReadonlyArray<ActiveContract>
}

const parseMessage = (bytes: Uint8Array): Either.Either<ProtoPreparedTransaction, string> => {
  try {
    return Either.right(ProtoPreparedTransaction.fromBinary(bytes))
  } catch (thrown) {
    return Either.left(thrown instanceof Error ? thrown.message : String(thrown))
  }
}

/** Reads a prepared transaction back (execute): the protobuf message, the hash its content gives, its metadata. */
export const decodePreparedTransaction = (encoded: string, field: string): Either.Either<DecodedPreparedTransaction, InvalidArgument> =>
  Either.gen(function* () {
    const invalid = (message: string) => Either.left(new InvalidArgument({ field, message }))
    const bytes = External.base64ToBytes(encoded)
    if (bytes === undefined || bytes.length === 0) return yield* invalid("is not base64 of a prepared transaction")
    const message = parseMessage(bytes)
    if (Either.isLeft(message)) return yield* invalid(`is not a PreparedTransaction (protobuf): ${message.left}`)
    const hash = External.preparedTransactionHash(message.right)
    if (Either.isLeft(hash)) return yield* invalid(`cannot be hashed (hashing scheme V2): ${hash.left}`)
    const metadata = message.right.metadata!
    const submitter = metadata.submitterInfo!
    if (submitter.actAs.length === 0) return yield* invalid("metadata.submitterInfo.actAs is empty")
    if (!isTransactionUuid(metadata.transactionUuid)) return yield* invalid(`metadata.transactionUuid ${JSON.stringify(metadata.transactionUuid)} is not one this network prepared`)
    if (metadata.preparationTime < 0n || metadata.preparationTime > BigInt(Number.MAX_SAFE_INTEGER)) return yield* invalid("metadata.preparationTime is out of range")
    const disclosedContracts: Array<ActiveContract> = []
    for (const [i, input] of metadata.inputContracts.entries()) {
      const contract = decodeCreatedEventBlob(Buffer.from(input.eventBlob).toString("base64"))
      if (contract === undefined) return yield* invalid(`metadata.inputContracts[${i}].eventBlob is not a created event blob of this network`)
      // The submitters' own contracts come from this participant's ACS (an archived one is then
      // not found); only the others are disclosed, as in Canton.
      const stakeholders = [...contract.created.signatories, ...contract.created.observers]
      if (!submitter.actAs.some((party) => stakeholders.includes(party))) disclosedContracts.push(contract)
    }
    return {
      message: message.right,
      hash: hash.right,
      actAs: submitter.actAs,
      commandId: submitter.commandId,
      synchronizerId: metadata.synchronizerId,
      transactionUuid: metadata.transactionUuid,
      transactionSeed: transactionSeedOf(metadata.transactionUuid),
      ledgerTime: Number(metadata.preparationTime),
      disclosedContracts
    }
  })

/** What executing a replayed prepared transaction submits. */
export interface PreparedExecution {
  readonly commands: ReadonlyArray<Command>
  /** The nodes the execution must yield (the participant checks them again when it submits). */
  readonly nodes: Json
  readonly transaction: InterpretedTransaction
}

/**
 * Replays a prepared transaction on this participant: its roots as commands, interpreted with its
 * seed, ledger time and input contracts, must give back exactly the transaction that was signed
 * (the same V2 hash). A changed input (consumed, or different since preparation) or a message this
 * network did not prepare is refused as stale.
 */
export const replayPreparedTransaction = (
  participant: ParticipantNode,
  decoded: DecodedPreparedTransaction,
  field: string
): Either.Either<PreparedExecution, InvalidArgument | InterpretationError | CommandRejected> =>
  Either.gen(function* () {
    const logic = participant.logic
    const roots = yield* Either.mapLeft(commandsOfRoots(logic.registry, decoded.message.transaction!), (message) => new InvalidArgument({ field, message }))
    // The roots' arguments get the same checks as a submitted command's.
    const commands = yield* Either.mapLeft(checkCommands(logic.registry, roots, `${field}.transaction.roots`), (error) =>
      error._tag === "InvalidArgument" ? error : new InvalidArgument({ field, message: error.message })
    )
    const transaction = yield* interpret({
      registry: logic.registry,
      transactionSeed: decoded.transactionSeed,
      ledgerTime: decoded.ledgerTime,
      actAs: decoded.actAs,
      lookup: lookupOf(logic, new Set(decoded.actAs), decoded.disclosedContracts),
      commands
    })
    const metadata: PreparedMetadata = {
      actAs: decoded.actAs,
      commandId: decoded.commandId,
      synchronizerId: decoded.synchronizerId,
      transactionUuid: decoded.transactionUuid,
      preparationTime: decoded.ledgerTime
    }
    const replayed = yield* hashOf(preparedTransactionOf(logic.registry, transaction, metadata))
    if (replayed.hex !== decoded.hash.hex) {
      return yield* Either.left(
        new CommandRejected({
          code: ErrorCodes.preparedTransactionStale,
          message: `the prepared transaction (hash ${decoded.hash.hex}) does not interpret here to what was signed (hash ${replayed.hex}): its inputs changed since preparation, or it was not prepared by this network; prepare it again`
        })
      )
    }
    return { commands, nodes: transaction.nodes as unknown as Json, transaction }
  })

/** Why a prepared transaction cannot be executed here. */
export class NotAnExternalParty extends Schema.TaggedError<NotAnExternalParty>()("NotAnExternalParty", {
  party: Schema.String
}) {
  override get message(): string {
    return `party ${this.party} is not an external party of this node: only external parties sign prepared transactions`
  }
}

/**
 * Checks the parties' signatures over a prepared transaction's hash: every acting party must be an
 * external party of this network and reach its key threshold with valid signatures.
 */
export const verifyPreparedSignatures = (
  network: LedgerNetwork,
  actAs: ReadonlyArray<PartyId>,
  hash: External.PreparedTransactionHash,
  signatures: ReadonlyArray<{ readonly party: string; readonly signatures: ReadonlyArray<External.SignatureJson> }>,
  field: string
): Either.Either<
  ReadonlyArray<External.PreparedTransactionAuthorization>,
  NotAnExternalParty | External.PreparedTransactionNotAuthorized | External.UnsupportedSignatureFormat | External.MalformedSignature
> =>
  Either.gen(function* () {
    const out: Array<External.PreparedTransactionAuthorization> = []
    for (const party of actAs) {
      const keys = externalPartyKeys(network, party)
      if (keys === undefined) return yield* Either.left(new NotAnExternalParty({ party }))
      const index = signatures.findIndex((s) => s.party === party)
      out.push(
        yield* External.verifyPreparedTransactionSignatures({
          partyId: party,
          hash,
          signatures: index < 0 ? [] : signatures[index]!.signatures,
          keys,
          location: `${field}[${Math.max(index, 0)}].signatures`
        })
      )
    }
    return out
  })
