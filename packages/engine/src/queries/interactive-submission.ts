/**
 * Interactive submission: prepare (interpret without submitting, the prepared transaction and the
 * hash its parties sign), read a prepared transaction back, and verify the parties' signatures
 * before execution.
 */
import { Either, Schema } from "effect"
import {
  InvalidArgument,
  canonicalJson,
  sha256OfParts,
  toIso,
  type ActiveContract,
  type ContractId,
  type InterpretationError,
  type Json,
  type JsonObject,
  type Micros,
  type PartyId,
  type SynchronizerId,
  type TxNode
} from "@sandnet/core"
import { CommandRejected } from "../errors.ts"
import * as External from "../external/index.ts"
import { interpret, type Command, type InterpretedTransaction } from "../ledger/interpreter.ts"
import type { ParticipantLogic } from "../participant/index.ts"
import { formatIssues } from "./commands.ts"
import { createdEventBlob } from "./created-event-blob.ts"
import { externalPartyKeys, participantIdOf } from "./parties.ts"
import type { LedgerNetwork } from "./state.ts"

export const PREPARED_TRANSACTION_FORMAT = "sandnet-prepared-transaction-v1" as const

const CommandSchema = Schema.Union(
  Schema.TaggedStruct("CreateCommand", { templateId: Schema.String, createArguments: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
  Schema.TaggedStruct("ExerciseCommand", {
    templateId: Schema.String,
    contractId: Schema.String,
    choice: Schema.String,
    choiceArgument: Schema.Unknown
  }),
  Schema.TaggedStruct("CreateAndExerciseCommand", {
    templateId: Schema.String,
    createArguments: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
    choice: Schema.String,
    choiceArgument: Schema.Unknown
  })
)

/** What a prepared transaction carries (and what its hash covers). */
export const PreparedSubmission = Schema.Struct({
  format: Schema.Literal(PREPARED_TRANSACTION_FORMAT),
  participantId: Schema.String,
  synchronizerId: Schema.String,
  commandId: Schema.String,
  actAs: Schema.Array(Schema.String),
  readAs: Schema.Array(Schema.String),
  ledgerTime: Schema.String,
  commands: Schema.Array(CommandSchema),
  disclosedContracts: Schema.Array(Schema.String),
  /** Seeds the transaction's contract ids: execution reuses it, so it creates exactly these contracts. */
  transactionSeed: Schema.String,
  /** The transaction as interpreted at preparation (nodes in the ledger model's shape). */
  transaction: Schema.Struct({ rootNodeIds: Schema.Array(Schema.Number), nodes: Schema.Array(Schema.Unknown) })
})
export type PreparedSubmission = typeof PreparedSubmission.Type

export interface PreparedTransaction {
  readonly submission: PreparedSubmission
  /** Standard base64 of the canonical JSON (the JSON API's `preparedTransaction`). */
  readonly encoded: string
  readonly hash: External.PreparedTransactionHash
  readonly transaction: InterpretedTransaction
}

const commandJson = (command: Command): Json => {
  switch (command._tag) {
    case "CreateCommand":
      return { _tag: command._tag, templateId: command.templateId, createArguments: command.createArguments }
    case "ExerciseCommand":
      return { _tag: command._tag, templateId: command.templateId, contractId: command.contractId, choice: command.choice, choiceArgument: command.choiceArgument }
    case "CreateAndExerciseCommand":
      return {
        _tag: command._tag,
        templateId: command.templateId,
        createArguments: command.createArguments,
        choice: command.choice,
        choiceArgument: command.choiceArgument
      }
  }
}

const parties = (list: ReadonlyArray<PartyId>): Json => [...list]

const nodeJson = (node: TxNode): Json =>
  node.kind === "created"
    ? {
        kind: node.kind,
        nodeId: node.nodeId,
        contractId: node.contractId,
        templateId: node.templateId,
        packageName: node.packageName,
        createArguments: node.createArguments,
        signatories: parties(node.signatories),
        observers: parties(node.observers),
        createdAt: node.createdAt,
        witnesses: parties(node.witnesses),
        interfaceViews: node.interfaceViews
      }
    : {
        kind: node.kind,
        nodeId: node.nodeId,
        contractId: node.contractId,
        templateId: node.templateId,
        packageName: node.packageName,
        ...(node.interfaceId !== undefined ? { interfaceId: node.interfaceId } : {}),
        choice: node.choice,
        choiceArgument: node.choiceArgument,
        actingParties: parties(node.actingParties),
        consuming: node.consuming,
        childNodeIds: [...node.childNodeIds],
        lastDescendantNodeId: node.lastDescendantNodeId,
        exerciseResult: node.exerciseResult,
        stakeholders: parties(node.stakeholders),
        witnesses: parties(node.witnesses),
        implementedInterfaces: [...node.implementedInterfaces]
      }

export interface PrepareInput {
  readonly commandId: string
  readonly actAs: ReadonlyArray<PartyId>
  readonly readAs: ReadonlyArray<PartyId>
  readonly commands: ReadonlyArray<Command>
  readonly disclosedContracts: ReadonlyArray<ActiveContract>
  readonly synchronizerId?: SynchronizerId | undefined
}

/**
 * Interprets commands without submitting them (interactive submission's prepare): the same
 * contract lookup as a submission (the readers' visible contracts, then disclosed ones), the
 * ledger time `now`. Returns the prepared transaction and the hash the parties sign.
 */
export const prepareSubmission = (
  logic: ParticipantLogic,
  input: PrepareInput,
  now: Micros
): Either.Either<PreparedTransaction, InterpretationError | CommandRejected> => {
  if (input.actAs.length === 0) return Either.left(new CommandRejected({ code: "INVALID_ARGUMENT", message: "actAs must name at least one party" }))
  for (const party of input.actAs) {
    if (!logic.hosts(party)) {
      return Either.left(new CommandRejected({ code: "PARTY_NOT_KNOWN_ON_LEDGER", message: `party ${party} is not hosted on participant ${logic.uid}` }))
    }
  }
  const readers = new Set<PartyId>([...input.actAs, ...input.readAs])
  const disclosed = new Map(input.disclosedContracts.map((c) => [c.created.contractId, c] as const))
  const lookup = (contractId: ContractId): ActiveContract | undefined => {
    const own = logic.visibleContract(contractId, readers)
    if (own !== undefined) return own
    const shared = disclosed.get(contractId)
    return shared !== undefined && logic.acs.inFlightOf(contractId) === undefined ? shared : undefined
  }
  const seed = sha256OfParts("prepared-transaction-seed", logic.uid, input.commandId, String(now), canonicalJson(input.commands.map(commandJson)))
  const interpreted = interpret({ registry: logic.registry, transactionSeed: seed, ledgerTime: now, actAs: input.actAs, lookup, commands: input.commands })
  if (Either.isLeft(interpreted)) return Either.left(interpreted.left)
  const transaction = interpreted.right
  let synchronizerId = input.synchronizerId
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
  const submission: PreparedSubmission = {
    format: PREPARED_TRANSACTION_FORMAT,
    participantId: participantIdOf(logic),
    synchronizerId: synchronizerId ?? logic.config.defaultSynchronizer,
    commandId: input.commandId,
    actAs: [...input.actAs],
    readAs: [...input.readAs],
    ledgerTime: toIso(now),
    commands: input.commands.map((c) => commandJson(c) as PreparedSubmission["commands"][number]),
    disclosedContracts: input.disclosedContracts.map(createdEventBlob),
    transactionSeed: seed,
    transaction: { rootNodeIds: [...transaction.rootNodeIds], nodes: transaction.nodes.map(nodeJson) }
  }
  const value = submissionJson(submission)
  return Either.right({
    submission,
    encoded: Buffer.from(canonicalJson(value), "utf8").toString("base64"),
    hash: External.preparedTransactionHash(value),
    transaction
  })
}

const submissionJson = (s: PreparedSubmission): Json => ({
  format: s.format,
  participantId: s.participantId,
  synchronizerId: s.synchronizerId,
  commandId: s.commandId,
  actAs: [...s.actAs],
  readAs: [...s.readAs],
  ledgerTime: s.ledgerTime,
  commands: s.commands as unknown as Json,
  disclosedContracts: [...s.disclosedContracts],
  transactionSeed: s.transactionSeed,
  transaction: s.transaction as unknown as Json
})

const decodePrepared = Schema.decodeUnknownEither(PreparedSubmission)

/** Reads a prepared transaction back (execute): its submission and the hash its content gives. */
export const decodePreparedTransaction = (
  encoded: string,
  field: string
): Either.Either<{ readonly submission: PreparedSubmission; readonly hash: External.PreparedTransactionHash; readonly commands: ReadonlyArray<Command> }, InvalidArgument> => {
  const bytes = External.base64ToBytes(encoded)
  const invalid = (message: string) => Either.left(new InvalidArgument({ field, message }))
  if (bytes === undefined || bytes.length === 0) return invalid("is not base64 of a prepared transaction")
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes))
  } catch {
    return invalid("is not a prepared transaction of this node (not JSON)")
  }
  const decoded = decodePrepared(parsed)
  if (Either.isLeft(decoded)) return invalid(`is not a prepared transaction of this node: ${formatIssues(decoded.left)}`)
  const submission = decoded.right
  // The hash covers the canonical form of what was decoded: a changed byte changes the hash.
  const hash = External.preparedTransactionHash(parsed as Json)
  const commands = submission.commands.map((c): Command => {
    switch (c._tag) {
      case "CreateCommand":
        return { _tag: c._tag, templateId: c.templateId, createArguments: c.createArguments as JsonObject }
      case "ExerciseCommand":
        return { _tag: c._tag, templateId: c.templateId, contractId: c.contractId, choice: c.choice, choiceArgument: c.choiceArgument as Json }
      case "CreateAndExerciseCommand":
        return {
          _tag: c._tag,
          templateId: c.templateId,
          createArguments: c.createArguments as JsonObject,
          choice: c.choice,
          choiceArgument: c.choiceArgument as Json
        }
    }
  })
  return Either.right({ submission, hash, commands })
}

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
  submission: PreparedSubmission,
  hash: External.PreparedTransactionHash,
  signatures: ReadonlyArray<{ readonly party: string; readonly signatures: ReadonlyArray<External.SignatureJson> }>,
  field: string
): Either.Either<
  ReadonlyArray<External.PreparedTransactionAuthorization>,
  NotAnExternalParty | External.PreparedTransactionNotAuthorized | External.UnsupportedSignatureFormat | External.MalformedSignature
> =>
  Either.gen(function* () {
    const out: Array<External.PreparedTransactionAuthorization> = []
    for (const party of submission.actAs) {
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
