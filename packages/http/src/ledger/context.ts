/**
 * What the ledger surface's engine endpoints share: which participant `/v2` is (the node's
 * validator1 by default; a setting picks another, e.g. `sv1`), the list limits, access to the
 * NodeRuntime, and the mapping of engine errors onto Canton's codes.
 *
 * The engine endpoints bind only when a NodeRuntime is in the context the routes are built with
 * (`sandnet start` provides one); without it they answer 501, so that a node of user management
 * alone (tests of idps and users) still starts.
 */
import type { HttpApiEndpoint, HttpLayerRouter } from "@effect/platform"
import { InvalidArgument, type InterpretationError } from "@sandnet/core"
import { LedgerApi, Packages, type CommandRejected, type CoinNetwork, type External, type ParticipantNode, type PartyAlreadyExists } from "@sandnet/engine"
import { Context, Duration, Effect, Either, Layer, Option } from "effect"
import { AuthenticatedUser, requireReadAs, type Authenticator, type UserAccess } from "../auth.ts"
import { InvalidRequest, LedgerApiError, PermissionDenied, type HandlerError } from "../errors.ts"
import { NodeRuntime, type EngineInstance, type NodeRuntimeService } from "@sandnet/node"
import { annotateEndpoint, notImplemented, orFail, ReadOnlyRequest, Surfaces, mergeRoutes } from "../surface.ts"

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

export interface LedgerApiSettings {
  /**
   * The node (by name) whose participant `/v2` serves: `validator1` (default: the first
   * validator, else the first super validator), or e.g. `sv1`.
   */
  readonly participant: string | undefined
  /**
   * Canton's `http-list-max-elements-limit` (default 200): the most items a list answer of
   * `/v2/updates` (and flats, trees, active contracts) holds; more is 413
   * JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED unless the request's `limit` cuts the list.
   */
  readonly maxListElements: number
  /** Canton's `http-list-wait-time` (default 500 ms): the idle timeout of open-ended list requests. */
  readonly listWaitMillis: number
  /** How often an open-ended request or a websocket looks for new updates. */
  readonly pollMillis: number
  /**
   * How long submit-and-wait (and execute-and-wait) awaits a command's completion before it answers
   * 504 REQUEST_TIME_OUT, the outcome unknown (Canton's command service tracking timeout), and a
   * wallet command before its 503 COMMAND_OUTCOME_UNKNOWN: 60 s (`sandnet start --completion-timeout`).
   */
  readonly completionTimeoutMillis: number
}

export const DEFAULT_LEDGER_API_SETTINGS: LedgerApiSettings = {
  participant: undefined,
  maxListElements: 200,
  listWaitMillis: 500,
  pollMillis: 20,
  completionTimeoutMillis: 60_000
}

export class LedgerApiConfig extends Context.Reference<LedgerApiConfig>()("@sandnet/http/LedgerApiConfig", {
  defaultValue: (): LedgerApiSettings => DEFAULT_LEDGER_API_SETTINGS
}) {
  static readonly layer = (settings: Partial<LedgerApiSettings>): Layer.Layer<LedgerApiConfig> =>
    Layer.succeed(LedgerApiConfig, { ...DEFAULT_LEDGER_API_SETTINGS, ...settings })
  /** The settings of the context (or the defaults) with `settings` over them. */
  static readonly amend = (settings: Partial<LedgerApiSettings>): Layer.Layer<LedgerApiConfig> =>
    Layer.effect(LedgerApiConfig, Effect.map(LedgerApiConfig, (given) => ({ ...given, ...settings })))
}

/**
 * `awaiting` (a command's completion), failed with `onTimeout()` once the settings' completion timeout
 * has passed: submit-and-wait's 504 and a wallet command's 503 alike.
 */
export const withinCompletionTimeout = <A, E, R>(awaiting: Effect.Effect<A, E, R>, onTimeout: () => LedgerApiError): Effect.Effect<A, E | LedgerApiError, R> =>
  Effect.flatMap(LedgerApiConfig, (settings) => Effect.timeoutFail(awaiting, { duration: Duration.millis(settings.completionTimeoutMillis), onTimeout }))

// ---------------------------------------------------------------------------------------------
// The participant behind /v2
// ---------------------------------------------------------------------------------------------

/** The engine as the ledger endpoints see it. */
export interface LedgerNode {
  readonly runtime: NodeRuntimeService
  /** The participant /v2 serves, in an engine instance. */
  readonly participantOf: (engine: EngineInstance) => ParticipantNode
}

export const participantNamed = (network: CoinNetwork, name: string | undefined): ParticipantNode => {
  const nodes = [...network.validators, ...network.superValidators]
  const found = name === undefined ? (network.validators[0] ?? network.superValidators[0]) : nodes.find((n) => n.name === name)
  if (found === undefined) throw new Error(`no node named ${name} in the network (nodes: ${nodes.map((n) => n.name).join(", ")})`)
  return found.participant
}

/**
 * Route Layers that need the engine: built with the NodeRuntime of the context when there is one;
 * otherwise the endpoints answer 501.
 */
export const engineRoutes = <R>(
  endpoints: ReadonlyArray<HttpApiEndpoint.HttpApiEndpoint.Any>,
  make: (node: LedgerNode) => Layer.Layer<never, never, R>
): Layer.Layer<never, never, R | HttpLayerRouter.HttpRouter | Authenticator> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const runtime = yield* Effect.serviceOption(NodeRuntime)
      const settings = yield* LedgerApiConfig
      if (Option.isNone(runtime)) {
        return mergeRoutes(
          Layer.empty,
          ...endpoints.map((endpoint) => notImplemented(Surfaces.ledger, endpoint))
        ) as Layer.Layer<never, never, R | HttpLayerRouter.HttpRouter | Authenticator>
      }
      // A participant setting that names no node fails the node's start, not its first request.
      const engine = yield* runtime.value.engine
      participantNamed(engine.network, settings.participant)
      return make(ledgerNodeOf(runtime.value, settings)) as Layer.Layer<never, never, R | HttpLayerRouter.HttpRouter | Authenticator>
    })
  )

/** The engine as the ledger endpoints see it, for `runtime` and the surface's settings (the ledger's write routes build it too). */
export const ledgerNodeOf = (runtime: NodeRuntimeService, settings: LedgerApiSettings): LedgerNode => ({
  runtime: readsAsReads(runtime),
  participantOf: (engine) => participantNamed(engine.network, settings.participant)
})

/**
 * Fails the node's start when the participant setting names no node, as building the engine
 * routes does: the /v2 routes are built at their first request (lazy-routes.ts, server.ts).
 */
export const checkLedgerParticipant = Effect.gen(function* () {
  const runtime = yield* Effect.serviceOption(NodeRuntime)
  if (Option.isNone(runtime)) return
  const settings = yield* LedgerApiConfig
  participantNamed((yield* runtime.value.engine).network, settings.participant)
  // LedgerApiConfig is a Context.Reference: its default applies where no Layer provides it (as in engineRoutes)
}) as Effect.Effect<void>

/** The runtime whose `run` is a `read` (no lock) while the request is a read (`ReadOnlyRequest`). */
const readsAsReads = (runtime: NodeRuntimeService): NodeRuntimeService => ({
  ...runtime,
  run: (operation) => Effect.flatMap(ReadOnlyRequest, (read) => (read ? runtime.read(operation) : runtime.run(operation)))
})

/** Reads the engine as the last operation left it (a runtime read: no lock): the read's Left fails the effect. */
export const read = <A, E>(node: LedgerNode, f: (engine: EngineInstance, participant: ParticipantNode) => Either.Either<A, E>): Effect.Effect<A, E> =>
  Effect.flatMap(
    node.runtime.read((engine) => Effect.sync(() => f(engine, node.participantOf(engine)))),
    (either) => (Either.isLeft(either) ? Effect.fail(either.left) : Effect.succeed(either.right))
  )

/** Annotates an endpoint with the reference's operation id and description (for the OpenAPI document). */
export const op = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E, id: string, description: string): E =>
  annotateEndpoint(endpoint, { id, description })

// ---------------------------------------------------------------------------------------------
// Rights
// ---------------------------------------------------------------------------------------------

const hasRight = (access: UserAccess, tag: string): boolean => access.rights.some((r) => r._tag === tag)

export const requireReadAsAnyParty: Effect.Effect<UserAccess, PermissionDenied, AuthenticatedUser> = Effect.flatMap(
  AuthenticatedUser,
  (access) =>
    hasRight(access, "CanReadAsAnyParty")
      ? Effect.succeed(access)
      : Effect.fail(new PermissionDenied({ reason: "the CanReadAsAnyParty right is required for filtersForAnyParty" }))
)

/** Rights for reading with an update format: CanReadAs of each party it names, CanReadAsAnyParty for any party. */
export const requireReaders = (format: LedgerApi.UpdateFormat) =>
  Effect.gen(function* () {
    const readers = LedgerApi.readersOf(format)
    for (const party of readers.parties) yield* requireReadAs(party)
    if (readers.anyParty) yield* requireReadAsAnyParty
  })

export const requireEventFormatReaders = (format: LedgerApi.EventFormat) =>
  requireReaders({ transactions: { eventFormat: format, shape: "ACS_DELTA" }, reassignments: undefined, topologyParties: undefined })

/** ParticipantAdmin, or IdentityProviderAdmin of the given provider (party management). */
export const requireAdmin = (identityProviderId: string | undefined): Effect.Effect<UserAccess, PermissionDenied, AuthenticatedUser> =>
  Effect.flatMap(AuthenticatedUser, (access) =>
    access.isIdentityProviderAdmin(identityProviderId ?? access.user.identityProviderId)
      ? Effect.succeed(access)
      : Effect.fail(new PermissionDenied({ reason: "the ParticipantAdmin or IdentityProviderAdmin right is required" }))
  )

/** A request's userId, when given, must be the authenticated user (unless an admin sends it). */
export const requireMatchingUser = (userId: string | undefined): Effect.Effect<UserAccess, PermissionDenied, AuthenticatedUser> =>
  Effect.flatMap(AuthenticatedUser, (access) =>
    userId === undefined || userId === "" || userId === access.user.id || access.isParticipantAdmin
      ? Effect.succeed(access)
      : Effect.fail(new PermissionDenied({ reason: `userId "${userId}" is not the authenticated user "${access.user.id}"` }))
  )

// ---------------------------------------------------------------------------------------------
// Error mapping
// ---------------------------------------------------------------------------------------------

/** An invalid body field: 400 text/plain naming it. */
export const invalidBody = (field: string, message: string): InvalidRequest =>
  new InvalidRequest({ location: "body", detail: `${field}: ${message}` })

export const fromInvalidArgument = (error: InvalidArgument): InvalidRequest => invalidBody(error.field, error.message)

export const updateNotFound = (error: LedgerApi.UpdateNotFound): LedgerApiError =>
  new LedgerApiError({
    code: "UPDATE_NOT_FOUND",
    category: "InvalidGivenCurrentSystemStateResourceMissing",
    cause: error.message,
    resources: error.updateId !== undefined ? [["UPDATE_ID", error.updateId]] : [["OFFSET", String(error.offset)]]
  })

export const offsetAfterLedgerEnd = (error: LedgerApi.OffsetAfterLedgerEnd): LedgerApiError =>
  new LedgerApiError({
    code: "OFFSET_AFTER_LEDGER_END",
    category: "InvalidGivenCurrentSystemStateSeekAfterEnd",
    cause: error.message,
    context: { field: error.field, offset: String(error.offset), ledgerEnd: String(error.ledgerEnd) }
  })

export const fromResolution = (error: LedgerApi.FilterResolutionError): HandlerError => {
  switch (error._tag) {
    case "InvalidArgument":
      return fromInvalidArgument(error)
    case "TemplatesOrInterfacesNotFound":
      return new LedgerApiError({
        code: "TEMPLATES_OR_INTERFACES_NOT_FOUND",
        category: "InvalidGivenCurrentSystemStateResourceMissing",
        cause: error.message,
        resources: error.references.map((r) => ["TEMPLATE_ID", r] as const)
      })
    case "PackageNamesNotFound":
      return new LedgerApiError({
        code: "PACKAGE_NAMES_NOT_FOUND",
        category: "InvalidGivenCurrentSystemStateResourceMissing",
        cause: error.message,
        resources: error.names.map((n) => ["PACKAGE_NAME", n] as const)
      })
  }
}

const COMMAND_CATEGORIES: Record<string, string> = {
  DUPLICATE_COMMAND: "InvalidGivenCurrentSystemStateResourceExists",
  SUBMISSION_ALREADY_IN_FLIGHT: "ContentionOnSharedResources",
  NOT_SEQUENCED_TIMEOUT: "ContentionOnSharedResources",
  LOCAL_VERDICT_TIMEOUT: "ContentionOnSharedResources",
  MEDIATOR_SAYS_TX_TIMED_OUT: "ContentionOnSharedResources",
  LOCAL_VERDICT_LOCKED_CONTRACTS: "ContentionOnSharedResources",
  LOCAL_VERDICT_INACTIVE_CONTRACTS: "InvalidGivenCurrentSystemStateResourceMissing",
  LOCAL_VERDICT_DUPLICATE_UPDATE_ID: "InvalidGivenCurrentSystemStateResourceExists",
  PARTY_NOT_KNOWN_ON_LEDGER: "InvalidGivenCurrentSystemStateResourceMissing",
  SEQUENCER_TRAFFIC_EXCEEDED: "ContentionOnSharedResources",
  NO_SYNCHRONIZER_FOR_SUBMISSION: "InvalidGivenCurrentSystemStateOther",
  INVALID_ARGUMENT: "InvalidIndependentOfSystemState"
}

/** A command the engine refused, or one that completed with a failure, with its Canton code. */
export const commandFailed = (code: string, cause: string, context: Record<string, string> = {}): LedgerApiError =>
  new LedgerApiError({ code, category: COMMAND_CATEGORIES[code] ?? "InvalidGivenCurrentSystemStateOther", cause, context })

export const fromCommandRejected = (error: CommandRejected): LedgerApiError => commandFailed(error.code, error.message)

/**
 * Interpretation errors with the codes of Canton's command execution errors: CONTRACT_NOT_FOUND
 * (404), DAML_AUTHORIZATION_ERROR (400), DAML_INTERPRETATION_ERROR for a failed precondition or
 * `fail` in a choice (400), TEMPLATES_OR_INTERFACES_NOT_FOUND (404), an unknown choice 400.
 */
export const fromInterpretation = (error: InterpretationError): HandlerError => {
  switch (error._tag) {
    case "ContractNotFound":
    case "TemplateNotFound":
      return error
    case "ContractNotActive":
      return new LedgerApiError({
        code: "CONTRACT_NOT_FOUND",
        category: "InvalidGivenCurrentSystemStateResourceMissing",
        cause: `Contract could not be found with id ${error.contractId}: ${error.reason}`,
        resources: [["CONTRACT_ID", error.contractId]]
      })
    case "ChoiceNotFound":
      return invalidBody("commands", `template ${error.templateId} has no choice ${error.choice}`)
    case "ContractDoesNotImplementInterface":
      return new LedgerApiError({
        code: "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE",
        category: "InvalidIndependentOfSystemState",
        cause: `Interpretation error: Error: ${error.message}`,
        resources: [
          ["CONTRACT_ID", error.contractId],
          ["TEMPLATE_ID", error.templateId],
          ["INTERFACE_ID", error.interfaceId]
        ]
      })
    case "AuthorizationFailed":
      return new LedgerApiError({
        code: "DAML_AUTHORIZATION_ERROR",
        category: "InvalidIndependentOfSystemState",
        cause: `Interpretation error: Error: ${error.message}`,
        context: { missing: error.missing.join(",") }
      })
    case "ChoiceFailed":
      return new LedgerApiError({
        code: "DAML_INTERPRETATION_ERROR",
        category: "InvalidGivenCurrentSystemStateOther",
        cause: `Interpretation error: Error: ${error.templateId === "" ? "" : `${error.templateId} `}${error.choice}: ${error.message}`,
        context: { templateId: error.templateId, choice: error.choice }
      })
  }
}

export const fromPackageError = (error: Packages.PackageUploadError): LedgerApiError => {
  const body = Packages.packageErrorBody(error)
  // A Daml-LF package (a user's own DAR) is well formed but not executable here: 501, not 400.
  const category = error._tag === "DamlLfNotExecuted" ? "InternalUnsupportedOperation" : "InvalidIndependentOfSystemState"
  return new LedgerApiError({ code: body.code, category, cause: body.cause })
}

/** External-party errors: invalid values are 400 text/plain; signature problems keep Canton's codes. */
export const fromExternalError = (
  error:
    | External.AllocationError
    | InvalidArgument
    | External.PreparedTransactionNotAuthorized
    | External.UnsupportedSignatureFormat
    | External.MalformedSignature
): HandlerError => {
  switch (error._tag) {
    case "InvalidArgument":
      return fromInvalidArgument(error)
    case "UnknownSigningKey":
    case "InvalidSignature":
      return new LedgerApiError({ code: error.code, category: "SecurityAlert", cause: error.message, context: { field: error.field } })
    case "MissingSignature":
      return new LedgerApiError({ code: error.code, category: "SecurityAlert", cause: error.message, context: { field: error.field } })
    case "PreparedTransactionNotAuthorized":
      return new LedgerApiError({
        code: "INVALID_ARGUMENT",
        category: "InvalidIndependentOfSystemState",
        cause: `The submission is not authorized: ${error.message}`,
        context: { field: error.field, hash: error.hash }
      })
    default:
      return invalidBody(error.field, error.message.startsWith(`${error.field}: `) ? error.message.slice(error.field.length + 2) : error.message)
  }
}

export const partyExists = (error: PartyAlreadyExists): LedgerApiError =>
  new LedgerApiError({
    code: "PARTY_ALREADY_EXISTS",
    category: "InvalidGivenCurrentSystemStateResourceExists",
    cause: `Party already exists: party ${error.party} is already allocated on this node`,
    resources: [["PARTY", error.party]]
  })

export { orFail }

export { InvalidArgument }

/** A list form's answer would exceed the node's list limit (`maxListElements`): 413, as Canton answers. */
export const tooManyElements = (count: number, limit: number) =>
  new LedgerApiError({
    code: "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
    category: "ContentionOnSharedResources",
    cause: `The number of matching elements (${count}) is greater than the node limit (${limit}).`,
    status: 413
  })
