/**
 * Participant-local party details (Canton's party records): the decision behind
 * `PATCH /v2/parties/{party}` and what `GET /v2/parties` shows of a party beyond the topology.
 * Pure, like decide.ts: the caller says whether the topology knows the party and whether it is
 * local; the state holds the records.
 *
 * Rules (Canton's ApiPartyManagementService.updatePartyDetails and PartyRecordUpdateMapper):
 * - update paths: `party`, `is_local`, `local_metadata`, `local_metadata.annotations`,
 *   `local_metadata.resource_version`, `identity_provider_id` (camelCase accepted); an empty mask
 *   or another path is INVALID_UPDATE_PARTY_DETAILS_REQUEST;
 * - `is_local` in the mask must equal the party's actual locality (not modifiable);
 * - annotations merge as for users: a value sets, "" removes; naming exactly
 *   `local_metadata.annotations` with none clears them; `local_metadata` with none keeps them;
 * - a non-empty `resourceVersion` must equal the current one (CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED);
 * - a record of another identity provider than the request's: PERMISSION_DENIED; a party without
 *   a record takes the request's identity provider, which must exist;
 * - every accepted update bumps resourceVersion, even one that changes nothing (as Canton).
 */
import { InvalidArgument } from "@sandnet/core"
import { Either } from "effect"
import {
  ConcurrentPartyDetailsUpdate,
  InvalidPartyDetailsUpdate,
  PartyAnnotationsTooLarge,
  PartyInOtherIdentityProvider,
  PartyRecordPartyNotFound,
  type PartyRecordError
} from "./errors.ts"
import type { AdminEvent } from "./events.ts"
import {
  DEFAULT_IDENTITY_PROVIDER_ID,
  annotationsSize,
  checkAnnotationKey,
  sortAnnotations,
  type AdminLimits,
  type Annotations,
  type PartyRecord
} from "./model.ts"
import type { AdminState } from "./state.ts"

export interface UpdatePartyDetailsInput {
  readonly party: string
  readonly isLocal?: boolean | undefined
  readonly localMetadata?: { readonly resourceVersion?: string | undefined; readonly annotations?: Annotations | undefined } | undefined
  readonly identityProviderId?: string | undefined
  readonly updateMask: ReadonlyArray<string>
}

/** What the topology says of the party: undefined when it does not know it. */
export interface LedgerPartyFacts {
  readonly isLocal: boolean
}

export type PartyDecided<A> = Either.Either<{ readonly events: ReadonlyArray<AdminEvent>; readonly result: A }, PartyRecordError>

const PARTY_PATHS = new Set([
  "party",
  "is_local",
  "local_metadata",
  "local_metadata.annotations",
  "local_metadata.resource_version",
  "identity_provider_id"
])

const snake = (path: string): string =>
  path
    .split(".")
    .map((segment) => segment.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
    .join(".")

/** The record of a party, or the empty one (resourceVersion "0", default identity provider). */
export const partyRecordOf = (state: AdminState, party: string): PartyRecord =>
  state.partyRecords.get(party) ?? { party, identityProviderId: DEFAULT_IDENTITY_PROVIDER_ID, metadata: { resourceVersion: "0", annotations: {} } }

export const updatePartyDetails = (
  state: AdminState,
  input: UpdatePartyDetailsInput,
  ledgerParty: LedgerPartyFacts | undefined,
  limits: AdminLimits,
  at: number
): PartyDecided<PartyRecord> => {
  const { party } = input
  const refuse = (error: PartyRecordError): PartyDecided<PartyRecord> => Either.left(error)
  if (party === "") return refuse(new InvalidArgument({ field: "partyDetails.party", message: "must not be empty" }))
  const expectedVersion = input.localMetadata?.resourceVersion ?? ""
  if (expectedVersion !== "" && !/^\d+$/.test(expectedVersion)) {
    return refuse(new InvalidArgument({ field: "partyDetails.localMetadata.resourceVersion", message: `"${expectedVersion}" is not a resource version` }))
  }
  const requested = input.localMetadata?.annotations ?? {}
  for (const key of Object.keys(requested)) {
    const problem = checkAnnotationKey(key)
    if (problem !== undefined) return refuse(new InvalidArgument({ field: "partyDetails.localMetadata.annotations", message: problem }))
  }
  if (input.updateMask.length === 0) {
    return refuse(new InvalidPartyDetailsUpdate({ party, reason: "The update mask contains no entries" }))
  }
  const paths = new Set<string>()
  for (const raw of input.updateMask) {
    const path = snake(raw.trim())
    if (!PARTY_PATHS.has(path)) return refuse(new InvalidPartyDetailsUpdate({ party, reason: `The update path: '${raw}' points to an unknown field` }))
    paths.add(path)
  }
  const identityProviderId = input.identityProviderId ?? DEFAULT_IDENTITY_PROVIDER_ID
  if (identityProviderId !== DEFAULT_IDENTITY_PROVIDER_ID && !state.identityProviders.has(identityProviderId)) {
    return refuse(
      new InvalidArgument({ field: "partyDetails.identityProviderId", message: `Provided identity_provider_id ${identityProviderId} has not been found.` })
    )
  }
  if (ledgerParty === undefined) return refuse(new PartyRecordPartyNotFound({ operation: "updating a party record", party }))
  if (paths.has("is_local") && (input.isLocal ?? false) !== ledgerParty.isLocal) {
    return refuse(new InvalidPartyDetailsUpdate({ party, reason: "Update request attempted to modify not-modifiable 'is_local' attribute" }))
  }
  const existing = state.partyRecords.get(party)
  if (existing !== undefined && existing.identityProviderId !== identityProviderId) return refuse(new PartyInOtherIdentityProvider({ party }))
  const current = partyRecordOf(state, party)
  if (expectedVersion !== "" && expectedVersion !== current.metadata.resourceVersion) {
    return refuse(new ConcurrentPartyDetailsUpdate({ party }))
  }
  let annotations: Record<string, string> = { ...current.metadata.annotations }
  if (paths.has("local_metadata") || paths.has("local_metadata.annotations")) {
    if (Object.keys(requested).length === 0) {
      if (paths.has("local_metadata.annotations")) annotations = {}
    } else {
      for (const [key, value] of Object.entries(requested)) {
        if (value === "") delete annotations[key]
        else annotations[key] = value
      }
    }
  }
  if (annotationsSize(annotations) > limits.maxAnnotationsBytes) {
    return refuse(new PartyAnnotationsTooLarge({ party, maxBytes: limits.maxAnnotationsBytes }))
  }
  const record: PartyRecord = {
    party,
    identityProviderId,
    metadata: { resourceVersion: String(Number(current.metadata.resourceVersion) + 1), annotations: sortAnnotations(annotations) }
  }
  return Either.right({ events: [{ _tag: "PartyRecordUpdated", at, record }], result: record })
}
