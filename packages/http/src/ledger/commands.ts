/**
 * Ledger surface: the command service and interactive submission.
 *
 * - `POST /v2/commands/submit-and-wait` (`{updateId, completionOffset}`),
 *   `submit-and-wait-for-transaction` (`{transaction}`; without a transactionFormat: ACS delta of
 *   the actAs and readAs parties, wildcard), the deprecated `submit-and-wait-for-transaction-tree`,
 *   and `async/submit` (`{}`). Commands (CreateCommand, ExerciseCommand, CreateAndExerciseCommand;
 *   template ids in either reference form) are checked against the templates' Schemas first: a bad
 *   argument is a 400 naming its field. Interpretation errors have Canton's codes
 *   (CONTRACT_NOT_FOUND, DAML_AUTHORIZATION_ERROR, DAML_INTERPRETATION_ERROR, ...), a rejected or
 *   timed-out transaction the completion's code (e.g. LOCAL_VERDICT_LOCKED_CONTRACTS), a repeated
 *   command id DUPLICATE_COMMAND. Rights: CanActAs of every actAs party, CanReadAs of every
 *   readAs party.
 * - `POST /v2/interactive-submission/prepare`: interprets without submitting and returns the
 *   prepared transaction (base64 of Canton's protobuf `PreparedTransaction`, see
 *   docs/external-parties.md) and its hash (`preparedTransactionHash`, base64 of the 32 bytes the
 *   parties sign: Canton's hashing scheme V2). Rights: CanReadAs of the acting parties.
 * - `execute`, `executeAndWait`, `executeAndWaitForTransaction`: verify that every acting party
 *   is an external party whose registered keys signed the hash (threshold), replay the
 *   transaction's roots as commands with its seed, time and input contracts (they must give back
 *   what was signed, else INTERPRETATION_PREPARED_TRANSACTION_STALE), then submit them with the
 *   hash as the transaction's externalTransactionHash. Rights: CanActAs or CanExecuteAs of the
 *   acting parties.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { External, LedgerApi, type Command, type Completion, type ParticipantNode, type SubmitRequest } from "@sandnet/engine"
import type { ActiveContract, PartyId } from "@sandnet/core"
import { Effect, Either, Schema } from "effect"
import { requireActAs, requireExecuteAs, requireReadAs } from "../auth.ts"
import { LedgerApiError, type HandlerError } from "../errors.ts"
import {
  commandFailed,
  engineRoutes,
  fromCommandRejected,
  fromExternalError,
  fromInterpretation,
  fromInvalidArgument,
  fromResolution,
  invalidBody,
  op,
  orFail,
  requireMatchingUser,
  type LedgerNode,
  withinCompletionTimeout
} from "./context.ts"
import { JsTransaction, JsTransactionTree, renderTransaction, renderTree } from "./encoding.ts"
import { DisclosedContract, JsCommand, Parties, toCommands, toTransactionFormat, TransactionFormat } from "./requests.ts"
import type { EngineInstance } from "@sandnet/node"
import { Surfaces, mergeRoutes } from "../surface.ts"
import { bindWritable, boundOf, writesOf, type WriteRoute } from "../write-routes.ts"

// =============================================================================================
// Shapes
// =============================================================================================

const DurationJson = Schema.Struct({
  seconds: Schema.Int,
  nanos: Schema.Int,
  unknownFields: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "Duration" })

const DeduplicationPeriod = Schema.Union(
  Schema.Struct({ DeduplicationDuration: Schema.Struct({ value: DurationJson }) }),
  Schema.Struct({ DeduplicationOffset: Schema.Struct({ value: Schema.Int }) }),
  Schema.Struct({ Empty: Schema.Struct({}) })
).annotations({ identifier: "DeduplicationPeriod" })

export const JsCommands = Schema.Struct({
  commands: Schema.Array(JsCommand),
  commandId: Schema.String,
  actAs: Parties,
  userId: Schema.optional(Schema.String),
  readAs: Schema.optional(Parties),
  workflowId: Schema.optional(Schema.String),
  deduplicationPeriod: Schema.optional(DeduplicationPeriod),
  minLedgerTimeAbs: Schema.optional(Schema.String),
  minLedgerTimeRel: Schema.optional(DurationJson),
  submissionId: Schema.optional(Schema.String),
  disclosedContracts: Schema.optional(Schema.Array(DisclosedContract)),
  synchronizerId: Schema.optional(Schema.String),
  packageIdSelectionPreference: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "JsCommands" })
export type JsCommands = typeof JsCommands.Type

export const SubmitAndWaitResponse = Schema.Struct({ updateId: Schema.String, completionOffset: Schema.Int }).annotations({
  identifier: "SubmitAndWaitResponse"
})
export const JsSubmitAndWaitForTransactionRequest = Schema.Struct({
  commands: JsCommands,
  transactionFormat: Schema.optional(TransactionFormat)
}).annotations({ identifier: "JsSubmitAndWaitForTransactionRequest" })
export const JsSubmitAndWaitForTransactionResponse = Schema.Struct({ transaction: JsTransaction }).annotations({
  identifier: "JsSubmitAndWaitForTransactionResponse"
})
export const JsSubmitAndWaitForTransactionTreeResponse = Schema.Struct({ transactionTree: JsTransactionTree }).annotations({
  identifier: "JsSubmitAndWaitForTransactionTreeResponse"
})
export const SubmitResponse = Schema.Struct({}).annotations({ identifier: "SubmitResponse" })

const HashingSchemeVersion = Schema.Literal("HASHING_SCHEME_VERSION_UNSPECIFIED", "HASHING_SCHEME_VERSION_V2", "HASHING_SCHEME_VERSION_V3")

export const JsPrepareSubmissionRequest = Schema.Struct({
  userId: Schema.optional(Schema.String),
  commandId: Schema.String,
  commands: Schema.Array(JsCommand),
  minLedgerTime: Schema.optional(Schema.Unknown),
  actAs: Parties,
  readAs: Schema.optional(Parties),
  disclosedContracts: Schema.optional(Schema.Array(DisclosedContract)),
  synchronizerId: Schema.optional(Schema.String),
  packageIdSelectionPreference: Schema.optional(Schema.Array(Schema.String)),
  verboseHashing: Schema.optional(Schema.Boolean),
  maxRecordTime: Schema.optional(Schema.String),
  hashingSchemeVersion: Schema.optional(HashingSchemeVersion)
}).annotations({ identifier: "JsPrepareSubmissionRequest" })

export const JsPrepareSubmissionResponse = Schema.Struct({
  preparedTransaction: Schema.String,
  preparedTransactionHash: Schema.String,
  hashingSchemeVersion: HashingSchemeVersion,
  // Optional, absent when not set (as upstream): hashingDetails only with verboseHashing; no cost estimation.
  hashingDetails: Schema.optional(Schema.String),
  costEstimation: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "JsPrepareSubmissionResponse" })

export const SignatureJson = Schema.Struct({
  format: Schema.String,
  signature: Schema.String,
  signedBy: Schema.String,
  signingAlgorithmSpec: Schema.String
}).annotations({ identifier: "Signature" })

export const PartySignatures = Schema.Struct({
  signatures: Schema.Array(
    Schema.Struct({ party: Schema.String, signatures: Schema.Array(SignatureJson) }).annotations({ identifier: "SinglePartySignatures" })
  )
}).annotations({ identifier: "PartySignatures" })

const executeFields = {
  preparedTransaction: Schema.String,
  partySignatures: PartySignatures,
  deduplicationPeriod: Schema.optional(DeduplicationPeriod),
  submissionId: Schema.String,
  userId: Schema.optional(Schema.String),
  hashingSchemeVersion: HashingSchemeVersion,
  minLedgerTime: Schema.optional(Schema.Unknown)
}
export const JsExecuteSubmissionRequest = Schema.Struct(executeFields).annotations({ identifier: "JsExecuteSubmissionRequest" })
export const JsExecuteSubmissionAndWaitRequest = Schema.Struct(executeFields).annotations({ identifier: "JsExecuteSubmissionAndWaitRequest" })
export const JsExecuteSubmissionAndWaitForTransactionRequest = Schema.Struct({
  ...executeFields,
  transactionFormat: Schema.optional(TransactionFormat)
}).annotations({ identifier: "JsExecuteSubmissionAndWaitForTransactionRequest" })
type ExecuteRequest = typeof JsExecuteSubmissionRequest.Type

export const ExecuteSubmissionResponse = Schema.Struct({}).annotations({ identifier: "ExecuteSubmissionResponse" })
export const ExecuteSubmissionAndWaitResponse = Schema.Struct({ updateId: Schema.String, completionOffset: Schema.Int }).annotations({
  identifier: "ExecuteSubmissionAndWaitResponse"
})
export const JsExecuteSubmissionAndWaitForTransactionResponse = Schema.Struct({ transaction: JsTransaction }).annotations({
  identifier: "JsExecuteSubmissionAndWaitForTransactionResponse"
})

// =============================================================================================
// Endpoints
// =============================================================================================

export const SubmitAndWait = op(
  HttpApiEndpoint.post("submitAndWait", "/v2/commands/submit-and-wait").setPayload(JsCommands).addSuccess(SubmitAndWaitResponse),
  "postV2CommandsSubmit-and-wait",
  "Submits a single composite command and waits for its result. Propagates the error of failed submissions including Daml interpretation errors."
)
export const SubmitAndWaitForTransaction = op(
  HttpApiEndpoint.post("submitAndWaitForTransaction", "/v2/commands/submit-and-wait-for-transaction")
    .setPayload(JsSubmitAndWaitForTransactionRequest)
    .addSuccess(JsSubmitAndWaitForTransactionResponse),
  "postV2CommandsSubmit-and-wait-for-transaction",
  "Submits a single composite command, waits for its result, and returns the transaction."
)
export const SubmitAndWaitForTransactionTree = op(
  HttpApiEndpoint.post("submitAndWaitForTransactionTree", "/v2/commands/submit-and-wait-for-transaction-tree")
    .setPayload(JsCommands)
    .addSuccess(JsSubmitAndWaitForTransactionTreeResponse),
  "postV2CommandsSubmit-and-wait-for-transaction-tree",
  "Submit a batch of commands and wait for the transaction trees response. Deprecated: use submit-and-wait-for-transaction."
)
export const SubmitAsync = op(
  HttpApiEndpoint.post("submitAsync", "/v2/commands/async/submit").setPayload(JsCommands).addSuccess(SubmitResponse),
  "postV2CommandsAsyncSubmit",
  "Submit a command asynchronously (its outcome shows in the update stream)."
)
export const PrepareSubmission = op(
  HttpApiEndpoint.post("prepareSubmission", "/v2/interactive-submission/prepare")
    .setPayload(JsPrepareSubmissionRequest)
    .addSuccess(JsPrepareSubmissionResponse),
  "postV2Interactive-submissionPrepare",
  "Requires `readAs` scope for the submitting party. The prepared transaction is Canton's protobuf PreparedTransaction; its hash is Canton's hashing scheme V2."
)
export const ExecuteSubmission = op(
  HttpApiEndpoint.post("executeSubmission", "/v2/interactive-submission/execute")
    .setPayload(JsExecuteSubmissionRequest)
    .addSuccess(ExecuteSubmissionResponse),
  "postV2Interactive-submissionExecute",
  "Execute a prepared submission asynchronously. Requires `actAs` or `executeAs` scope for the submitting party and the external party's signature."
)
export const ExecuteSubmissionAndWait = op(
  HttpApiEndpoint.post("executeSubmissionAndWait", "/v2/interactive-submission/executeAndWait")
    .setPayload(JsExecuteSubmissionAndWaitRequest)
    .addSuccess(ExecuteSubmissionAndWaitResponse),
  "postV2Interactive-submissionExecuteandwait",
  "Similar to ExecuteSubmission but synchronously waits for the completion of the transaction."
)
export const ExecuteSubmissionAndWaitForTransaction = op(
  HttpApiEndpoint.post("executeSubmissionAndWaitForTransaction", "/v2/interactive-submission/executeAndWaitForTransaction")
    .setPayload(JsExecuteSubmissionAndWaitForTransactionRequest)
    .addSuccess(JsExecuteSubmissionAndWaitForTransactionResponse),
  "postV2Interactive-submissionExecuteandwaitfortransaction",
  "Similar to ExecuteSubmissionAndWait but additionally returns the transaction."
)

export const CommandsGroup = HttpApiGroup.make("commands")
  .add(SubmitAndWait)
  .add(SubmitAndWaitForTransaction)
  .add(SubmitAndWaitForTransactionTree)
  .add(SubmitAsync)
  .annotate(OpenApi.Title, "Command Service")

export const InteractiveSubmissionGroup = HttpApiGroup.make("interactiveSubmission")
  .add(PrepareSubmission)
  .add(ExecuteSubmission)
  .add(ExecuteSubmissionAndWait)
  .add(ExecuteSubmissionAndWaitForTransaction)
  .annotate(OpenApi.Title, "Interactive Submission Service")

// =============================================================================================
// Submission
// =============================================================================================

interface Submission {
  /** The submitting user (the request's userId, else the token's): its completions are that user's. */
  readonly userId: string
  readonly submissionId: string | undefined
  readonly actAs: ReadonlyArray<PartyId>
  readonly readAs: ReadonlyArray<PartyId>
  readonly commandId: string
  readonly workflowId: string | undefined
  readonly commands: ReadonlyArray<Command>
  readonly disclosedContracts: ReadonlyArray<ActiveContract>
  readonly synchronizerId: string | undefined
  readonly externalTransactionHash: string | undefined
  readonly prepared?: NonNullable<SubmitRequest["prepared"]>
}

const LEDGER_STRING = /^[A-Za-z0-9._:\-#/ ]{1,255}$/

const checkCommandId = (commandId: string, field: string) =>
  LEDGER_STRING.test(commandId) ? Effect.void : Effect.fail(invalidBody(field, `"${commandId}" is not a valid LedgerString (1 to 255 of letters, digits, ._:-#/ and space)`))

const checkParties = (actAs: ReadonlyArray<string>) =>
  actAs.length === 0 ? Effect.fail(invalidBody("actAs", "must name at least one party")) : Effect.void

/** The submission of a JsCommands request, after the caller's rights are checked. */
const submissionOf = (json: JsCommands, field: string) =>
  Effect.gen(function* () {
    const prefix = field === "" ? "" : `${field}.`
    const access = yield* requireMatchingUser(json.userId)
    yield* checkParties(json.actAs)
    yield* checkCommandId(json.commandId, `${prefix}commandId`)
    for (const party of json.actAs) yield* requireActAs(party)
    for (const party of json.readAs ?? []) yield* requireReadAs(party)
    const commands = yield* orFail(toCommands(json.commands, `${prefix}commands`))
    if (commands.length === 0) return yield* Effect.fail(invalidBody(`${prefix}commands`, "must not be empty"))
    const disclosedContracts = yield* orFail(
      LedgerApi.decodeDisclosedContracts(json.disclosedContracts ?? [], `${prefix}disclosedContracts`),
      fromInvalidArgument
    )
    return {
      userId: json.userId !== undefined && json.userId !== "" ? json.userId : access.user.id,
      submissionId: json.submissionId !== undefined && json.submissionId !== "" ? json.submissionId : undefined,
      actAs: json.actAs,
      readAs: json.readAs ?? [],
      commandId: json.commandId,
      workflowId: json.workflowId,
      commands,
      disclosedContracts,
      synchronizerId: json.synchronizerId === "" ? undefined : json.synchronizerId,
      externalTransactionHash: undefined
    } satisfies Submission
  })

/** Checks and submits; the engine decides it before this returns (zero-delay network). */
const submit = (node: LedgerNode, submission: Submission, commandsField: string) =>
  node.runtime.run((engine) =>
    Effect.gen(function* () {
      const participant = node.participantOf(engine)
      yield* orFail(LedgerApi.checkCommands(engine.network.registry, submission.commands, commandsField), (error): HandlerError =>
        error._tag === "InvalidArgument" ? fromInvalidArgument(error) : fromResolution(error)
      )
      return yield* participant
        .submit({
          userId: submission.userId,
          ...(submission.submissionId !== undefined ? { submissionId: submission.submissionId } : {}),
          actAs: submission.actAs,
          readAs: submission.readAs,
          commandId: submission.commandId,
          ...(submission.workflowId !== undefined ? { workflowId: submission.workflowId } : {}),
          commands: submission.commands,
          disclosedContracts: submission.disclosedContracts,
          ...(submission.synchronizerId !== undefined ? { synchronizerId: submission.synchronizerId } : {}),
          ...(submission.externalTransactionHash !== undefined ? { externalTransactionHash: submission.externalTransactionHash } : {}),
          ...(submission.prepared !== undefined ? { prepared: submission.prepared } : {})
        })
        .pipe(
          Effect.mapError((error): HandlerError => (error._tag === "CommandRejected" ? fromCommandRejected(error) : fromInterpretation(error))),
          Effect.as(participant)
        )
    })
  )

/**
 * Waits for the completion of a submitted command (normally already there: then no timeout is
 * armed, whose race was most of this wait's cost), at most the setting's completion timeout.
 */
const completionOf = (participant: ParticipantNode, submission: Submission) =>
  Effect.suspend(() => {
    const known = participant.completionNow(submission.commandId, submission.actAs)
    return known !== undefined ? Effect.succeed(known) : awaitCompletionWithin(participant, submission)
  }).pipe(
    Effect.flatMap((completion: Completion) =>
      completion._tag === "Succeeded"
        ? Effect.succeed(completion)
        : Effect.fail(commandFailed(completion.code, completion.reason, completion.updateId === undefined ? {} : { updateId: completion.updateId }))
    )
  )

const awaitCompletionWithin = (participant: ParticipantNode, submission: Submission) =>
  withinCompletionTimeout(
    participant.awaitCompletion(submission.commandId, submission.actAs),
    () =>
      new LedgerApiError({
        code: "REQUEST_TIME_OUT",
        category: "DeadlineExceededRequestStateUnknown",
        cause: `Timed out while awaiting the completion of command ${submission.commandId}`
      })
  )

const submitAndWait = (node: LedgerNode, submission: Submission, commandsField: string) =>
  Effect.gen(function* () {
    const participant = yield* submit(node, submission, commandsField)
    const completion = yield* completionOf(participant, submission)
    // The completion may have arrived with a tick (a network spread over processes): answer once
    // the batch that holds it is committed.
    yield* node.runtime.committed
    return { participant, completion }
  })

/** The default transaction format of submit-and-wait-for-transaction: ACS delta, wildcard for actAs and readAs. */
const defaultTransactionFormat = (submission: Submission): LedgerApi.TransactionFormat => ({
  eventFormat: {
    filtersByParty: [...new Set([...submission.actAs, ...submission.readAs])].sort().map((p) => [p, { cumulative: [] }] as const),
    filtersForAnyParty: undefined,
    verbose: true
  },
  shape: "ACS_DELTA"
})

const transactionFormatOf = (json: typeof TransactionFormat.Type | undefined, submission: Submission, field: string) =>
  Effect.gen(function* () {
    if (json === undefined) return defaultTransactionFormat(submission)
    const format = yield* orFail(toTransactionFormat(json, field))
    const readers = LedgerApi.readersOf({ transactions: format, reassignments: undefined, topologyParties: undefined })
    for (const party of readers.parties) yield* requireReadAs(party)
    return format
  })

/** The committed transaction as a format shows it (an empty event list when nothing is visible). */
const committedTransaction = (
  node: LedgerNode,
  updateId: string,
  format: LedgerApi.TransactionFormat,
  field: string,
  trees = false
) =>
  node.runtime
    .run((engine: EngineInstance) =>
      Effect.sync((): Either.Either<LedgerApi.TransactionView, HandlerError> => {
        const resolved = LedgerApi.resolveUpdateFormat(
          LedgerApi.knownPackages(engine.network),
          { transactions: format, reassignments: undefined, topologyParties: undefined },
          field,
          { trees }
        )
        if (Either.isLeft(resolved)) return Either.left(fromResolution(resolved.left))
        return Either.mapLeft(LedgerApi.committedTransaction(node.participantOf(engine), updateId, resolved.right.transactions!, format.shape), () =>
          commandFailed("UPDATE_NOT_FOUND", `the transaction ${updateId} is not visible on this participant`)
        )
      })
    )
    .pipe(Effect.flatMap((either) => orFail(either)))

// =============================================================================================
// Interactive submission
// =============================================================================================

const prepare = (node: LedgerNode, request: typeof JsPrepareSubmissionRequest.Type) =>
  Effect.gen(function* () {
    yield* requireMatchingUser(request.userId)
    yield* checkParties(request.actAs)
    yield* checkCommandId(request.commandId, "commandId")
    for (const party of [...request.actAs, ...(request.readAs ?? [])]) yield* requireReadAs(party)
    if (request.hashingSchemeVersion !== undefined && request.hashingSchemeVersion !== "HASHING_SCHEME_VERSION_V2" && request.hashingSchemeVersion !== "HASHING_SCHEME_VERSION_UNSPECIFIED") {
      return yield* Effect.fail(invalidBody("hashingSchemeVersion", `${request.hashingSchemeVersion} is not supported; Sandnet answers HASHING_SCHEME_VERSION_V2`))
    }
    const commands = yield* orFail(toCommands(request.commands, "commands"))
    if (commands.length === 0) return yield* Effect.fail(invalidBody("commands", "must not be empty"))
    const disclosedContracts = yield* orFail(LedgerApi.decodeDisclosedContracts(request.disclosedContracts ?? [], "disclosedContracts"), fromInvalidArgument)
    const prepared = yield* node.runtime
      .run((engine) =>
        Effect.sync((): Either.Either<LedgerApi.PreparedTransaction, HandlerError> => {
          const checked = LedgerApi.checkCommands(engine.network.registry, commands, "commands")
          if (Either.isLeft(checked)) return Either.left(checked.left._tag === "InvalidArgument" ? fromInvalidArgument(checked.left) : fromResolution(checked.left))
          const result = LedgerApi.prepareSubmission(
            node.participantOf(engine),
            {
              commandId: request.commandId,
              actAs: request.actAs,
              readAs: request.readAs ?? [],
              commands,
              disclosedContracts,
              synchronizerId: request.synchronizerId === "" ? undefined : request.synchronizerId
            },
            engine.clock.now
          )
          return Either.mapLeft(result, (error): HandlerError => (error._tag === "CommandRejected" ? fromCommandRejected(error) : fromInterpretation(error)))
        })
      )
      .pipe(Effect.flatMap((either) => orFail(either)))
    return {
      preparedTransaction: prepared.encoded,
      preparedTransactionHash: prepared.hash.base64,
      hashingSchemeVersion: "HASHING_SCHEME_VERSION_V2" as const,
      ...(request.verboseHashing === true ? { hashingDetails: External.preparedTransactionHashingDetails(prepared.hash) } : {})
    }
  })

/** Decodes, checks the signatures and builds the submission of an execute request. */
const executionOf = (node: LedgerNode, request: ExecuteRequest) =>
  Effect.gen(function* () {
    const access = yield* requireMatchingUser(request.userId)
    if (request.hashingSchemeVersion !== "HASHING_SCHEME_VERSION_V2") {
      return yield* Effect.fail(invalidBody("hashingSchemeVersion", "must be HASHING_SCHEME_VERSION_V2 (what prepare answered)"))
    }
    const prepared = yield* orFail(LedgerApi.decodePreparedTransaction(request.preparedTransaction, "preparedTransaction"), fromInvalidArgument)
    for (const party of prepared.actAs) yield* requireExecuteAs(party)
    const replayed = yield* node.runtime
      .run((engine) =>
        Effect.sync((): Either.Either<LedgerApi.PreparedExecution, HandlerError> => {
          const verified = LedgerApi.verifyPreparedSignatures(engine.network, prepared.actAs, prepared.hash, request.partySignatures.signatures, "partySignatures.signatures")
          if (Either.isLeft(verified)) {
            const error = verified.left
            return Either.left(error._tag === "NotAnExternalParty" ? invalidBody("preparedTransaction.metadata.submitterInfo.actAs", error.message) : fromExternalError(error))
          }
          // Its roots, replayed here with its seed, time and inputs, must give what was signed.
          return Either.mapLeft(LedgerApi.replayPreparedTransaction(node.participantOf(engine), prepared, "preparedTransaction"), (error): HandlerError =>
            error._tag === "InvalidArgument" ? fromInvalidArgument(error) : error._tag === "CommandRejected" ? fromCommandRejected(error) : fromInterpretation(error)
          )
        })
      )
      .pipe(Effect.flatMap((either) => orFail(either)))
    const submission: Submission = {
      userId: request.userId !== undefined && request.userId !== "" ? request.userId : access.user.id,
      submissionId: request.submissionId === "" ? undefined : request.submissionId,
      actAs: prepared.actAs,
      readAs: [],
      commandId: prepared.commandId,
      workflowId: undefined,
      commands: replayed.commands,
      disclosedContracts: prepared.disclosedContracts,
      synchronizerId: prepared.synchronizerId,
      externalTransactionHash: prepared.hash.hex,
      // Executed as prepared: same seed, same ledger time, and it must yield the signed nodes.
      prepared: { transactionSeed: prepared.transactionSeed, ledgerTime: prepared.ledgerTime, nodes: replayed.nodes }
    }
    return submission
  })

// =============================================================================================
// Routes
// =============================================================================================

const ledger = Surfaces.ledger

export const COMMAND_ENDPOINTS = [
  SubmitAndWait,
  SubmitAndWaitForTransaction,
  SubmitAndWaitForTransactionTree,
  SubmitAsync,
  PrepareSubmission,
  ExecuteSubmission,
  ExecuteSubmissionAndWait,
  ExecuteSubmissionAndWaitForTransaction
] as const

/**
 * The submissions and the interactive submission's prepare, for the engine as `node`: each bound
 * on the Effect path and declared a write route (write-routes.ts) with one handler. (The Wallet
 * SDK's transfers are a prepare and an execute each.)
 */
const submissionRoutes = (node: LedgerNode) => [
  bindWritable(ledger, PrepareSubmission, ({ payload }) => prepare(node, payload)),
  bindWritable(ledger, SubmitAndWait, ({ payload }) =>
    Effect.gen(function* () {
      const submission = yield* submissionOf(payload, "")
      const { completion } = yield* submitAndWait(node, submission, "commands")
      return { updateId: completion.updateId, completionOffset: completion.offset }
    })
  ),
  bindWritable(ledger, SubmitAndWaitForTransaction, ({ payload }) =>
    Effect.gen(function* () {
      const submission = yield* submissionOf(payload.commands, "commands")
      const format = yield* transactionFormatOf(payload.transactionFormat, submission, "transactionFormat")
      const { completion } = yield* submitAndWait(node, submission, "commands.commands")
      const view = yield* committedTransaction(node, completion.updateId, format, "transactionFormat")
      return { transaction: renderTransaction(view) }
    })
  ),
  bindWritable(ledger, SubmitAndWaitForTransactionTree, ({ payload }) =>
    Effect.gen(function* () {
      const submission = yield* submissionOf(payload, "")
      const { completion } = yield* submitAndWait(node, submission, "commands")
      const format: LedgerApi.TransactionFormat = { ...defaultTransactionFormat(submission), shape: "LEDGER_EFFECTS" }
      const view = yield* committedTransaction(node, completion.updateId, format, "commands", true)
      return { transactionTree: renderTree(view) }
    })
  ),
  bindWritable(ledger, SubmitAsync, ({ payload }) =>
    Effect.gen(function* () {
      const submission = yield* submissionOf(payload, "")
      yield* submit(node, submission, "commands")
      return {}
    })
  ),
  bindWritable(ledger, ExecuteSubmission, ({ payload }) =>
    Effect.gen(function* () {
      const submission = yield* executionOf(node, payload)
      yield* submit(node, submission, "preparedTransaction.commands")
      return {}
    })
  ),
  bindWritable(ledger, ExecuteSubmissionAndWait, ({ payload }) =>
    Effect.gen(function* () {
      const submission = yield* executionOf(node, payload)
      const { completion } = yield* submitAndWait(node, submission, "preparedTransaction.commands")
      return { updateId: completion.updateId, completionOffset: completion.offset }
    })
  ),
  bindWritable(ledger, ExecuteSubmissionAndWaitForTransaction, ({ payload }) =>
    Effect.gen(function* () {
      const submission = yield* executionOf(node, payload)
      const format = yield* transactionFormatOf(payload.transactionFormat, submission, "transactionFormat")
      const { completion } = yield* submitAndWait(node, submission, "preparedTransaction.commands")
      const view = yield* committedTransaction(node, completion.updateId, format, "transactionFormat")
      return { transaction: renderTransaction(view) }
    })
  )
]

export const CommandRoutes = engineRoutes(COMMAND_ENDPOINTS, (node) => mergeRoutes(...boundOf(submissionRoutes(node))))

/**
 * The submissions and prepare answered without the platform's request pipeline (write-routes.ts), for the
 * engine as `node`: the same handlers as their `bind` in `CommandRoutes`, which answers any other request.
 */
export const commandWriteRoutes = (node: LedgerNode): ReadonlyArray<WriteRoute> => writesOf(submissionRoutes(node))


