/**
 * Errors and their answers, per surface.
 *
 * - scan, wallet, registry answer `{ "error": "<message>" }` with an HTTP status;
 * - ledger answers 400 as `text/plain` naming what was invalid (`Invalid value for: body (...)`,
 *   `... path parameter user-id (...)`, `... query parameter pageSize (...)`), and every other
 *   failure as the standard error body (`JsCantonError`) with the real system's error code,
 *   error category and gRPC code; its HTTP status follows from the gRPC code as in Canton's
 *   `GrpcHttpErrorCodes`.
 *
 * `describe` maps every tagged error a handler may fail with onto both shapes; `renderFailure`
 * picks the shape of a surface. See docs/auth.md (section "Errors") for the table.
 */
import {
  AuthorizationFailed,
  ChoiceFailed,
  ChoiceNotFound,
  ContractNotActive,
  ContractNotFound,
  InvalidArgument,
  PartyNotFound,
  TemplateNotFound,
  TransactionRejected
} from "@sandnet/core"
import { HttpServerResponse } from "@effect/platform"
import type { ScanApi } from "@sandnet/engine"
import { Cause, Schema } from "effect"
import { Admin } from "./engine-admin.ts"

export type SurfaceName = "scan" | "wallet" | "registry" | "ledger"

// ---------------------------------------------------------------------------------------------
// Errors raised by the HTTP layer itself
// ---------------------------------------------------------------------------------------------

export const RequestLocation = Schema.Literal("body", "path parameter", "query parameter", "header")
export type RequestLocation = typeof RequestLocation.Type

/** A request that cannot be decoded: malformed JSON, a wrong type, a missing or invalid field. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  location: RequestLocation,
  /** Name of the path or query parameter or header; absent for the body. */
  parameter: Schema.optional(Schema.String),
  detail: Schema.String
}) {
  override get message() {
    return `Invalid value for: ${this.location}${this.parameter === undefined ? "" : ` ${this.parameter}`} (${this.detail})`
  }

  /** An engine-level InvalidArgument, placed where the client sent the field. */
  static fromArgument(error: InvalidArgument, location: RequestLocation = "body", parameter?: string): InvalidRequest {
    const detail = location === "body" ? `${error.field}: ${error.message}` : error.message
    return new InvalidRequest({ location, ...(parameter === undefined ? {} : { parameter }), detail })
  }
}

/** The body is larger than the node accepts (`maxRequestBytes`). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  limit: Schema.Number
}) {
  override get message() {
    return `request body exceeds the limit of ${this.limit} bytes`
  }
}

export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", {
  method: Schema.String,
  path: Schema.String
}) {
  override get message() {
    return `no route for ${this.method} ${this.path}`
  }
}

/** The request's header section is larger than the HTTP server accepts (Node's limit): 431. */
export class RequestHeadersTooLarge extends Schema.TaggedError<RequestHeadersTooLarge>()("RequestHeadersTooLarge", {}) {
  override get message() {
    return "the request's header fields are too large"
  }
}

/** A request the HTTP parser refuses (a broken request line or header): 400. */
export class MalformedHttpRequest extends Schema.TaggedError<MalformedHttpRequest>()("MalformedHttpRequest", {
  reason: Schema.String
}) {
  override get message() {
    return `malformed HTTP request: ${this.reason}`
  }
}

/** An endpoint of the reference that Sandnet does not serve (yet). */
export class NotImplemented extends Schema.TaggedError<NotImplemented>()("NotImplemented", {
  operation: Schema.String
}) {
  override get message() {
    return `${this.operation} is not implemented by this node`
  }
}

/** No token, or a token that does not verify: 401. `reason` says which check failed. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  reason: Schema.String
}) {
  override get message() {
    return `The command is missing a (valid) JWT token: ${this.reason}`
  }
}

/** A valid token whose user lacks a right (or is deactivated / unknown): 403. */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", {
  reason: Schema.String
}) {
  override get message() {
    return `The provided authorization token is not sufficient to authorize the intended command: ${this.reason}`
  }
}

/**
 * A ledger API error with Canton's code and category, for errors that have no tagged error of
 * their own here (UPDATE_NOT_FOUND, DAR errors, external-party signature errors, ...). `status`
 * overrides the HTTP status the category gives (e.g. 413 for JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED).
 */
export class LedgerApiError extends Schema.TaggedError<LedgerApiError>()("LedgerApiError", {
  code: Schema.String,
  /** A key of ErrorCategories. */
  category: Schema.String,
  cause: Schema.String,
  context: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  resources: Schema.optional(Schema.Array(Schema.Tuple(Schema.String, Schema.String))),
  status: Schema.optional(Schema.Number),
  /** Fields the `{error}` surfaces add to their body (e.g. the wallet's 409 `transfer_preapproval_contract_id`). */
  fields: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}) {
  override get message() {
    return this.cause
  }
}

export type HttpError =
  | InvalidRequest
  | PayloadTooLarge
  | RouteNotFound
  | RequestHeadersTooLarge
  | MalformedHttpRequest
  | NotImplemented
  | Unauthenticated
  | PermissionDenied
  | LedgerApiError

export type CoreError =
  | InvalidArgument
  | ContractNotFound
  | ContractNotActive
  | TemplateNotFound
  | ChoiceNotFound
  | AuthorizationFailed
  | ChoiceFailed
  | PartyNotFound
  | TransactionRejected

/** Everything a surface handler may fail with; each has an answer on every surface. */
export type HandlerError = HttpError | CoreError | Admin.AdminError | ScanApi.ScanReadError

// ---------------------------------------------------------------------------------------------
// Canton error categories (com.daml.error.ErrorCategory) and the HTTP status of a gRPC code
// ---------------------------------------------------------------------------------------------

export interface ErrorCategory {
  readonly name: string
  readonly id: number
  /** gRPC status code; undefined for categories never sent on the API. */
  readonly grpc: number | undefined
  /** Default retry hint, printed like Scala's Duration. */
  readonly retry?: string
}

export const ErrorCategories = {
  TransientServerFailure: { name: "TransientServerFailure", id: 1, grpc: 14, retry: "1 second" },
  ContentionOnSharedResources: { name: "ContentionOnSharedResources", id: 2, grpc: 10, retry: "1 second" },
  DeadlineExceededRequestStateUnknown: { name: "DeadlineExceededRequestStateUnknown", id: 3, grpc: 4, retry: "1 second" },
  SystemInternalAssumptionViolated: { name: "SystemInternalAssumptionViolated", id: 4, grpc: 13 },
  SecurityAlert: { name: "SecurityAlert", id: 5, grpc: 3 },
  AuthInterceptorInvalidAuthenticationCredentials: {
    name: "AuthInterceptorInvalidAuthenticationCredentials",
    id: 6,
    grpc: 16
  },
  InsufficientPermission: { name: "InsufficientPermission", id: 7, grpc: 7 },
  InvalidIndependentOfSystemState: { name: "InvalidIndependentOfSystemState", id: 8, grpc: 3 },
  InvalidGivenCurrentSystemStateOther: { name: "InvalidGivenCurrentSystemStateOther", id: 9, grpc: 9 },
  InvalidGivenCurrentSystemStateResourceExists: {
    name: "InvalidGivenCurrentSystemStateResourceExists",
    id: 10,
    grpc: 6
  },
  InvalidGivenCurrentSystemStateResourceMissing: {
    name: "InvalidGivenCurrentSystemStateResourceMissing",
    id: 11,
    grpc: 5
  },
  InvalidGivenCurrentSystemStateSeekAfterEnd: { name: "InvalidGivenCurrentSystemStateSeekAfterEnd", id: 12, grpc: 11 },
  BackgroundProcessDegradationWarning: { name: "BackgroundProcessDegradationWarning", id: 13, grpc: undefined },
  InternalUnsupportedOperation: { name: "InternalUnsupportedOperation", id: 14, grpc: 12 }
} as const satisfies Record<string, ErrorCategory>

/** Canton's GrpcHttpErrorCodes: the HTTP status the JSON API gives a gRPC status code. */
export const httpStatusOfGrpc = (grpc: number | undefined): number => {
  switch (grpc) {
    case 3: // INVALID_ARGUMENT
    case 9: // FAILED_PRECONDITION
    case 11: // OUT_OF_RANGE
      return 400
    case 16: // UNAUTHENTICATED
      return 401
    case 7: // PERMISSION_DENIED
      return 403
    case 5: // NOT_FOUND
      return 404
    case 10: // ABORTED
    case 6: // ALREADY_EXISTS
      return 409
    case 8: // RESOURCE_EXHAUSTED
      return 429
    case 1: // CANCELLED
      return 499
    case 12: // UNIMPLEMENTED
      return 501
    case 14: // UNAVAILABLE
      return 503
    case 4: // DEADLINE_EXCEEDED
      return 504
    default: // INTERNAL, UNKNOWN, DATA_LOSS
      return 500
  }
}

// ---------------------------------------------------------------------------------------------
// Response shapes (also used by the OpenAPI documents)
// ---------------------------------------------------------------------------------------------

/** The `{error}` body of scan, wallet and registry. */
export const ErrorResponse = Schema.Struct({ error: Schema.String }).annotations({
  identifier: "ErrorResponse",
  description: "Error body of the scan, wallet and registry surfaces"
})

/** The ledger's standard error body. Absent optional values are left out (upstream's schema: optional, not nullable). */
export const JsCantonError = Schema.Struct({
  code: Schema.String,
  cause: Schema.String,
  correlationId: Schema.optional(Schema.String),
  traceId: Schema.optional(Schema.String),
  context: Schema.Record({ key: Schema.String, value: Schema.String }),
  resources: Schema.Array(Schema.Tuple(Schema.String, Schema.String)),
  errorCategory: Schema.Int,
  grpcCodeValue: Schema.optional(Schema.Int),
  retryInfo: Schema.optional(Schema.String),
  definiteAnswer: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "JsCantonError" })
export type JsCantonError = typeof JsCantonError.Type

// ---------------------------------------------------------------------------------------------
// describe: one error, both shapes
// ---------------------------------------------------------------------------------------------

export interface StandardError {
  readonly _tag: "Standard"
  readonly code: string
  readonly category: ErrorCategory
  readonly cause: string
  readonly context?: Readonly<Record<string, string>>
  readonly resources?: ReadonlyArray<readonly [string, string]>
  /** Overrides the HTTP status of the category's gRPC code. */
  readonly status?: number
}

/** How the ledger answers: 400 text/plain for invalid values, the standard body otherwise. */
export type LedgerAnswer = { readonly _tag: "InvalidValue"; readonly text: string } | StandardError

export interface Described {
  /** Status of the `{error}` surfaces. */
  readonly status: number
  readonly message: string
  readonly ledger: LedgerAnswer
  /** Further fields of the `{error}` body (next to `error`). */
  readonly fields?: Readonly<Record<string, string>>
}

const C = ErrorCategories

const standard = (
  code: string,
  category: ErrorCategory,
  cause: string,
  extra: { context?: Record<string, string>; resources?: ReadonlyArray<readonly [string, string]> } = {}
): StandardError => ({ _tag: "Standard", code, category, cause, ...extra })

const invalidValue = (text: string): LedgerAnswer => ({ _tag: "InvalidValue", text })

const isCategoryName = (name: string): name is keyof typeof ErrorCategories =>
  Object.prototype.hasOwnProperty.call(ErrorCategories, name)

/**
 * Codes that engine errors carry in a `code` field (e.g. the engine's CommandRejected), with their
 * category. Unknown codes fall back to InvalidGivenCurrentSystemStateOther.
 */
export const ledgerCodeCategories: Record<string, ErrorCategory> = {
  DUPLICATE_COMMAND: C.InvalidGivenCurrentSystemStateResourceExists,
  SUBMISSION_ALREADY_IN_FLIGHT: C.ContentionOnSharedResources,
  NOT_SEQUENCED_TIMEOUT: C.ContentionOnSharedResources,
  LOCAL_VERDICT_TIMEOUT: C.ContentionOnSharedResources,
  MEDIATOR_SAYS_TX_TIMED_OUT: C.ContentionOnSharedResources,
  LOCAL_VERDICT_LOCKED_CONTRACTS: C.ContentionOnSharedResources,
  LOCAL_VERDICT_INACTIVE_CONTRACTS: C.InvalidGivenCurrentSystemStateResourceMissing,
  PARTY_NOT_KNOWN_ON_LEDGER: C.InvalidGivenCurrentSystemStateResourceMissing,
  UPDATE_NOT_FOUND: C.InvalidGivenCurrentSystemStateResourceMissing,
  CONTRACT_NOT_FOUND: C.InvalidGivenCurrentSystemStateResourceMissing,
  SEQUENCER_TRAFFIC_EXCEEDED: C.ContentionOnSharedResources,
  NO_SYNCHRONIZER_FOR_SUBMISSION: C.InvalidGivenCurrentSystemStateOther
}

const fromCategory = (answer: StandardError, message: string): Described => ({
  status: answer.status ?? httpStatusOfGrpc(answer.category.grpc),
  message,
  ledger: answer
})

/** Maps a handler failure onto both answer shapes. */
export const describe = (error: HandlerError): Described => {
  switch (error._tag) {
    // HTTP layer
    case "InvalidRequest":
      return { status: 400, message: error.message, ledger: invalidValue(error.message) }
    case "PayloadTooLarge":
      // The ledger answers every invalid body with 400 text/plain; the other surfaces say 413.
      return { status: 413, message: error.message, ledger: invalidValue(`Invalid value for: body (${error.message})`) }
    case "RouteNotFound":
      return fromCategory(
        standard("ROUTE_NOT_FOUND", C.InvalidGivenCurrentSystemStateResourceMissing, error.message, {
          context: { method: error.method, path: error.path }
        }),
        error.message
      )
    case "RequestHeadersTooLarge":
      return fromCategory(
        { ...standard("REQUEST_HEADERS_TOO_LARGE", C.InvalidIndependentOfSystemState, error.message), status: 431 },
        error.message
      )
    case "MalformedHttpRequest":
      return fromCategory(
        standard("MALFORMED_HTTP_REQUEST", C.InvalidIndependentOfSystemState, error.message, { context: { reason: error.reason } }),
        error.message
      )
    case "NotImplemented":
      return fromCategory(
        standard("UNSUPPORTED_OPERATION", C.InternalUnsupportedOperation, error.message, {
          context: { operation: error.operation }
        }),
        error.message
      )
    case "Unauthenticated":
      return fromCategory(
        standard("UNAUTHENTICATED", C.AuthInterceptorInvalidAuthenticationCredentials, "The command is missing a (valid) JWT token", {
          context: { reason: error.reason }
        }),
        error.message
      )
    case "PermissionDenied":
      return fromCategory(standard("PERMISSION_DENIED", C.InsufficientPermission, error.message), error.message)
    case "LedgerApiError": {
      const category = isCategoryName(error.category) ? C[error.category] : C.SystemInternalAssumptionViolated
      const answer = standard(error.code, category, error.cause, {
        ...(error.context === undefined ? {} : { context: error.context }),
        ...(error.resources === undefined ? {} : { resources: error.resources })
      })
      const described = fromCategory(error.status === undefined ? answer : { ...answer, status: error.status }, error.message)
      return error.fields === undefined ? described : { ...described, fields: error.fields }
    }

    // @sandnet/core
    case "InvalidArgument":
      return describe(InvalidRequest.fromArgument(error))
    case "ContractNotFound":
      return fromCategory(
        standard("CONTRACT_NOT_FOUND", C.InvalidGivenCurrentSystemStateResourceMissing, error.message, {
          resources: [["CONTRACT_ID", error.contractId]]
        }),
        error.message
      )
    case "ContractNotActive": {
      const answer = standard("CONTRACT_NOT_ACTIVE", C.InvalidGivenCurrentSystemStateResourceMissing, error.message, {
        resources: [["CONTRACT_ID", error.contractId]]
      })
      // For the {error} surfaces an archived or in-flight contract is a conflict (registry: 409).
      return { status: 409, message: error.message, ledger: answer }
    }
    case "TemplateNotFound": {
      const message = `template ${error.templateId} not found: Sandnet has only its own templates and does not execute Daml-LF (templates of your own DARs cannot be used)`
      return fromCategory(
        standard("TEMPLATES_OR_INTERFACES_NOT_FOUND", C.InvalidGivenCurrentSystemStateResourceMissing, message, {
          resources: [["TEMPLATE_ID", error.templateId]]
        }),
        message
      )
    }
    case "ChoiceNotFound": {
      const message = `template ${error.templateId} has no choice ${error.choice}`
      return describe(new InvalidRequest({ location: "body", detail: message }))
    }
    case "AuthorizationFailed":
      return describe(new InvalidRequest({ location: "body", detail: `DAML_AUTHORIZATION_ERROR: ${error.message}` }))
    case "ChoiceFailed":
      return fromCategory(
        standard("DAML_FAILURE", C.InvalidGivenCurrentSystemStateOther, error.message, {
          context: { templateId: error.templateId, choice: error.choice }
        }),
        error.message
      )
    case "PartyNotFound": {
      const message = `party ${error.party} is not known on the ledger`
      return fromCategory(
        standard("PARTY_NOT_KNOWN_ON_LEDGER", C.InvalidGivenCurrentSystemStateResourceMissing, message, {
          resources: [["PARTY", error.party]]
        }),
        message
      )
    }
    case "TransactionRejected": {
      const message = `transaction ${error.updateId} was rejected: ${error.reason}`
      return fromCategory(
        standard("TRANSACTION_REJECTED", C.InvalidGivenCurrentSystemStateOther, message, {
          context: { updateId: error.updateId }
        }),
        message
      )
    }

    // user management and identity providers
    case "UserNotFound":
      return fromCategory(
        standard("USER_NOT_FOUND", C.InvalidGivenCurrentSystemStateResourceMissing, error.message, {
          resources: [["USER_ID", error.userId]]
        }),
        error.message
      )
    case "UserAlreadyExists":
      return fromCategory(
        standard("USER_ALREADY_EXISTS", C.InvalidGivenCurrentSystemStateResourceExists, error.message, {
          resources: [["USER_ID", error.userId]]
        }),
        error.message
      )
    case "TooManyUserRights":
      return fromCategory(
        standard("TOO_MANY_USER_RIGHTS", C.InvalidGivenCurrentSystemStateOther, error.message, {
          resources: [["USER_ID", error.userId]]
        }),
        error.message
      )
    case "ConcurrentUserUpdate":
      return fromCategory(
        standard("CONCURRENT_USER_UPDATE_DETECTED", C.ContentionOnSharedResources, error.message, {
          resources: [["USER_ID", error.userId]]
        }),
        error.message
      )
    case "UserAnnotationsTooLarge":
      return fromCategory(
        standard("MAX_USER_ANNOTATIONS_SIZE_EXCEEDED", C.InvalidGivenCurrentSystemStateOther, error.message, {
          resources: [["USER_ID", error.userId]]
        }),
        error.message
      )
    case "IdentityProviderConfigNotFound":
      return fromCategory(
        standard("IDP_CONFIG_NOT_FOUND", C.InvalidGivenCurrentSystemStateResourceMissing, error.message, {
          resources: [["IDENTITY_PROVIDER_CONFIG", error.identityProviderId]]
        }),
        error.message
      )
    case "IdentityProviderConfigAlreadyExists":
      return fromCategory(
        standard("IDP_CONFIG_ALREADY_EXISTS", C.InvalidGivenCurrentSystemStateResourceExists, error.message, {
          resources: [["IDENTITY_PROVIDER_CONFIG", error.identityProviderId]]
        }),
        error.message
      )
    case "IdentityProviderIssuerAlreadyExists":
      return fromCategory(
        standard("IDP_CONFIG_ISSUER_ALREADY_EXISTS", C.InvalidGivenCurrentSystemStateResourceExists, error.message, {
          resources: [["IDENTITY_PROVIDER_CONFIG", error.issuer]]
        }),
        error.message
      )
    case "TooManyIdentityProviderConfigs":
      return fromCategory(
        standard("TOO_MANY_IDENTITY_PROVIDER_CONFIGS", C.InvalidGivenCurrentSystemStateOther, error.message, {
          context: { max: String(error.max) }
        }),
        error.message
      )

    case "PartyRecordPartyNotFound":
      return fromCategory(
        standard("PARTY_NOT_FOUND", C.InvalidGivenCurrentSystemStateResourceMissing, error.message, {
          resources: [["PARTY", error.party]]
        }),
        error.message
      )
    case "InvalidPartyDetailsUpdate":
      return fromCategory(
        standard("INVALID_UPDATE_PARTY_DETAILS_REQUEST", C.InvalidIndependentOfSystemState, error.message, {
          resources: [["PARTY", error.party]]
        }),
        error.message
      )
    case "ConcurrentPartyDetailsUpdate":
      return fromCategory(
        standard("CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED", C.ContentionOnSharedResources, error.message, {
          resources: [["PARTY", error.party]]
        }),
        error.message
      )
    case "PartyAnnotationsTooLarge":
      return fromCategory(
        standard("MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED", C.InvalidGivenCurrentSystemStateOther, error.message, {
          resources: [["PARTY", error.party]]
        }),
        error.message
      )
    case "PartyInOtherIdentityProvider":
      return fromCategory(standard("PERMISSION_DENIED", C.InsufficientPermission, error.message), error.message)

    // scan and registry reads (@sandnet/engine ScanApi): not found
    case "UpdateNotFound":
    case "DsoContractNotFound":
    case "TransferPreapprovalNotFound":
    case "VoteRequestNotFound":
    case "TransferInstructionNotFound":
    case "AllocationNotFound":
    case "LockedHoldingNotFound":
    case "AcsSnapshotNotFound":
    case "AcsSnapshotNotTakenAt":
    case "BulkObjectNotFound":
    case "InstrumentNotFound":
    case "MemberTrafficNotFound":
      return fromCategory(standard(error.code, C.InvalidGivenCurrentSystemStateResourceMissing, error.message), error.message)
  }
}

/** An error that is not a HandlerError but carries a Canton `code` (e.g. engine CommandRejected). */
const describeCoded = (error: { readonly code: string; readonly message: string }): Described => {
  const category = ledgerCodeCategories[error.code] ?? C.InvalidGivenCurrentSystemStateOther
  return fromCategory(standard(error.code, category, error.message), error.message)
}

const INTERNAL: Described = {
  status: 500,
  message: "internal error",
  ledger: standard(
    "LEDGER_API_INTERNAL_ERROR",
    C.SystemInternalAssumptionViolated,
    "An error occurred. Please contact the operator and inquire about the request"
  )
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** Every tag `describe` answers; a missing or extra key is a compile error. */
const HANDLED_TAGS: Readonly<Record<HandlerError["_tag"], true>> = {
  InvalidRequest: true,
  PayloadTooLarge: true,
  RouteNotFound: true,
  RequestHeadersTooLarge: true,
  MalformedHttpRequest: true,
  NotImplemented: true,
  Unauthenticated: true,
  PermissionDenied: true,
  LedgerApiError: true,
  InvalidArgument: true,
  ContractNotFound: true,
  ContractNotActive: true,
  TemplateNotFound: true,
  ChoiceNotFound: true,
  AuthorizationFailed: true,
  ChoiceFailed: true,
  PartyNotFound: true,
  TransactionRejected: true,
  UserNotFound: true,
  UserAlreadyExists: true,
  TooManyUserRights: true,
  ConcurrentUserUpdate: true,
  UserAnnotationsTooLarge: true,
  IdentityProviderConfigNotFound: true,
  IdentityProviderConfigAlreadyExists: true,
  IdentityProviderIssuerAlreadyExists: true,
  TooManyIdentityProviderConfigs: true,
  PartyRecordPartyNotFound: true,
  InvalidPartyDetailsUpdate: true,
  ConcurrentPartyDetailsUpdate: true,
  PartyAnnotationsTooLarge: true,
  PartyInOtherIdentityProvider: true,
  UpdateNotFound: true,
  DsoContractNotFound: true,
  TransferPreapprovalNotFound: true,
  VoteRequestNotFound: true,
  TransferInstructionNotFound: true,
  AllocationNotFound: true,
  LockedHoldingNotFound: true,
  AcsSnapshotNotFound: true,
  AcsSnapshotNotTakenAt: true,
  BulkObjectNotFound: true,
  InstrumentNotFound: true,
  MemberTrafficNotFound: true
}

const isHandledTag = (tag: string): tag is HandlerError["_tag"] => Object.prototype.hasOwnProperty.call(HANDLED_TAGS, tag)

/** Describes any failure value: known tagged errors, coded errors, anything else is internal. */
export const describeUnknown = (error: unknown): Described => {
  if (isRecord(error) && typeof error["_tag"] === "string" && isHandledTag(error["_tag"])) {
    return describe(error as unknown as HandlerError)
  }
  if (isRecord(error) && typeof error["code"] === "string" && typeof error["message"] === "string") {
    return describeCoded({ code: error["code"], message: error["message"] })
  }
  return INTERNAL
}

/** Describes a failed request's cause; defects and interruptions are internal errors. */
export const describeCause = (cause: Cause.Cause<unknown>): Described => {
  const failure = Cause.failureOption(cause)
  return failure._tag === "Some" ? describeUnknown(failure.value) : INTERNAL
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

export const toJsCantonError = (error: StandardError): JsCantonError => ({
  code: error.code,
  cause: error.cause,
  context: { category: String(error.category.id), definite_answer: "false", ...error.context },
  resources: (error.resources ?? []).map(([k, v]) => [k, v] as const),
  errorCategory: error.category.id,
  ...(error.category.grpc === undefined ? {} : { grpcCodeValue: error.category.grpc }),
  ...("retry" in error.category && error.category.retry !== undefined ? { retryInfo: error.category.retry } : {}),
  definiteAnswer: false
})

/** A described failure as plain status, content type and body text (also for answers written to a raw socket). */
export interface RenderedError {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

/**
 * The answer of a described failure on a surface; `undefined` (outside every surface) answers in
 * the `{error}` shape.
 */
export const renderText = (surface: SurfaceName | undefined, described: Described): RenderedError => {
  if (surface !== "ledger") {
    return { status: described.status, contentType: "application/json", body: JSON.stringify({ error: described.message, ...described.fields }) }
  }
  const answer = described.ledger
  if (answer._tag === "InvalidValue") return { status: 400, contentType: "text/plain; charset=utf-8", body: answer.text }
  return { status: answer.status ?? httpStatusOfGrpc(answer.category.grpc), contentType: "application/json", body: JSON.stringify(toJsCantonError(answer)) }
}

/** The response of a described failure on a surface. */
export const render = (surface: SurfaceName | undefined, described: Described): HttpServerResponse.HttpServerResponse => {
  const { status, contentType, body } = renderText(surface, described)
  return HttpServerResponse.text(body, { status, contentType })
}

/** Maps a tagged domain error onto a surface's response (the function handlers and tests use). */
export const errorResponse = (surface: SurfaceName, error: HandlerError): HttpServerResponse.HttpServerResponse =>
  render(surface, describe(error))
