/**
 * JSON request shapes of the ledger surface's engine endpoints (canton-json-api-v2.yaml, 3.5) and
 * their conversions into the engine's: formats and filters (LedgerApi.UpdateFormat, EventFormat,
 * TransactionFormat), the update stream's request, commands and disclosed contracts. Responses
 * are encoding.ts.
 */
import type { Json, JsonObject } from "@sandnet/core"
import { LedgerApi, type Command } from "@sandnet/engine"
import { Either, Schema } from "effect"
import { InvalidRequest, LedgerApiError } from "../errors.ts"
import { invalidBody } from "./context.ts"

// =============================================================================================
// Requests: formats and filters
// =============================================================================================

const Offset = Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "non-negative int64 offset" })
export const Parties = Schema.Array(Schema.String)

export const TemplateFilterValue = Schema.Struct({
  templateId: Schema.String,
  includeCreatedEventBlob: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "TemplateFilter1", title: "TemplateFilter" })
export const InterfaceFilterValue = Schema.Struct({
  interfaceId: Schema.String,
  includeInterfaceView: Schema.optional(Schema.Boolean),
  includeCreatedEventBlob: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "InterfaceFilter1", title: "InterfaceFilter" })
export const WildcardFilterValue = Schema.Struct({
  includeCreatedEventBlob: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "WildcardFilter1", title: "WildcardFilter" })

export const IdentifierFilter = Schema.Union(
  Schema.Struct({ Empty: Schema.Struct({}) }),
  Schema.Struct({ InterfaceFilter: Schema.Struct({ value: InterfaceFilterValue }) }),
  Schema.Struct({ TemplateFilter: Schema.Struct({ value: TemplateFilterValue }) }),
  Schema.Struct({ WildcardFilter: Schema.Struct({ value: WildcardFilterValue }) })
).annotations({ identifier: "IdentifierFilter" })
export type IdentifierFilter = typeof IdentifierFilter.Type

export const CumulativeFilter = Schema.Struct({ identifierFilter: Schema.optional(IdentifierFilter) }).annotations({
  identifier: "CumulativeFilter"
})
export const Filters = Schema.Struct({ cumulative: Schema.optional(Schema.Array(CumulativeFilter)) }).annotations({
  identifier: "Filters"
})
export type Filters = typeof Filters.Type

export const EventFormat = Schema.Struct({
  filtersByParty: Schema.optional(Schema.Record({ key: Schema.String, value: Filters })),
  filtersForAnyParty: Schema.optional(Filters),
  verbose: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "EventFormat" })
export type EventFormat = typeof EventFormat.Type

export const TransactionShape = Schema.Literal(
  "TRANSACTION_SHAPE_UNSPECIFIED",
  "TRANSACTION_SHAPE_ACS_DELTA",
  "TRANSACTION_SHAPE_LEDGER_EFFECTS"
)
export const TransactionFormat = Schema.Struct({
  eventFormat: EventFormat,
  transactionShape: TransactionShape
}).annotations({ identifier: "TransactionFormat" })
export type TransactionFormat = typeof TransactionFormat.Type

export const TopologyFormat = Schema.Struct({
  includeParticipantAuthorizationEvents: Schema.optional(
    Schema.Struct({ parties: Schema.optional(Parties) }).annotations({ identifier: "ParticipantAuthorizationTopologyFormat" })
  )
}).annotations({ identifier: "TopologyFormat" })

export const UpdateFormat = Schema.Struct({
  includeTransactions: Schema.optional(TransactionFormat),
  includeReassignments: Schema.optional(EventFormat),
  includeTopologyEvents: Schema.optional(TopologyFormat)
}).annotations({ identifier: "UpdateFormat" })
export type UpdateFormat = typeof UpdateFormat.Type

export const TransactionFilter = Schema.Struct({
  filtersByParty: Schema.optional(Schema.Record({ key: Schema.String, value: Filters })),
  filtersForAnyParty: Schema.optional(Filters)
}).annotations({ identifier: "TransactionFilter" })
export type TransactionFilter = typeof TransactionFilter.Type

export const GetUpdatesRequest = Schema.Struct({
  beginExclusive: Offset,
  endInclusive: Schema.optional(Offset),
  filter: Schema.optional(TransactionFilter),
  verbose: Schema.optional(Schema.Boolean),
  updateFormat: Schema.optional(UpdateFormat),
  descendingOrder: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "GetUpdatesRequest" })
export type GetUpdatesRequest = typeof GetUpdatesRequest.Type

// ---------------------------------------------------------------------------------------------
// Request conversions
// ---------------------------------------------------------------------------------------------

const toIdentifierFilter = (
  filter: typeof CumulativeFilter.Type,
  field: string
): Either.Either<LedgerApi.IdentifierFilter, InvalidRequest> => {
  const id = filter.identifierFilter
  if (id === undefined || "Empty" in id) {
    return Either.left(invalidBody(`${field}.identifierFilter`, "must be one of WildcardFilter, TemplateFilter, InterfaceFilter"))
  }
  if ("WildcardFilter" in id) return Either.right({ _tag: "WildcardFilter", includeCreatedEventBlob: id.WildcardFilter.value.includeCreatedEventBlob ?? false })
  if ("TemplateFilter" in id) {
    return Either.right({
      _tag: "TemplateFilter",
      templateId: id.TemplateFilter.value.templateId,
      includeCreatedEventBlob: id.TemplateFilter.value.includeCreatedEventBlob ?? false
    })
  }
  return Either.right({
    _tag: "InterfaceFilter",
    interfaceId: id.InterfaceFilter.value.interfaceId,
    includeInterfaceView: id.InterfaceFilter.value.includeInterfaceView ?? false,
    includeCreatedEventBlob: id.InterfaceFilter.value.includeCreatedEventBlob ?? false
  })
}

const toFilters = (filters: Filters, field: string): Either.Either<LedgerApi.Filters, InvalidRequest> =>
  Either.map(
    Either.all((filters.cumulative ?? []).map((f, i) => toIdentifierFilter(f, `${field}.cumulative[${i}]`))),
    (cumulative) => ({ cumulative })
  )

/** Canton's bound on a party id (a LedgerString of at most 255 characters). */
export const MAX_PARTY_ID_LENGTH = 255

/** A request naming a party id longer than Canton allows: INVALID_ARGUMENT, as Canton's request validation answers. */
export const partyIdTooLong = (field: string, party: string): LedgerApiError =>
  new LedgerApiError({
    code: "INVALID_ARGUMENT",
    category: "InvalidIndependentOfSystemState",
    cause: `The submitted request has invalid arguments: ${field}: a party id has at most ${MAX_PARTY_ID_LENGTH} characters, this one ${party.length}`,
    context: { field }
  })

/** A request's error while it is turned into the engine's terms. */
export type RequestError = InvalidRequest | LedgerApiError

/** An EventFormat (or a deprecated TransactionFilter with its verbose flag) in the engine's terms. */
export const toEventFormat = (
  format: { readonly filtersByParty?: Readonly<Record<string, Filters>> | undefined; readonly filtersForAnyParty?: Filters | undefined },
  verbose: boolean,
  field: string
): Either.Either<LedgerApi.EventFormat, RequestError> =>
  Either.gen(function* () {
    const byParty: Array<readonly [string, LedgerApi.Filters]> = []
    for (const [party, filters] of Object.entries(format.filtersByParty ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (party === "") return yield* Either.left(invalidBody(`${field}.filtersByParty`, "a party id must not be empty"))
      if (party.length > MAX_PARTY_ID_LENGTH) return yield* Either.left(partyIdTooLong(`${field}.filtersByParty`, party))
      byParty.push([party, yield* toFilters(filters, `${field}.filtersByParty.${party}`)])
    }
    const any = format.filtersForAnyParty === undefined ? undefined : yield* toFilters(format.filtersForAnyParty, `${field}.filtersForAnyParty`)
    if (byParty.length === 0 && any === undefined) {
      return yield* Either.left(invalidBody(field, "filtersByParty or filtersForAnyParty must name what to read"))
    }
    return { filtersByParty: byParty, filtersForAnyParty: any, verbose }
  })

export const toTransactionFormat = (format: TransactionFormat, field: string): Either.Either<LedgerApi.TransactionFormat, RequestError> =>
  Either.gen(function* () {
    if (format.transactionShape === "TRANSACTION_SHAPE_UNSPECIFIED") {
      return yield* Either.left(invalidBody(`${field}.transactionShape`, "must be TRANSACTION_SHAPE_ACS_DELTA or TRANSACTION_SHAPE_LEDGER_EFFECTS"))
    }
    const eventFormat = yield* toEventFormat(format.eventFormat, format.eventFormat.verbose ?? false, `${field}.eventFormat`)
    return { eventFormat, shape: format.transactionShape === "TRANSACTION_SHAPE_ACS_DELTA" ? "ACS_DELTA" : "LEDGER_EFFECTS" }
  })

export const toUpdateFormat = (format: UpdateFormat, field: string): Either.Either<LedgerApi.UpdateFormat, RequestError> =>
  Either.gen(function* () {
    const transactions = format.includeTransactions === undefined ? undefined : yield* toTransactionFormat(format.includeTransactions, `${field}.includeTransactions`)
    const reassignments =
      format.includeReassignments === undefined
        ? undefined
        : yield* toEventFormat(format.includeReassignments, format.includeReassignments.verbose ?? false, `${field}.includeReassignments`)
    const topology = format.includeTopologyEvents?.includeParticipantAuthorizationEvents
    if (transactions === undefined && reassignments === undefined && topology === undefined) {
      return yield* Either.left(invalidBody(field, "at least one of includeTransactions, includeReassignments, includeTopologyEvents must be set"))
    }
    return { transactions, reassignments, topologyParties: topology === undefined ? undefined : [...(topology.parties ?? [])] }
  })

/**
 * The update format of a GetUpdatesRequest: `updateFormat`, or the deprecated `filter` + `verbose`
 * (transactions as ACS delta and reassignments of the filter's parties; no topology events, as
 * Canton's JSON API converts it), never both.
 */
export const updateFormatOfRequest = (
  request: { readonly filter?: TransactionFilter | undefined; readonly verbose?: boolean | undefined; readonly updateFormat?: UpdateFormat | undefined },
  options: { readonly trees?: boolean } = {}
): Either.Either<LedgerApi.UpdateFormat, RequestError> => {
  if (request.updateFormat !== undefined) {
    if (options.trees === true) return Either.left(invalidBody("updateFormat", "must be unset for transaction trees; use filter"))
    if (request.filter !== undefined) return Either.left(invalidBody("filter", "must be unset when updateFormat is set"))
    // Canton refuses only verbose: true next to updateFormat (the SDK sends verbose: false).
    if (request.verbose === true) return Either.left(invalidBody("verbose", "must be unset or false when updateFormat is set"))
    return toUpdateFormat(request.updateFormat, "updateFormat")
  }
  if (request.filter === undefined) return Either.left(invalidBody("updateFormat", "is missing (or the deprecated filter)"))
  return Either.map(toEventFormat(request.filter, request.verbose ?? false, "filter"), (eventFormat) => ({
    transactions: { eventFormat, shape: "ACS_DELTA" as const },
    reassignments: eventFormat,
    topologyParties: undefined
  }))
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

const DamlRecord = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "a Daml record in compact JSON" })

export const JsCommand = Schema.Union(
  Schema.Struct({
    CreateAndExerciseCommand: Schema.Struct({
      templateId: Schema.String,
      createArguments: DamlRecord,
      choice: Schema.String,
      choiceArgument: Schema.Unknown
    })
  }),
  Schema.Struct({ CreateCommand: Schema.Struct({ templateId: Schema.String, createArguments: DamlRecord }) }),
  Schema.Struct({
    ExerciseByKeyCommand: Schema.Struct({
      templateId: Schema.String,
      contractKey: Schema.Unknown,
      choice: Schema.String,
      choiceArgument: Schema.Unknown
    })
  }),
  Schema.Struct({
    ExerciseCommand: Schema.Struct({ templateId: Schema.String, contractId: Schema.String, choice: Schema.String, choiceArgument: Schema.Unknown })
  })
).annotations({ identifier: "Command" })
export type JsCommand = typeof JsCommand.Type

/** Values of the request body are JSON (they came out of JSON.parse). */
const asJson = (value: unknown): Json => value as Json
const asJsonObject = (value: Readonly<Record<string, unknown>>): JsonObject => value as JsonObject

export const toCommands = (commands: ReadonlyArray<JsCommand>, field: string): Either.Either<ReadonlyArray<Command>, InvalidRequest> =>
  Either.all(
    commands.map((command, i): Either.Either<Command, InvalidRequest> => {
      if ("CreateCommand" in command) {
        return Either.right({ _tag: "CreateCommand", templateId: command.CreateCommand.templateId, createArguments: asJsonObject(command.CreateCommand.createArguments) })
      }
      if ("ExerciseCommand" in command) {
        const c = command.ExerciseCommand
        return Either.right({ _tag: "ExerciseCommand", templateId: c.templateId, contractId: c.contractId, choice: c.choice, choiceArgument: asJson(c.choiceArgument) })
      }
      if ("CreateAndExerciseCommand" in command) {
        const c = command.CreateAndExerciseCommand
        return Either.right({
          _tag: "CreateAndExerciseCommand",
          templateId: c.templateId,
          createArguments: asJsonObject(c.createArguments),
          choice: c.choice,
          choiceArgument: asJson(c.choiceArgument)
        })
      }
      return Either.left(invalidBody(`${field}[${i}].ExerciseByKeyCommand`, "contract keys are not supported by this node (its templates define no keys)"))
    })
  )

export const DisclosedContract = Schema.Struct({
  templateId: Schema.optional(Schema.String),
  contractId: Schema.optional(Schema.String),
  createdEventBlob: Schema.String,
  synchronizerId: Schema.optional(Schema.String)
}).annotations({ identifier: "DisclosedContract" })
