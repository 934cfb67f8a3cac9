/**
 * What the wallet surface's handlers share: the validator's wallet in the node runtime, reads and
 * commands, the mapping of wallet errors onto `{error}` answers, and the administrator check.
 *
 * Reads are runtime reads (no lock: the engine as the last operation left it, answered once that
 * is committed). Commands run their
 * WalletNode operation under the lock (validation, tracking-id step, submission; the runtime then
 * delivers what the submission set in motion) and wait for the command's completion *outside* the
 * lock: on the node's zero-delay network it is already there; on a network with latency another
 * request can meanwhile see the command in flight (a tracking id in progress answers 429) and the
 * ticker (or `advanceTime`) delivers the completion.
 *
 * The wallet served is the first validator's (`validator1`, whose operator is the wallet user
 * `validatorWalletUser`). A node whose runtime runs no wallets, or that has no runtime at all,
 * answers every wallet endpoint 501.
 */
import { Admin, awaitOutcome, outcomeNow, walletErrorStatus, type Network, type Outcome, type Topology, type WalletApi, type WalletError, type WalletNode } from "@sandnet/engine"
import type { Micros } from "@sandnet/core"
import { Effect, Either, Option } from "effect"
import { AuthenticatedSubject, AuthenticatedUser } from "../auth.ts"
import { InvalidRequest, LedgerApiError, NotImplemented, PermissionDenied, type HandlerError, type RequestLocation } from "../errors.ts"
import { NodeRuntime, type EngineInstance } from "@sandnet/node"
import { withinCompletionTimeout } from "../ledger/context.ts"

/** What a wallet handler sees, under the runtime's lock. */
export interface WalletView {
  readonly engine: EngineInstance
  readonly wallet: WalletApi
  readonly node: WalletNode
  /** The engine's time. */
  readonly now: Micros
}

type Engine = Network | Topology

/** The wallet's view of an engine (the first validator's wallet), or undefined when the runtime runs no wallets. */
export const walletViewOf = (engine: EngineInstance): WalletView | undefined => {
  const wallet = engine.wallets[0]
  return wallet === undefined ? undefined : { engine, wallet, node: wallet.node, now: engine.clock.now }
}

/** A wallet read without a fiber (read-routes.ts); undefined without a wallet (its `bind` answers 501). */
export const walletReadNow = <A>(engine: EngineInstance, read: (view: WalletView) => Either.Either<A, WalletError>): Either.Either<A, WalletError> | undefined => {
  const view = walletViewOf(engine)
  return view === undefined ? undefined : read(view)
}

/** Runs `body` under the runtime's lock (or as a read) with the validator's wallet; 501 without one. */
export const withWallet = <A, E>(body: (view: WalletView) => Effect.Effect<A, E, Engine>, mode: "run" | "read" = "run"): Effect.Effect<A, E | NotImplemented> =>
  Effect.flatMap(Effect.serviceOption(NodeRuntime), (runtime): Effect.Effect<A, E | NotImplemented> =>
    Option.match(runtime, {
      onNone: () => Effect.fail(new NotImplemented({ operation: "the wallet (this node runs without an engine)" })),
      onSome: (rt) =>
        rt[mode]((engine): Effect.Effect<A, E | NotImplemented, Engine> =>
          Effect.suspend((): Effect.Effect<A, E | NotImplemented, Engine> => {
            const view = walletViewOf(engine)
            return view === undefined ? Effect.fail(new NotImplemented({ operation: "the wallet (this node runs without wallets)" })) : body(view)
          })
        )
    })
  )

/** A read of the wallet (an Effect or an Either); wallet errors become `{error}` answers. */
export const walletRead = <A>(read: (view: WalletView) => Effect.Effect<A, WalletError, Engine>): Effect.Effect<A, HandlerError> =>
  withWallet((view) => Effect.mapError(read(view), (error) => toHandlerError(error)), "read")

/** A wallet command: submitted under the lock, its completion awaited outside it. */
export const walletCommand = <A>(command: (view: WalletView) => Effect.Effect<Outcome<A>, WalletError, Engine>): Effect.Effect<A, HandlerError> =>
  Effect.gen(function* () {
    const { outcome, node } = yield* withWallet((view) =>
      command(view).pipe(
        Effect.mapError((error) => toHandlerError(error)),
        Effect.map((outcome) => ({ outcome, node: view.node }))
      )
    )
    // answered at once when the command completed within its operation (the usual case: arming the
    // timeout's race was about a tenth of the Effect operations of a W1 offer); else the completion
    // is awaited at most the completion timeout, and then the outcome is not known yet
    const known = outcomeNow(node, outcome)
    if (known !== undefined) return yield* Either.mapLeft(known, (error) => toHandlerError(error))
    return yield* withinCompletionTimeout(
      Effect.mapError(awaitOutcome(node, Effect.void)(outcome), (error) => toHandlerError(error)),
      () =>
        new LedgerApiError({
          code: "COMMAND_OUTCOME_UNKNOWN",
          category: "TransientServerFailure",
          cause: "the command was submitted but has not completed yet; retry (tracked requests answer 429 while it is in flight)",
          status: 503
        })
    )
  })

// ---------------------------------------------------------------------------------------------
// Error mapping
// ---------------------------------------------------------------------------------------------

const categoryOfStatus = (status: number): string => {
  switch (status) {
    case 400:
      return "InvalidGivenCurrentSystemStateOther"
    case 404:
      return "InvalidGivenCurrentSystemStateResourceMissing"
    case 409:
      return "InvalidGivenCurrentSystemStateResourceExists"
    case 429:
      return "ContentionOnSharedResources"
    case 503:
      return "TransientServerFailure"
    default:
      return "SystemInternalAssumptionViolated"
  }
}

/**
 * The status of a command the ledger refused or rejected, by its code: the wallet service says 500
 * "or the Canton code's own mapping"; what a client caused or can retry is never a 500.
 */
export const commandFailureStatus = (code: string): number => {
  switch (code) {
    case "DUPLICATE_COMMAND":
    case "LOCAL_VERDICT_LOCKED_CONTRACTS":
    case "LOCAL_VERDICT_INACTIVE_CONTRACTS":
    case "LOCAL_VERDICT_DUPLICATE_UPDATE_ID":
    case "LOCAL_VERDICT_REASSIGNMENT_MISMATCH":
    case "DUPLICATE_UPDATE_ID":
    case "INTERPRETATION_PREPARED_TRANSACTION_STALE":
    case "ContractNotActive":
      return 409
    case "SUBMISSION_ALREADY_IN_FLIGHT":
      return 429
    case "ContractNotFound":
    case "PARTY_NOT_KNOWN_ON_LEDGER":
      return 404
    case "ChoiceFailed":
    case "AuthorizationFailed":
    case "ChoiceNotFound":
    case "TemplateNotFound":
    case "INVALID_ARGUMENT":
    case "NO_SYNCHRONIZER_FOR_SUBMISSION":
    case "LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND":
      return 400
    case "NOT_SEQUENCED_TIMEOUT":
    case "LOCAL_VERDICT_TIMEOUT":
    case "MEDIATOR_SAYS_TX_TIMED_OUT":
    case "SEQUENCER_TRAFFIC_EXCEEDED":
      return 503
    default:
      return 500
  }
}

const screaming = (tag: string): string => tag.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()

/** A wallet error as the surface answers it (`{error}` with the status errors.ts of the wallet gives). */
export const toHandlerError = (error: WalletError, location: RequestLocation = "body"): HandlerError => {
  switch (error._tag) {
    case "InvalidArgument":
      return InvalidRequest.fromArgument(error, location)
    case "WalletNotFound":
      return new LedgerApiError({ code: "WALLET_NOT_FOUND", category: categoryOfStatus(404), cause: `wallet not found: ${error.message}`, status: 404 })
    case "WalletCommandFailed": {
      const status = commandFailureStatus(error.code)
      return new LedgerApiError({ code: error.code, category: categoryOfStatus(status), cause: error.message, status })
    }
    case "PreapprovalAlreadyExists": {
      const status = walletErrorStatus(error)
      return new LedgerApiError({ code: screaming(error._tag), category: categoryOfStatus(status), cause: error.message, status, context: { contractId: error.contractId } })
    }
    default: {
      const status = walletErrorStatus(error)
      return new LedgerApiError({ code: screaming(error._tag), category: categoryOfStatus(status), cause: error.message, status })
    }
  }
}

/**
 * createTransferPreapproval's 409 names the existing preapproval in `transfer_preapproval_contract_id`
 * next to `error`, as Splice answers it (a CreateTransferPreapprovalResponse); other 409s stay `{error}`.
 */
export const namingExistingPreapproval = (error: HandlerError): HandlerError => {
  const contractId = error._tag === "LedgerApiError" && error.code === "PREAPPROVAL_ALREADY_EXISTS" ? error.context?.["contractId"] : undefined
  return contractId === undefined || error._tag !== "LedgerApiError"
    ? error
    : new LedgerApiError({
        code: error.code,
        category: error.category,
        cause: error.cause,
        ...(error.context === undefined ? {} : { context: error.context }),
        ...(error.status === undefined ? {} : { status: error.status }),
        fields: { transfer_preapproval_contract_id: contractId }
      })
}

// ---------------------------------------------------------------------------------------------
// Callers
// ---------------------------------------------------------------------------------------------

/** The wallet user of the request: the token's subject. */
export const walletUser: Effect.Effect<string, never, AuthenticatedSubject> = Effect.map(AuthenticatedSubject, (subject) => subject.userId)

/**
 * The validator administration API (`/v0/admin/...`): the caller must be an active ledger user with
 * ParticipantAdmin, or one that may act as the validator operator's party (the operator's wallet
 * user `sandnet start` creates has both). Splice requires all of: primary party = operator,
 * CanActAs operator and ParticipantAdmin; Sandnet accepts either so that `participant_admin` works
 * at once.
 */
export const requireWalletAdmin: Effect.Effect<void, HandlerError> = Effect.gen(function* () {
  const access = yield* Effect.serviceOption(AuthenticatedUser)
  if (Option.isNone(access)) {
    return yield* new PermissionDenied({ reason: "the validator administration API needs an existing ledger user (ParticipantAdmin, or acting as the validator operator)" })
  }
  if (access.value.isParticipantAdmin) return
  const operator = yield* withWallet((view) => Effect.succeed(view.node.operator), "read")
  if (!access.value.canActAs(operator)) {
    return yield* new PermissionDenied({ reason: `user ${access.value.user.id} is neither a participant administrator nor may it act as the validator operator ${operator}` })
  }
})

/**
 * Gives an onboarded wallet user its ledger API user (primary party, CanActAs and CanReadAs of its
 * party), as Splice's onboarding does: created when missing, rights granted when it exists.
 */
export const ensureLedgerUser = (user: string, party: string): Effect.Effect<void, never, Admin.UserManagement> =>
  Effect.gen(function* () {
    const users = yield* Admin.UserManagement
    const rights = [Admin.Rights.canActAs(party), Admin.Rights.canReadAs(party)]
    const existing = yield* Effect.either(users.getUser(user))
    if (Either.isRight(existing)) yield* Effect.ignore(users.grantUserRights(user, rights))
    else yield* Effect.ignore(users.createUser({ user: { id: user, primaryParty: party }, rights }))
  })

/** Splice's offboarding deletes the ledger API user too (Sandnet keeps administrators). */
export const deleteLedgerUser = (user: string): Effect.Effect<void, never, Admin.UserManagement> =>
  Effect.gen(function* () {
    const users = yield* Admin.UserManagement
    const record = yield* Effect.either(users.getUser(user))
    if (Either.isLeft(record) || record.right.rights.some((r) => r._tag === "ParticipantAdmin" || r._tag === "IdentityProviderAdmin")) return
    yield* Effect.ignore(users.deleteUser(user))
  })

/** A wallet user name must be a ledger user id (its ledger user is created at onboarding). */
export const checkUserName = (name: string, field: string): Effect.Effect<void, HandlerError> =>
  Admin.isUserId(name)
    ? Effect.void
    : Effect.fail(
        new InvalidRequest({ location: "body", detail: `${field}: "${name}" is not a valid ledger user id (1 to 128 ASCII letters, digits and @^$.!\`-#+'~_|:())` })
      )

/** Maps the reply of a command's outcome. */
export const mapOutcome = <A, B>(outcome: Outcome<A>, f: (a: A) => B): Outcome<B> =>
  outcome._tag === "Done"
    ? { _tag: "Done", value: f(outcome.value) }
    : { _tag: "Submitted", pending: { ...outcome.pending, finish: (completion) => Either.map(outcome.pending.finish(completion), f) } }
