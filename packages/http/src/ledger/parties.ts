/**
 * Ledger surface: party management (`/v2/parties...`), including external parties.
 *
 * - `GET /v2/parties` (ParticipantAdmin or IdentityProviderAdmin): every party the topology
 *   knows, sorted, paged by `pageSize` / `pageToken` (the last party of the previous page),
 *   `isLocal` when this participant hosts it.
 * - `POST /v2/parties` (admin): allocates `<partyIdHint>::<participant namespace>` on this
 *   participant (hint: letters, digits, `_`, `-`, `.`, at most 185; absent: `party-<n>`);
 *   `userId`, when given, gets CanActAs of the new party. 409 PARTY_ALREADY_EXISTS for a taken hint.
 * - `GET /v2/parties/{party}` (admin): details of the party and of `?parties=`, known ones only.
 *   Both GETs show a party's stored local metadata (Admin party records) as Canton blinds them
 *   for the request's identity provider.
 * - `PATCH /v2/parties/{party}` (ParticipantAdmin, or IdentityProviderAdmin of the request's
 *   provider): updates the party's local metadata (Admin.updatePartyDetails: update mask,
 *   resourceVersion check, isLocal not modifiable), journaled with user management.
 * - `GET /v2/parties/participant-id` (any user): `<name>::<namespace>`.
 * - `POST /v2/parties/external/generate-topology` (any user): the three onboarding transactions
 *   of an external party hosted here (External.generateExternalPartyTopology).
 * - `POST /v2/parties/external/allocate` (admin): verifies the signed onboarding transactions
 *   (External.verifyExternalPartyAllocation) and hosts the party through the engine topology;
 *   a bad signature, a wrong key or a tampered transaction is a 4xx and allocates nothing.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { isPartyHint } from "@sandnet/core"
import { External, LedgerApi, type ParticipantNode } from "@sandnet/engine"
import { Effect, Either, Schema } from "effect"
import { Admin } from "../engine-admin.ts"
import { LedgerApiError, type HandlerError } from "../errors.ts"
import {
  engineRoutes,
  fromExternalError,
  invalidBody,
  op,
  orFail,
  partyExists,
  requireAdmin,
  type LedgerNode
} from "./context.ts"
import { Parties } from "./requests.ts"
import type { EngineInstance } from "@sandnet/node"
import { bind, Surfaces, mergeRoutes } from "../surface.ts"

// =============================================================================================
// Shapes
// =============================================================================================

const ObjectMeta = Schema.Struct({
  resourceVersion: Schema.optional(Schema.String),
  annotations: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}).annotations({ identifier: "ObjectMeta" })

export const PartyDetails = Schema.Struct({
  party: Schema.String,
  isLocal: Schema.Boolean,
  localMetadata: Schema.Struct({ resourceVersion: Schema.String, annotations: Schema.Record({ key: Schema.String, value: Schema.String }) }),
  identityProviderId: Schema.String
}).annotations({ identifier: "PartyDetails" })

const FieldMask = Schema.Struct({
  paths: Schema.optional(Schema.Array(Schema.String)),
  unknownFields: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "FieldMask" })

export const PartyDetailsInput = Schema.Struct({
  party: Schema.String,
  isLocal: Schema.optional(Schema.Boolean),
  localMetadata: Schema.optional(ObjectMeta),
  identityProviderId: Schema.optional(Schema.String)
}).annotations({ identifier: "PartyDetailsInput" })

export const UpdatePartyDetailsRequest = Schema.Struct({
  partyDetails: PartyDetailsInput,
  updateMask: FieldMask
}).annotations({ identifier: "UpdatePartyDetailsRequest" })
export const UpdatePartyDetailsResponse = Schema.Struct({ partyDetails: PartyDetails }).annotations({
  identifier: "UpdatePartyDetailsResponse"
})

export const ListKnownPartiesResponse = Schema.Struct({
  partyDetails: Schema.Array(PartyDetails),
  nextPageToken: Schema.String
}).annotations({ identifier: "ListKnownPartiesResponse" })

const ListPartiesQuery = Schema.Struct({
  "identity-provider-id": Schema.optional(Schema.String),
  "filter-party": Schema.optional(Schema.String),
  pageSize: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())),
  pageToken: Schema.optional(Schema.String)
})

export const AllocatePartyRequest = Schema.Struct({
  partyIdHint: Schema.optional(Schema.String),
  localMetadata: Schema.optional(ObjectMeta),
  identityProviderId: Schema.optional(Schema.String),
  synchronizerId: Schema.optional(Schema.String),
  userId: Schema.optional(Schema.String)
}).annotations({ identifier: "AllocatePartyRequest" })
export const AllocatePartyResponse = Schema.Struct({ partyDetails: PartyDetails }).annotations({ identifier: "AllocatePartyResponse" })

export const GetPartiesResponse = Schema.Struct({ partyDetails: Schema.Array(PartyDetails) }).annotations({ identifier: "GetPartiesResponse" })
export const GetParticipantIdResponse = Schema.Struct({ participantId: Schema.String }).annotations({
  identifier: "GetParticipantIdResponse"
})

export const SigningPublicKey = Schema.Struct({ format: Schema.String, keyData: Schema.String, keySpec: Schema.String }).annotations({
  identifier: "SigningPublicKey"
})
export const GenerateExternalPartyTopologyRequest = Schema.Struct({
  synchronizer: Schema.String,
  partyHint: Schema.String,
  publicKey: SigningPublicKey,
  localParticipantObservationOnly: Schema.optional(Schema.Boolean),
  otherConfirmingParticipantUids: Schema.optional(Parties),
  confirmationThreshold: Schema.optional(Schema.Int),
  observingParticipantUids: Schema.optional(Parties)
}).annotations({ identifier: "GenerateExternalPartyTopologyRequest" })
export const GenerateExternalPartyTopologyResponse = Schema.Struct({
  partyId: Schema.String,
  publicKeyFingerprint: Schema.String,
  topologyTransactions: Schema.Array(Schema.String),
  multiHash: Schema.String
}).annotations({ identifier: "GenerateExternalPartyTopologyResponse" })

const Signature = Schema.Struct({
  format: Schema.String,
  signature: Schema.String,
  signedBy: Schema.String,
  signingAlgorithmSpec: Schema.String
}).annotations({ identifier: "Signature" })
export const AllocateExternalPartyRequest = Schema.Struct({
  synchronizer: Schema.String,
  onboardingTransactions: Schema.Array(
    Schema.Struct({ transaction: Schema.String, signatures: Schema.optional(Schema.Array(Signature)) }).annotations({
      identifier: "SignedTransaction"
    })
  ),
  multiHashSignatures: Schema.optional(Schema.Array(Signature)),
  identityProviderId: Schema.optional(Schema.String),
  waitForAllocation: Schema.optional(Schema.Boolean),
  userId: Schema.optional(Schema.String)
}).annotations({ identifier: "AllocateExternalPartyRequest" })
export const AllocateExternalPartyResponse = Schema.Struct({ partyId: Schema.String }).annotations({
  identifier: "AllocateExternalPartyResponse"
})

// =============================================================================================
// Endpoints
// =============================================================================================

export const ListKnownParties = op(
  HttpApiEndpoint.get("listKnownParties", "/v2/parties").setUrlParams(ListPartiesQuery).addSuccess(ListKnownPartiesResponse),
  "getV2Parties",
  "List the parties known by the participant: the ones it hosts and the ones hosted elsewhere."
)
export const AllocateParty = op(
  HttpApiEndpoint.post("allocateParty", "/v2/parties").setPayload(AllocatePartyRequest).addSuccess(AllocatePartyResponse),
  "postV2Parties",
  "Allocates a new party on this participant: <partyIdHint>::<participant namespace>."
)
export const GetParticipantId = op(
  HttpApiEndpoint.get("getParticipantId", "/v2/parties/participant-id").addSuccess(GetParticipantIdResponse),
  "getV2PartiesParticipant-id",
  "Return the identifier of the participant."
)
export const GetParties = op(
  HttpApiEndpoint.get("getParties", "/v2/parties/:party")
    .setPath(Schema.Struct({ party: Schema.String }))
    .setUrlParams(Schema.Struct({ "identity-provider-id": Schema.optional(Schema.String), parties: Schema.optional(Schema.Array(Schema.String)) }))
    .addSuccess(GetPartiesResponse),
  "getV2PartiesParty",
  "Get the party details of the given parties. Only known parties will be returned in the list."
)
export const UpdatePartyDetails = op(
  HttpApiEndpoint.patch("updatePartyDetails", "/v2/parties/:party")
    .setPath(Schema.Struct({ party: Schema.String }))
    .setPayload(UpdatePartyDetailsRequest)
    .addSuccess(UpdatePartyDetailsResponse),
  "patchV2PartiesParty",
  "Update selected modifiable participant-local attributes of a party details resource (local metadata annotations; isLocal must match)."
)
export const GenerateExternalPartyTopology = op(
  HttpApiEndpoint.post("generateExternalPartyTopology", "/v2/parties/external/generate-topology")
    .setPayload(GenerateExternalPartyTopologyRequest)
    .addSuccess(GenerateExternalPartyTopologyResponse),
  "postV2PartiesExternalGenerate-topology",
  "Generates the topology transactions (NamespaceDelegation, PartyToKeyMapping, PartyToParticipant) of an external party hosted on this participant, to be signed externally and uploaded with allocate."
)
export const AllocateExternalParty = op(
  HttpApiEndpoint.post("allocateExternalParty", "/v2/parties/external/allocate")
    .setPayload(AllocateExternalPartyRequest)
    .addSuccess(AllocateExternalPartyResponse),
  "postV2PartiesExternalAllocate",
  "Allocates an external party from its signed onboarding transactions; it must be hosted on this participant with confirmation or observation permission."
)

export const PartiesGroup = HttpApiGroup.make("parties")
  .add(ListKnownParties)
  .add(AllocateParty)
  .add(AllocateExternalParty)
  .add(GetParticipantId)
  .add(GetParties)
  .add(UpdatePartyDetails)
  .add(GenerateExternalPartyTopology)
  .annotate(OpenApi.Title, "Party Management Service")

// =============================================================================================
// Handlers
// =============================================================================================

const EMPTY_METADATA = { resourceVersion: "0", annotations: {} }

/**
 * A party's details as a request in `identityProviderId` sees them (Canton's blinding): its
 * record's metadata and provider when the record is in that provider; for the default provider,
 * the party as the topology has it; for another provider, the party as non-local.
 */
const details = (info: LedgerApi.PartyInfo, records: ReadonlyMap<string, Admin.PartyRecord> = new Map(), identityProviderId = "") => {
  const record = records.get(info.party)
  if (record !== undefined && record.identityProviderId === identityProviderId) {
    return { party: info.party, isLocal: info.isLocal, localMetadata: record.metadata, identityProviderId: record.identityProviderId }
  }
  return { party: info.party, isLocal: identityProviderId === "" ? info.isLocal : false, localMetadata: EMPTY_METADATA, identityProviderId: "" }
}

const partyRecords = Effect.flatMap(Admin.UserManagement, (users) => Effect.map(users.state, (state) => state.partyRecords))

const MAX_PARTIES_PAGE_SIZE = 10_000

/** Runs an engine read or change under the lock, failing with the Either's error. */
const run = <A>(node: LedgerNode, f: (engine: EngineInstance, participant: ParticipantNode) => Either.Either<A, HandlerError>) =>
  node.runtime
    .run((engine) => Effect.sync(() => f(engine, node.participantOf(engine))))
    .pipe(Effect.flatMap((either) => orFail(either)))

/** A user that will receive CanActAs of a new party must exist (checked before allocating). */
const checkUser = (userId: string | undefined) =>
  userId === undefined || userId === ""
    ? Effect.void
    : Effect.flatMap(Admin.UserManagement, (users) => Effect.asVoid(users.getUser(userId)))

const grantActAs = (userId: string | undefined, party: string) =>
  userId === undefined || userId === ""
    ? Effect.void
    : Effect.flatMap(Admin.UserManagement, (users) => Effect.asVoid(users.grantUserRights(userId, [Admin.Rights.canActAs(party)])))

const knownSynchronizer = (engine: EngineInstance, synchronizerId: string, field: string): Either.Either<void, HandlerError> =>
  engine.topology.synchronizer(synchronizerId) !== undefined
    ? Either.void
    : Either.left(
        new LedgerApiError({
          code: "INVALID_ARGUMENT",
          category: "InvalidIndependentOfSystemState",
          cause: `${field}: synchronizer ${synchronizerId} is not connected to this participant (known: ${engine.topology
            .synchronizers()
            .map((s) => s.synchronizerId)
            .join(", ")})`
        })
      )

/** One page of the known parties (filter, page token), with their details as the asked identity provider sees them. */
const listKnownParties = (node: LedgerNode, urlParams: typeof ListPartiesQuery.Type) =>
  Effect.gen(function* () {
    yield* requireAdmin(urlParams["identity-provider-id"])
    const pageSize = Math.min(urlParams.pageSize === undefined || urlParams.pageSize === 0 ? MAX_PARTIES_PAGE_SIZE : urlParams.pageSize, MAX_PARTIES_PAGE_SIZE)
    const page = yield* run(node, (_engine, participant) =>
      Either.right(LedgerApi.knownPartiesPage(participant, { filter: urlParams["filter-party"] ?? "", after: urlParams.pageToken ?? "", pageSize }))
    )
    const records = yield* partyRecords
    const idp = urlParams["identity-provider-id"] ?? ""
    return {
      partyDetails: page.parties.map((p) => details(p, records, idp)),
      nextPageToken: page.next ?? ""
    }
  })

/** Allocates a party on the participant (hint or `party-<n>`), then grants the user CanActAs of it. */
const allocateParty = (node: LedgerNode, payload: typeof AllocatePartyRequest.Type) =>
  Effect.gen(function* () {
    yield* requireAdmin(payload.identityProviderId)
    const hint = payload.partyIdHint ?? ""
    if (hint !== "" && !isPartyHint(hint)) {
      return yield* Effect.fail(invalidBody("partyIdHint", `"${hint}" is not a valid party hint (1 to 185 letters, digits, '_', '-', '.')`))
    }
    yield* checkUser(payload.userId)
    const party = yield* run(node, (engine, participant) =>
      Either.gen(function* () {
        if (payload.synchronizerId !== undefined && payload.synchronizerId !== "") {
          yield* knownSynchronizer(engine, payload.synchronizerId, "synchronizerId")
        }
        const synchronizerId = payload.synchronizerId !== undefined && payload.synchronizerId !== "" ? payload.synchronizerId : undefined
        return yield* Either.mapLeft(LedgerApi.allocateLedgerParty(participant, hint, engine.clock.now, synchronizerId), partyExists)
      })
    )
    yield* grantActAs(payload.userId, party)
    return { partyDetails: details({ party, isLocal: true, external: false }) }
  })

/** The details of the party of the path and of the listed ones, among those the participant knows. */
const getParties = (node: LedgerNode, party: string, urlParams: { readonly "identity-provider-id"?: string | undefined; readonly parties?: ReadonlyArray<string> | undefined }) =>
  Effect.gen(function* () {
    yield* requireAdmin(urlParams["identity-provider-id"])
    const wanted = new Set([party, ...(urlParams.parties ?? [])])
    const known = yield* run(node, (_engine, participant) => Either.right(LedgerApi.knownPartiesAmong(participant, wanted)))
    const records = yield* partyRecords
    const idp = urlParams["identity-provider-id"] ?? ""
    return { partyDetails: known.map((p) => details(p, records, idp)) }
  })

/** Updates the local details (metadata, isLocal) the user management keeps of a party. */
const updatePartyDetails = (node: LedgerNode, path: { readonly party: string }, payload: typeof UpdatePartyDetailsRequest.Type) =>
  Effect.gen(function* () {
    const requested = payload.partyDetails
    if (requested.party !== "" && requested.party !== path.party) {
      return yield* Effect.fail(invalidBody("partyDetails.party", `"${requested.party}" is not the party of the path "${path.party}"`))
    }
    const identityProviderId = requested.identityProviderId ?? ""
    yield* requireAdmin(identityProviderId)
    const facts = yield* run(node, (_engine, participant) => Either.right(LedgerApi.knownParty(participant, path.party)))
    const users = yield* Admin.UserManagement
    const record = yield* users.updatePartyDetails(
      {
        party: path.party,
        isLocal: requested.isLocal,
        localMetadata: requested.localMetadata,
        identityProviderId,
        updateMask: payload.updateMask.paths ?? []
      },
      facts === undefined ? undefined : { isLocal: facts.isLocal }
    )
    return {
      partyDetails: {
        party: path.party,
        isLocal: facts?.isLocal ?? false,
        localMetadata: record.metadata,
        identityProviderId: record.identityProviderId
      }
    }
  })

/** The topology transactions an external party signs to be hosted here. */
const generateExternalPartyTopology = (node: LedgerNode, payload: typeof GenerateExternalPartyTopologyRequest.Type) =>
  run(node, (engine, participant) =>
    Either.gen(function* () {
      const generated = yield* Either.mapLeft(
        External.generateExternalPartyTopology({
          synchronizerId: payload.synchronizer,
          partyHint: payload.partyHint,
          publicKey: payload.publicKey,
          localParticipantUid: LedgerApi.participantUid(participant),
          localParticipantObservationOnly: payload.localParticipantObservationOnly,
          otherConfirmingParticipantUids: payload.otherConfirmingParticipantUids,
          confirmationThreshold: payload.confirmationThreshold,
          observingParticipantUids: payload.observingParticipantUids
        }),
        fromExternalError
      )
      yield* knownSynchronizer(engine, payload.synchronizer, "synchronizer")
      return {
        partyId: generated.partyId,
        publicKeyFingerprint: generated.publicKeyFingerprint,
        topologyTransactions: generated.topologyTransactions,
        multiHash: generated.multiHash
      }
    })
  )

/** Hosts an external party whose signed onboarding transactions verify, then grants the user CanActAs of it. */
const allocateExternalParty = (node: LedgerNode, payload: typeof AllocateExternalPartyRequest.Type) =>
  Effect.gen(function* () {
    yield* requireAdmin(payload.identityProviderId)
    yield* checkUser(payload.userId)
    const partyId = yield* run(node, (engine, participant) =>
      Either.gen(function* () {
        const verified = yield* Either.mapLeft(
          External.verifyExternalPartyAllocation({
            synchronizer: payload.synchronizer,
            onboardingTransactions: payload.onboardingTransactions,
            multiHashSignatures: payload.multiHashSignatures,
            localParticipantUid: LedgerApi.participantUid(participant)
          }),
          fromExternalError
        )
        yield* knownSynchronizer(engine, payload.synchronizer, "synchronizer")
        return yield* Either.mapLeft(
          LedgerApi.hostExternalParty(engine.network, engine.topology, verified, engine.clock.now, payload.synchronizer === "" ? undefined : payload.synchronizer),
          (error): HandlerError =>
            error._tag === "PartyAlreadyExists" ? partyExists(error) : invalidBody("onboardingTransactions", error.message)
        )
      })
    )
    yield* grantActAs(payload.userId, partyId)
    return { partyId }
  })

const ledger = Surfaces.ledger

export const PARTY_ENDPOINTS = [
  ListKnownParties,
  UpdatePartyDetails,
  AllocateParty,
  GetParticipantId,
  GetParties,
  GenerateExternalPartyTopology,
  AllocateExternalParty
] as const

export const PartyRoutes = engineRoutes(PARTY_ENDPOINTS, (node) =>
  mergeRoutes(
    bind(ledger, ListKnownParties, ({ urlParams }) => listKnownParties(node, urlParams)),
    bind(ledger, AllocateParty, ({ payload }) => allocateParty(node, payload)),
    bind(ledger, GetParticipantId, () => run(node, (_engine, participant) => Either.right({ participantId: LedgerApi.participantId(participant) }))),
    bind(ledger, GetParties, ({ path, urlParams }) => getParties(node, path.party, urlParams)),
    bind(ledger, UpdatePartyDetails, ({ path, payload }) => updatePartyDetails(node, path, payload)),
    bind(ledger, GenerateExternalPartyTopology, ({ payload }) => generateExternalPartyTopology(node, payload)),
    bind(ledger, AllocateExternalParty, ({ payload }) => allocateExternalParty(node, payload))
  )
)
