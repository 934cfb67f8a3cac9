/**
 * Read helpers of the ledger API over a participant: what `/v2/updates`, the single-update
 * lookups, the active contract set and the command endpoints of the JSON ledger API need, as pure
 * functions of a ParticipantLogic (its update log, ACS and hosted parties). Rendering to JSON is
 * the HTTP layer's job; here are the rules:
 *
 * - Filters (EventFormat): per party and for any hosted party; cumulative template filters
 *   (package-id `<pkg>:<Module>:<Entity>` or package-name `#<name>:<Module>:<Entity>` references),
 *   interface filters (matched through the interfaces a template implements) and wildcards. An
 *   empty filter list is one wildcard. References are resolved against the node's packages
 *   (built-in and uploaded): unknown ones are errors, as on the real participant.
 * - Shapes: ACS delta shows created and archived events of contracts whose stakeholders include a
 *   requesting party, without contracts created and archived in the same transaction (transient);
 *   ledger effects shows created and exercised events whose witnesses include a requesting party;
 *   trees (the deprecated shape) are ledger effects where every party filter matches every
 *   template. `witnessParties` are the requesting parties that see the event and whose filter
 *   matches it.
 * - Streams: updates with offset in (beginExclusive, endInclusive], ascending (or descending when
 *   asked), at most `maxItems` items. When the answered range ends after the last update shown
 *   (updates were filtered out, or none exist) and the range was not cut by the limit, one
 *   OffsetCheckpoint at the range's end closes the answer, with the record time of the last
 *   update of each synchronizer up to it.
 * - Topology: a participant's log also holds topology updates (ParticipantAuthorizationAdded when
 *   it started hosting a party). They are shown only when the update format asks for
 *   participant authorization events, with the events of the listed parties (none listed: every
 *   party), never in trees; otherwise they are filtered out like any update without visible
 *   events (UPDATE_NOT_FOUND for lookups).
 *
 * Also here: created-event blobs (explicit disclosure), validation of commands against the
 * templates' Schemas, per-network state that the participant does not keep yet (uploaded
 * packages, external parties' signing keys) and the prepared transactions of interactive
 * submission.
 */
import { Either, ParseResult, Schema } from "effect"
import {
  InvalidArgument,
  canonicalJson,
  sha256OfParts,
  toIso,
  uidWithoutPrefix,
  type ActiveContract,
  type CommittedUpdate,
  type ContractId,
  type CreatedNode,
  type ExercisedNode,
  type InterpretationError,
  type Json,
  type JsonObject,
  type Micros,
  type ParticipantAuthorizationEvent,
  type PackageDescription,
  type PartyId,
  type ReassignmentUpdate,
  type SynchronizerId,
  type TopologyUpdate,
  type TransactionUpdate,
  type TxNode
} from "@sandnet/core"
import { ActiveContract as ActiveContractSchema } from "@sandnet/core"
import type { CoinNetwork } from "../coin-network.ts"
import { CommandRejected, PartyAlreadyExists } from "../errors.ts"
import * as External from "../external/index.ts"
import { stakeholdersOf } from "../ledger/acs.ts"
import { interpret, type Command, type InterpretedTransaction } from "../ledger/interpreter.ts"
import type { Template, TemplateRegistry } from "../ledger/template.ts"
import * as Packages from "../packages/index.ts"
import type { ParticipantPermission, TopologyState } from "../topology.ts"
import type { CompletionRecord, ParticipantLogic } from "../participant/index.ts"

// =============================================================================================
// Errors
// =============================================================================================

/** No update with this id or offset is visible with the requested format (UPDATE_NOT_FOUND). */
export class UpdateNotFound extends Schema.TaggedError<UpdateNotFound>()("UpdateNotFound", {
  updateId: Schema.optional(Schema.String),
  offset: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return this.updateId !== undefined
      ? `Update not found, or not visible: update id ${this.updateId}`
      : `Update not found, or not visible: offset ${this.offset}`
  }
}

/** An offset of the request lies after the participant's ledger end (OFFSET_AFTER_LEDGER_END). */
export class OffsetAfterLedgerEnd extends Schema.TaggedError<OffsetAfterLedgerEnd>()("OffsetAfterLedgerEnd", {
  field: Schema.String,
  offset: Schema.Number,
  ledgerEnd: Schema.Number
}) {
  override get message(): string {
    return `${this.field} (${this.offset}) is after the ledger end (${this.ledgerEnd})`
  }
}

/** Template or interface references that name nothing known (TEMPLATES_OR_INTERFACES_NOT_FOUND). */
export class TemplatesOrInterfacesNotFound extends Schema.TaggedError<TemplatesOrInterfacesNotFound>()(
  "TemplatesOrInterfacesNotFound",
  { references: Schema.Array(Schema.String) }
) {
  override get message(): string {
    return `Templates or interfaces do not exist: ${this.references.join(", ")}`
  }
}

/** Package-name references whose package name is unknown (PACKAGE_NAMES_NOT_FOUND). */
export class PackageNamesNotFound extends Schema.TaggedError<PackageNamesNotFound>()("PackageNamesNotFound", {
  names: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `The following package names do not match upgradable packages uploaded on this participant: ${this.names.join(", ")}`
  }
}

export type FilterResolutionError = InvalidArgument | TemplatesOrInterfacesNotFound | PackageNamesNotFound

// =============================================================================================
// Packages known to the node
// =============================================================================================

export interface KnownPackage {
  readonly packageId: string
  readonly description: PackageDescription
}

/** Per-network state the participant does not keep (yet): uploaded packages and external parties' keys. */
export interface LedgerApiState {
  /** Built-in and uploaded packages. */
  packages: Packages.PackageRegistry
  /** Package ids vetted on the node's synchronizers (built-ins, and uploads with vetting). */
  readonly vetted: Set<string>
  /** Serial of the node's VettedPackages topology state: 1 at start, +1 whenever `vetted` changes. */
  vettingSerial: number
  /** Signing keys of the external parties allocated through the ledger API. */
  readonly externalParties: Map<PartyId, External.SigningKeysWithThreshold>
}

const states = new WeakMap<CoinNetwork, LedgerApiState>()

/** The built-in packages: every PackageDef of the network's template registry. */
export const builtInPackages = (registry: TemplateRegistry): ReadonlyArray<KnownPackage> =>
  registry.allPackages().map((pkg) => ({ packageId: pkg.id, description: pkg.description() }))

/** The ledger API state of a network (created on first use, dropped with the network). */
export const ledgerApiState = (network: CoinNetwork): LedgerApiState => {
  let state = states.get(network)
  if (state === undefined) {
    const builtIns = builtInPackages(network.registry)
    const added = Packages.PackageRegistry.empty().addDescriptions(
      builtIns.map((p) => p.description),
      0
    )
    const packages = Either.isRight(added) ? added.right.registry : Packages.PackageRegistry.empty()
    state = {
      packages,
      vetted: new Set([...builtIns.map((p) => p.packageId), ...packages.packageIds()]),
      vettingSerial: 1,
      externalParties: new Map()
    }
    states.set(network, state)
  }
  return state
}

/** Every package the node knows, sorted by id: built-in ones and uploaded ones. */
export const knownPackages = (network: CoinNetwork): ReadonlyArray<KnownPackage> => {
  const byId = new Map<string, KnownPackage>()
  for (const p of builtInPackages(network.registry)) byId.set(p.packageId, p)
  for (const p of ledgerApiState(network).packages.packages()) byId.set(p.packageId, { packageId: p.packageId, description: p.description })
  return [...byId.values()].sort((a, b) => (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0))
}

/** The ids of all packages the node supports (L7 `GET /v2/packages`), sorted. */
export const knownPackageIds = (network: CoinNetwork): ReadonlyArray<string> => knownPackages(network).map((p) => p.packageId)

/** The archive (.dalf bytes) of a known package. */
export const packageArchive = (network: CoinNetwork, packageId: string): Uint8Array | undefined => {
  const stored = ledgerApiState(network).packages.get(packageId)
  if (stored !== undefined) return stored.archive
  const builtIn = builtInPackages(network.registry).find((p) => p.packageId === packageId)
  return builtIn === undefined ? undefined : Packages.encodeDalf(builtIn.description).archive
}

/** L5: checks a DAR against the node's packages (the vetted ones when a synchronizer is named). */
export const validateDar = (
  network: CoinNetwork,
  bytes: Uint8Array,
  options: { readonly againstVetted: boolean }
): Either.Either<Packages.DarCheck, Packages.PackageUploadError> => {
  const state = ledgerApiState(network)
  return state.packages.validateDar(bytes, options.againstVetted ? { vettedOnSynchronizer: [...state.vetted] } : {})
}

/** Uploads a DAR (kept in memory with the network); vets its packages unless told not to. */
export const uploadDar = (
  network: CoinNetwork,
  bytes: Uint8Array,
  uploadedAt: Micros,
  options: { readonly vet: boolean }
): Either.Either<Packages.DarUpload, Packages.PackageUploadError> => {
  const state = ledgerApiState(network)
  const upload = state.packages.uploadDar(bytes, uploadedAt, options.vet ? { vettedOnSynchronizer: [...state.vetted] } : {})
  if (Either.isRight(upload)) {
    state.packages = upload.right.registry
    if (options.vet) {
      const before = state.vetted.size
      for (const p of upload.right.packages) state.vetted.add(p.packageId)
      if (state.vetted.size !== before) state.vettingSerial += 1
    }
  }
  return upload
}

// =============================================================================================
// Package vetting and preferred packages
// =============================================================================================

/**
 * Orders packages as the reference sorts VettedPackages: by name, then version, then id.
 */
const byNameVersionId = (a: KnownPackage, b: KnownPackage): number =>
  (a.description.name < b.description.name ? -1 : a.description.name > b.description.name ? 1 : 0) ||
  Packages.comparePackageVersions(a.description.version, b.description.version) ||
  (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0)

/** The packages vetted on the node's synchronizers (every participant vets the same set), sorted by name, version, id. */
export const vettedPackages = (network: CoinNetwork): ReadonlyArray<KnownPackage> => {
  const state = ledgerApiState(network)
  return knownPackages(network)
    .filter((p) => state.vetted.has(p.packageId))
    .sort(byNameVersionId)
}

/** Filters of `ListVettedPackagesRequest`: empty lists match everything. */
export interface VettedPackagesQuery {
  readonly packageIds: ReadonlyArray<string>
  readonly packageNamePrefixes: ReadonlyArray<string>
  readonly participantIds: ReadonlyArray<string>
  readonly synchronizerIds: ReadonlyArray<string>
}

/** One participant's vetting state on one synchronizer, with the packages that matched the query. */
export interface VettedPackagesEntry {
  readonly participantId: string
  readonly synchronizerId: SynchronizerId
  readonly topologySerial: number
  readonly packages: ReadonlyArray<KnownPackage>
}

/**
 * The vetting states matching a query, sorted by synchronizer id then participant id: in Sandnet
 * every participant of the topology vets every vetted package on every synchronizer. A package
 * matches when no metadata filter is given, or its id is listed, or its name starts with a listed
 * prefix; entries without a matching package are left out.
 */
export const listVettedPackages = (network: CoinNetwork, topology: TopologyState, query: VettedPackagesQuery): ReadonlyArray<VettedPackagesEntry> => {
  const noMetadataFilter = query.packageIds.length === 0 && query.packageNamePrefixes.length === 0
  const packages = vettedPackages(network).filter(
    (p) =>
      noMetadataFilter ||
      query.packageIds.includes(p.packageId) ||
      query.packageNamePrefixes.some((prefix) => p.description.name.startsWith(prefix))
  )
  if (packages.length === 0) return []
  const serial = ledgerApiState(network).vettingSerial
  const synchronizers = topology
    .synchronizers()
    .map((s) => s.synchronizerId)
    .filter((id) => query.synchronizerIds.length === 0 || query.synchronizerIds.includes(id))
    .sort()
  const participants = topology
    .participants()
    .map((p) => uidWithoutPrefix(p.uid))
    .filter((id) => query.participantIds.length === 0 || query.participantIds.includes(id))
    .sort()
  return synchronizers.flatMap((synchronizerId) =>
    participants.map((participantId) => ({ participantId, synchronizerId, topologySerial: serial, packages }))
  )
}

/** No synchronizer satisfies a preferred-package request (PACKAGE_SELECTION_FAILED, FAILED_PRECONDITION). */
export class PackageSelectionFailed extends Schema.TaggedError<PackageSelectionFailed>()("PackageSelectionFailed", {
  reason: Schema.String
}) {
  override get message(): string {
    return `No synchronizers satisfy the draft transaction topology requirements: ${this.reason}`
  }
}

export interface PackageVettingRequirement {
  readonly packageName: string
  readonly parties: ReadonlyArray<string>
}

export interface PreferredPackages {
  readonly synchronizerId: SynchronizerId
  /** One per requirement, in the requirements' order (a package name asked twice answers twice). */
  readonly packages: ReadonlyArray<KnownPackage>
}

/**
 * The highest vetted version of each requirement's package name that the participants hosting
 * its parties all vet, on the given synchronizer or on the first one (by id) that satisfies every
 * requirement. Every participant vets the same packages here, so a requirement is satisfied when
 * its package name has a vetted package and each of its parties is hosted somewhere. A package
 * name the node does not know at all is PACKAGE_NAMES_NOT_FOUND, as upstream.
 */
export const preferredPackages = (
  network: CoinNetwork,
  topology: TopologyState,
  requirements: ReadonlyArray<PackageVettingRequirement>,
  synchronizerId: SynchronizerId | undefined
): Either.Either<PreferredPackages, PackageNamesNotFound | PackageSelectionFailed> => {
  const known = new Set(knownPackages(network).map((p) => p.description.name))
  const unknownNames = [...new Set(requirements.map((r) => r.packageName).filter((n) => !known.has(n)))]
  if (unknownNames.length > 0) return Either.left(new PackageNamesNotFound({ names: unknownNames }))
  const synchronizers =
    synchronizerId !== undefined ? [synchronizerId] : topology.synchronizers().map((s) => s.synchronizerId).sort()
  const chosen = synchronizers[0]
  if (chosen === undefined || topology.synchronizer(chosen) === undefined) {
    return Either.left(new PackageSelectionFailed({ reason: `synchronizer ${synchronizerId ?? "(none)"} is not connected` }))
  }
  const hosted = new Set(topology.allParties().filter((h) => h.participants.length > 0).map((h) => h.party as string))
  const vetted = vettedPackages(network)
  const packages: Array<KnownPackage> = []
  for (const requirement of requirements) {
    const unhosted = requirement.parties.filter((p) => !hosted.has(p))
    if (unhosted.length > 0) {
      return Either.left(
        new PackageSelectionFailed({
          reason: `${chosen}: parties ${unhosted.join(", ")} have no hosting participant on the synchronizer (package name ${requirement.packageName})`
        })
      )
    }
    const highest = vetted.filter((p) => p.description.name === requirement.packageName).at(-1)
    if (highest === undefined) {
      return Either.left(
        new PackageSelectionFailed({
          reason: `${chosen}: no package with package name ${requirement.packageName} is vetted by the participants hosting ${requirement.parties.join(", ")}`
        })
      )
    }
    packages.push(highest)
  }
  return Either.right({ synchronizerId: chosen, packages })
}

// =============================================================================================
// Event formats and their resolution
// =============================================================================================

export type IdentifierFilter =
  | { readonly _tag: "WildcardFilter"; readonly includeCreatedEventBlob: boolean }
  | { readonly _tag: "TemplateFilter"; readonly templateId: string; readonly includeCreatedEventBlob: boolean }
  | {
      readonly _tag: "InterfaceFilter"
      readonly interfaceId: string
      readonly includeInterfaceView: boolean
      readonly includeCreatedEventBlob: boolean
    }

export interface Filters {
  /** Empty: one wildcard filter without the created event blob. */
  readonly cumulative: ReadonlyArray<IdentifierFilter>
}

export interface EventFormat {
  readonly filtersByParty: ReadonlyArray<readonly [PartyId, Filters]>
  readonly filtersForAnyParty?: Filters | undefined
  readonly verbose: boolean
}

export type TransactionShape = "ACS_DELTA" | "LEDGER_EFFECTS"

export interface TransactionFormat {
  readonly eventFormat: EventFormat
  readonly shape: TransactionShape
}

export interface UpdateFormat {
  readonly transactions?: TransactionFormat | undefined
  readonly reassignments?: EventFormat | undefined
  /** Parties of participant authorization topology events (empty: all). */
  readonly topologyParties?: ReadonlyArray<PartyId> | undefined
}

/** Where each filter sits in the request, to name it in errors: `<prefix>.filtersByParty.<party>...`. */
export interface FilterLocation {
  readonly prefix: string
}

interface TemplateMatcher {
  readonly packageId: string | undefined
  readonly packageName: string | undefined
  readonly module: string
  readonly entity: string
}

interface ResolvedCumulative {
  readonly wildcard: boolean
  readonly template: TemplateMatcher | undefined
  /** Interface ids (package-id form) that match the filter. */
  readonly interfaceIds: ReadonlySet<string> | undefined
  readonly includeCreatedEventBlob: boolean
  readonly includeInterfaceView: boolean
}

export interface ResolvedFilters {
  readonly filters: ReadonlyArray<ResolvedCumulative>
}

export interface ResolvedEventFormat {
  readonly byParty: ReadonlyMap<PartyId, ResolvedFilters>
  readonly anyParty: ResolvedFilters | undefined
  readonly verbose: boolean
  /** Trees: every party filter matches every template (its options still apply). */
  readonly matchAll: boolean
}

export interface ResolvedTransactionFormat {
  readonly eventFormat: ResolvedEventFormat
  readonly shape: TransactionShape | "TREE"
}

export interface ResolvedUpdateFormat {
  readonly transactions: ResolvedTransactionFormat | undefined
  readonly reassignments: ResolvedEventFormat | undefined
  readonly topologyParties: ReadonlyArray<PartyId> | undefined
}

const REFERENCE = /^(#?)([^:#]+):([^:]+):([^:]+)$/

/** Splits `<pkg>:<Module>:<Entity>` / `#<name>:<Module>:<Entity>`. */
export const parseReference = (
  reference: string
): { readonly byName: boolean; readonly pkg: string; readonly module: string; readonly entity: string } | undefined => {
  const m = REFERENCE.exec(reference)
  if (m === null) return undefined
  return { byName: m[1] === "#", pkg: m[2]!, module: m[3]!, entity: m[4]! }
}

/** Splits a template id of an event (package-id form). */
const splitTemplateId = (templateId: string): { pkg: string; module: string; entity: string } => {
  const [pkg = "", module = "", entity = ""] = templateId.split(":")
  return { pkg, module, entity }
}

interface Resolver {
  readonly template: (reference: string, field: string) => Either.Either<TemplateMatcher, InvalidArgument | "unknown" | "unknownName">
  readonly interface: (reference: string, field: string) => Either.Either<ReadonlySet<string>, InvalidArgument | "unknown" | "unknownName">
}

const makeResolver = (packages: ReadonlyArray<KnownPackage>): Resolver => {
  const candidates = (byName: boolean, pkg: string) =>
    packages.filter((p) => (byName ? p.description.name === pkg : p.packageId === pkg))
  const invalid = (field: string, reference: string) =>
    Either.left(
      new InvalidArgument({
        field,
        message: `"${reference}" is not a valid identifier: expected <package id>:<module>:<entity> or #<package name>:<module>:<entity>`
      })
    )
  return {
    template: (reference, field) => {
      const parsed = parseReference(reference)
      if (parsed === undefined) return invalid(field, reference)
      const pkgs = candidates(parsed.byName, parsed.pkg)
      if (pkgs.length === 0) return Either.left(parsed.byName ? "unknownName" : "unknown")
      const found = pkgs.some((p) =>
        p.description.modules.some((m) => m.name === parsed.module && m.templates.some((t) => t.name === parsed.entity))
      )
      if (!found) return Either.left("unknown")
      return Either.right({
        packageId: parsed.byName ? undefined : parsed.pkg,
        packageName: parsed.byName ? parsed.pkg : undefined,
        module: parsed.module,
        entity: parsed.entity
      })
    },
    interface: (reference, field) => {
      const parsed = parseReference(reference)
      if (parsed === undefined) return invalid(field, reference)
      const pkgs = candidates(parsed.byName, parsed.pkg)
      if (pkgs.length === 0) return Either.left(parsed.byName ? "unknownName" : "unknown")
      const ids = pkgs
        .filter((p) => p.description.modules.some((m) => m.name === parsed.module && m.interfaces.some((i) => i.name === parsed.entity)))
        .map((p) => `${p.packageId}:${parsed.module}:${parsed.entity}`)
      return ids.length === 0 ? Either.left("unknown") : Either.right(new Set(ids))
    }
  }
}

interface Unresolved {
  readonly references: Array<string>
  readonly names: Array<string>
}

const resolveFilters = (
  resolver: Resolver,
  filters: Filters,
  field: string,
  unresolved: Unresolved
): Either.Either<ResolvedFilters, InvalidArgument> => {
  const out: Array<ResolvedCumulative> = []
  for (const [i, filter] of filters.cumulative.entries()) {
    const at = `${field}.cumulative[${i}].identifierFilter`
    switch (filter._tag) {
      case "WildcardFilter":
        out.push({
          wildcard: true,
          template: undefined,
          interfaceIds: undefined,
          includeCreatedEventBlob: filter.includeCreatedEventBlob,
          includeInterfaceView: false
        })
        break
      case "TemplateFilter": {
        const resolved = resolver.template(filter.templateId, `${at}.TemplateFilter.value.templateId`)
        if (Either.isLeft(resolved)) {
          const problem = resolved.left
          if (problem === "unknown") unresolved.references.push(filter.templateId)
          else if (problem === "unknownName") unresolved.names.push(parseReference(filter.templateId)?.pkg ?? filter.templateId)
          else return Either.left(problem)
          continue
        }
        out.push({
          wildcard: false,
          template: resolved.right,
          interfaceIds: undefined,
          includeCreatedEventBlob: filter.includeCreatedEventBlob,
          includeInterfaceView: false
        })
        break
      }
      case "InterfaceFilter": {
        const resolved = resolver.interface(filter.interfaceId, `${at}.InterfaceFilter.value.interfaceId`)
        if (Either.isLeft(resolved)) {
          const problem = resolved.left
          if (problem === "unknown") unresolved.references.push(filter.interfaceId)
          else if (problem === "unknownName") unresolved.names.push(parseReference(filter.interfaceId)?.pkg ?? filter.interfaceId)
          else return Either.left(problem)
          continue
        }
        out.push({
          wildcard: false,
          template: undefined,
          interfaceIds: resolved.right,
          includeCreatedEventBlob: filter.includeCreatedEventBlob,
          includeInterfaceView: filter.includeInterfaceView
        })
        break
      }
    }
  }
  return Either.right({ filters: out })
}

const resolveEventFormatWith = (
  resolver: Resolver,
  format: EventFormat,
  field: string,
  unresolved: Unresolved,
  matchAll: boolean
): Either.Either<ResolvedEventFormat, InvalidArgument> =>
  Either.gen(function* () {
    const byParty = new Map<PartyId, ResolvedFilters>()
    for (const [party, filters] of format.filtersByParty) {
      if (party.length === 0) return yield* Either.left(new InvalidArgument({ field: `${field}.filtersByParty`, message: "a party must not be empty" }))
      byParty.set(party, yield* resolveFilters(resolver, filters, `${field}.filtersByParty.${party}`, unresolved))
    }
    const anyParty =
      format.filtersForAnyParty === undefined
        ? undefined
        : yield* resolveFilters(resolver, format.filtersForAnyParty, `${field}.filtersForAnyParty`, unresolved)
    return { byParty, anyParty, verbose: format.verbose, matchAll }
  })

const unresolvedError = (unresolved: Unresolved): TemplatesOrInterfacesNotFound | PackageNamesNotFound | undefined =>
  unresolved.names.length > 0
    ? new PackageNamesNotFound({ names: [...new Set(unresolved.names)] })
    : unresolved.references.length > 0
      ? new TemplatesOrInterfacesNotFound({ references: [...new Set(unresolved.references)] })
      : undefined

/** Resolves an event format's references against the known packages. `field` names it in errors. */
export const resolveEventFormat = (
  packages: ReadonlyArray<KnownPackage>,
  format: EventFormat,
  field: string,
  options: { readonly matchAll?: boolean } = {}
): Either.Either<ResolvedEventFormat, FilterResolutionError> =>
  Either.gen(function* () {
    const unresolved: Unresolved = { references: [], names: [] }
    const resolved = yield* resolveEventFormatWith(makeResolver(packages), format, field, unresolved, options.matchAll ?? false)
    const error = unresolvedError(unresolved)
    if (error !== undefined) return yield* Either.left(error)
    return resolved
  })

/** Resolves an update format (fields named under `field`, e.g. `updateFormat`). */
export const resolveUpdateFormat = (
  packages: ReadonlyArray<KnownPackage>,
  format: UpdateFormat,
  field: string,
  options: { readonly trees?: boolean } = {}
): Either.Either<ResolvedUpdateFormat, FilterResolutionError> =>
  Either.gen(function* () {
    const resolver = makeResolver(packages)
    const unresolved: Unresolved = { references: [], names: [] }
    const transactions =
      format.transactions === undefined
        ? undefined
        : {
            eventFormat: yield* resolveEventFormatWith(
              resolver,
              format.transactions.eventFormat,
              `${field}.includeTransactions.eventFormat`,
              unresolved,
              options.trees ?? false
            ),
            shape: options.trees === true ? ("TREE" as const) : format.transactions.shape
          }
    const reassignments =
      format.reassignments === undefined
        ? undefined
        : yield* resolveEventFormatWith(resolver, format.reassignments, `${field}.includeReassignments`, unresolved, false)
    const error = unresolvedError(unresolved)
    if (error !== undefined) return yield* Either.left(error)
    // Trees (the deprecated shape) carry no topology events.
    return { transactions, reassignments, topologyParties: options.trees === true ? undefined : format.topologyParties }
  })

/** The parties an event format names (its filtersByParty keys), sorted. */
export const partiesOf = (format: EventFormat): ReadonlyArray<PartyId> =>
  [...new Set(format.filtersByParty.map(([party]) => party))].sort()

// =============================================================================================
// Matching events
// =============================================================================================

interface Subject {
  readonly templateId: string
  readonly packageName: string
  /** Interfaces the template implements (package-id form). */
  readonly implemented: ReadonlyArray<string>
}

interface Match {
  readonly parties: ReadonlyArray<PartyId>
  readonly includeCreatedEventBlob: boolean
  /** Matched interfaces whose view (or, for exercises, name) was asked for. */
  readonly views: ReadonlyArray<string>
}

const templateMatches = (matcher: TemplateMatcher, subject: Subject): boolean => {
  const id = splitTemplateId(subject.templateId)
  if (id.module !== matcher.module || id.entity !== matcher.entity) return false
  return matcher.packageId !== undefined ? id.pkg === matcher.packageId : subject.packageName === matcher.packageName
}

interface FilterResult {
  matched: boolean
  blob: boolean
  readonly views: Set<string>
}

const applyFilters = (filters: ResolvedFilters, subject: Subject, matchAll: boolean, into: FilterResult): void => {
  if (filters.filters.length === 0) {
    into.matched = true
    return
  }
  if (matchAll) into.matched = true
  for (const filter of filters.filters) {
    if (filter.wildcard) {
      into.matched = true
      into.blob ||= filter.includeCreatedEventBlob
    } else if (filter.template !== undefined) {
      if (templateMatches(filter.template, subject)) {
        into.matched = true
        into.blob ||= filter.includeCreatedEventBlob
      }
    } else if (filter.interfaceIds !== undefined) {
      const hit = subject.implemented.filter((i) => filter.interfaceIds!.has(i))
      if (hit.length > 0) {
        into.matched = true
        into.blob ||= filter.includeCreatedEventBlob
        if (filter.includeInterfaceView) for (const i of hit) into.views.add(i)
      }
    }
  }
}

/**
 * Which of the event's audience (stakeholders for ACS delta, witnesses for ledger effects) the
 * format shows it to. Any-party filters apply to the parties hosted on the participant.
 */
const matchEvent = (
  format: ResolvedEventFormat,
  audience: ReadonlyArray<PartyId>,
  hosts: (party: PartyId) => boolean,
  subject: Subject
): Match | undefined => {
  const parties: Array<PartyId> = []
  let blob = false
  const views = new Set<string>()
  for (const party of audience) {
    const own = format.byParty.get(party)
    const any = format.anyParty !== undefined && hosts(party) ? format.anyParty : undefined
    if (own === undefined && any === undefined) continue
    const result: FilterResult = { matched: false, blob: false, views: new Set() }
    if (own !== undefined) applyFilters(own, subject, format.matchAll, result)
    if (any !== undefined) applyFilters(any, subject, format.matchAll, result)
    if (!result.matched) continue
    parties.push(party)
    blob ||= result.blob
    for (const v of result.views) views.add(v)
  }
  if (parties.length === 0) return undefined
  return { parties: [...new Set(parties)].sort(), includeCreatedEventBlob: blob, views: [...views].sort() }
}

// =============================================================================================
// Filtered updates
// =============================================================================================

export interface CreatedEventView {
  readonly kind: "created"
  readonly offset: number
  readonly node: CreatedNode
  readonly witnessParties: ReadonlyArray<PartyId>
  readonly acsDelta: boolean
  /** Set when a matching filter asked for it. */
  readonly createdEventBlob: string | undefined
  /** Interface views asked for by matching interface filters. */
  readonly interfaceViews: ReadonlyArray<{ readonly interfaceId: string; readonly view: Json }>
  /** The package of the template (Sandnet has no package preference: the creating package). */
  readonly representativePackageId: string
}

export interface ArchivedEventView {
  readonly kind: "archived"
  readonly offset: number
  readonly node: ExercisedNode
  readonly witnessParties: ReadonlyArray<PartyId>
  readonly implementedInterfaces: ReadonlyArray<string>
}

export interface ExercisedEventView {
  readonly kind: "exercised"
  readonly offset: number
  readonly node: ExercisedNode
  readonly witnessParties: ReadonlyArray<PartyId>
  readonly acsDelta: boolean
  readonly implementedInterfaces: ReadonlyArray<string>
}

export type EventView = CreatedEventView | ArchivedEventView | ExercisedEventView

export interface TransactionView {
  readonly kind: "transaction"
  readonly offset: number
  readonly update: TransactionUpdate
  readonly shape: TransactionShape | "TREE"
  /** In node-id order. */
  readonly events: ReadonlyArray<EventView>
  /** Root node ids of the events shown (trees). */
  readonly rootNodeIds: ReadonlyArray<number>
  /** Command id and paid traffic cost are shown to the submitting parties on the submitting participant only. */
  readonly forSubmitter: boolean
}

export interface UnassignedEventView {
  readonly kind: "unassigned"
  readonly offset: number
  readonly witnessParties: ReadonlyArray<PartyId>
}

export interface AssignedEventView {
  readonly kind: "assigned"
  readonly offset: number
  readonly created: CreatedEventView
}

export interface ReassignmentView {
  readonly kind: "reassignment"
  readonly offset: number
  readonly update: ReassignmentUpdate
  readonly event: UnassignedEventView | AssignedEventView
  readonly forSubmitter: boolean
}

export interface SynchronizerTime {
  readonly synchronizerId: SynchronizerId
  readonly recordTime: Micros
}

export interface CheckpointView {
  readonly kind: "checkpoint"
  readonly offset: number
  readonly synchronizerTimes: ReadonlyArray<SynchronizerTime>
}

export interface TopologyTransactionView {
  readonly kind: "topology"
  readonly offset: number
  readonly update: TopologyUpdate
  /** The events of the requested parties (non-empty). */
  readonly events: ReadonlyArray<ParticipantAuthorizationEvent>
}

export type UpdateView = TransactionView | ReassignmentView | TopologyTransactionView

export type StreamItem = UpdateView | CheckpointView

const requestingParties = (format: ResolvedEventFormat, logic: ParticipantLogic): ReadonlySet<PartyId> => {
  const parties = new Set<PartyId>(format.byParty.keys())
  if (format.anyParty !== undefined) for (const p of logic.hostedParties()) parties.add(p)
  return parties
}

const isForSubmitter = (
  format: ResolvedEventFormat,
  logic: ParticipantLogic,
  submittingParticipant: string,
  submitters: ReadonlyArray<PartyId>
): boolean => {
  if (submittingParticipant !== logic.uid) return false
  const parties = requestingParties(format, logic)
  return submitters.some((p) => parties.has(p))
}

/** The created-event blob of a contract: what a client passes back as a disclosed contract. */
export const createdEventBlob = (contract: ActiveContract): string =>
  Buffer.from(canonicalJson({ sandnetCreatedEvent: 1, contract }), "utf8").toString("base64")

const decodeActiveContract = Schema.decodeUnknownEither(Schema.Struct({ sandnetCreatedEvent: Schema.Literal(1), contract: ActiveContractSchema }))

/** Reads a created-event blob back; undefined when it is not one. */
export const decodeCreatedEventBlob = (blob: string): ActiveContract | undefined => {
  const bytes = External.base64ToBytes(blob)
  if (bytes === undefined || bytes.length === 0) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes))
  } catch {
    return undefined
  }
  const decoded = decodeActiveContract(parsed)
  return Either.isRight(decoded) ? decoded.right.contract : undefined
}

const createdView = (
  node: CreatedNode,
  offset: number,
  match: Match,
  acsDelta: boolean,
  contract: () => ActiveContract
): CreatedEventView => ({
  kind: "created",
  offset,
  node,
  witnessParties: match.parties,
  acsDelta,
  createdEventBlob: match.includeCreatedEventBlob ? createdEventBlob(contract()) : undefined,
  interfaceViews: match.views.flatMap((interfaceId) => {
    const view = node.interfaceViews[interfaceId]
    return view === undefined ? [] : [{ interfaceId, view }]
  }),
  representativePackageId: splitTemplateId(node.templateId).pkg
})

const createdSubject = (node: CreatedNode): Subject => ({
  templateId: node.templateId,
  packageName: node.packageName,
  implemented: Object.keys(node.interfaceViews).sort()
})

const exercisedSubject = (node: ExercisedNode): Subject => ({
  templateId: node.templateId,
  packageName: node.packageName,
  implemented: node.implementedInterfaces
})

/** Contracts created and archived by the same transaction (not part of its ACS delta). */
const transientContracts = (update: TransactionUpdate): ReadonlySet<ContractId> => {
  const created = new Set<ContractId>()
  const transient = new Set<ContractId>()
  for (const node of update.nodes) {
    if (node.kind === "created") created.add(node.contractId)
    else if (node.consuming && created.has(node.contractId)) transient.add(node.contractId)
  }
  return transient
}

/** A transaction as the format shows it; undefined when no event is left. */
export const viewTransaction = (
  logic: ParticipantLogic,
  entry: CommittedUpdate,
  format: ResolvedTransactionFormat
): TransactionView | undefined => {
  const update = entry.update
  if (update.kind !== "transaction") return undefined
  const hosts = (p: PartyId) => logic.hosts(p)
  const transient = transientContracts(update)
  const ef = format.eventFormat
  const contractOf = (node: CreatedNode) => (): ActiveContract => ({
    created: node,
    createdInUpdateId: update.updateId,
    synchronizerId: update.synchronizerId,
    reassignmentCounter: 0
  })
  const events: Array<EventView> = []
  for (const node of update.nodes) {
    if (format.shape === "ACS_DELTA") {
      if (transient.has(node.contractId)) continue
      if (node.kind === "created") {
        const match = matchEvent(ef, [...node.signatories, ...node.observers], hosts, createdSubject(node))
        if (match !== undefined) events.push(createdView(node, entry.offset, match, true, contractOf(node)))
      } else if (node.consuming) {
        const match = matchEvent(ef, node.stakeholders, hosts, exercisedSubject(node))
        if (match !== undefined) {
          events.push({ kind: "archived", offset: entry.offset, node, witnessParties: match.parties, implementedInterfaces: match.views })
        }
      }
      continue
    }
    // Ledger effects and trees: witnesses see the node.
    if (node.kind === "created") {
      const match = matchEvent(ef, node.witnesses, hosts, createdSubject(node))
      if (match === undefined) continue
      const stakeholderSees =
        !transient.has(node.contractId) &&
        matchEvent(ef, [...node.signatories, ...node.observers], hosts, createdSubject(node)) !== undefined
      events.push(createdView(node, entry.offset, match, stakeholderSees, contractOf(node)))
    } else {
      const match = matchEvent(ef, node.witnesses, hosts, exercisedSubject(node))
      if (match === undefined) continue
      const acsDelta =
        node.consuming && !transient.has(node.contractId) && matchEvent(ef, node.stakeholders, hosts, exercisedSubject(node)) !== undefined
      events.push({ kind: "exercised", offset: entry.offset, node, witnessParties: match.parties, acsDelta, implementedInterfaces: match.views })
    }
  }
  if (events.length === 0) return undefined
  const shown = new Set(events.map((e) => e.node.nodeId))
  const parentOf = new Map<number, number>()
  for (const node of update.nodes) if (node.kind === "exercised") for (const child of node.childNodeIds) parentOf.set(child, node.nodeId)
  const rootNodeIds = events
    .map((e) => e.node.nodeId)
    .filter((id) => {
      let parent = parentOf.get(id)
      while (parent !== undefined) {
        if (shown.has(parent)) return false
        parent = parentOf.get(parent)
      }
      return true
    })
  return {
    kind: "transaction",
    offset: entry.offset,
    update,
    shape: format.shape,
    events,
    rootNodeIds,
    forSubmitter: isForSubmitter(ef, logic, update.submittingParticipant, update.submitters)
  }
}

/** A reassignment as the format shows it (ACS-delta rules: stakeholders). */
export const viewReassignment = (
  logic: ParticipantLogic,
  entry: CommittedUpdate,
  format: ResolvedEventFormat
): ReassignmentView | undefined => {
  const update = entry.update
  if (update.kind !== "reassignment") return undefined
  const hosts = (p: PartyId) => logic.hosts(p)
  const event = update.event
  const forSubmitter = isForSubmitter(format, logic, update.submittingParticipant, [update.submitter])
  if (event.kind === "unassign") {
    const match = matchEvent(format, event.stakeholders, hosts, {
      templateId: event.templateId,
      packageName: event.packageName,
      implemented: []
    })
    if (match === undefined) return undefined
    return { kind: "reassignment", offset: entry.offset, update, event: { kind: "unassigned", offset: entry.offset, witnessParties: match.parties }, forSubmitter }
  }
  const node = event.createdEvent
  const match = matchEvent(format, [...node.signatories, ...node.observers], hosts, createdSubject(node))
  if (match === undefined) return undefined
  const contract = (): ActiveContract => ({
    created: node,
    createdInUpdateId: update.updateId,
    synchronizerId: event.targetSynchronizer,
    reassignmentCounter: event.reassignmentCounter
  })
  return {
    kind: "reassignment",
    offset: entry.offset,
    update,
    event: { kind: "assigned", offset: entry.offset, created: createdView(node, entry.offset, match, true, contract) },
    forSubmitter
  }
}

/**
 * A topology update as participant authorization events of `parties` show it (empty: every party;
 * the caller's right to read them was checked with the format); undefined when none is left.
 */
export const viewTopology = (entry: CommittedUpdate, parties: ReadonlyArray<PartyId>): TopologyTransactionView | undefined => {
  const update = entry.update
  if (update.kind !== "topology") return undefined
  const events = parties.length === 0 ? update.events : update.events.filter((e) => parties.includes(e.partyId))
  if (events.length === 0) return undefined
  return { kind: "topology", offset: entry.offset, update, events }
}

/** One committed update as an update format shows it; undefined when everything is filtered out. */
export const viewUpdate = (logic: ParticipantLogic, entry: CommittedUpdate, format: ResolvedUpdateFormat): UpdateView | undefined => {
  switch (entry.update.kind) {
    case "transaction":
      return format.transactions === undefined ? undefined : viewTransaction(logic, entry, format.transactions)
    case "reassignment":
      return format.reassignments === undefined ? undefined : viewReassignment(logic, entry, format.reassignments)
    case "topology":
      return format.topologyParties === undefined ? undefined : viewTopology(entry, format.topologyParties)
  }
}

// =============================================================================================
// Streams and lookups
// =============================================================================================

export interface UpdatesQuery {
  readonly beginExclusive: number
  readonly endInclusive?: number | undefined
  readonly descending: boolean
  /** At most this many items (updates and checkpoints). */
  readonly maxItems: number
  readonly format: ResolvedUpdateFormat
}

export interface UpdatesPage {
  readonly items: ReadonlyArray<StreamItem>
  /** The last offset examined (the next page begins after it). */
  readonly scannedTo: number
  /** True when the page stopped at `maxItems`. */
  readonly truncated: boolean
}

/** Checks a stream's offsets against the ledger end: both must be at or before it. */
export const checkOffsets = (
  logic: ParticipantLogic,
  beginExclusive: number,
  endInclusive: number | undefined,
  fields: { readonly begin: string; readonly end: string } = { begin: "beginExclusive", end: "endInclusive" }
): OffsetAfterLedgerEnd | undefined => {
  if (beginExclusive > logic.ledgerEnd) return new OffsetAfterLedgerEnd({ field: fields.begin, offset: beginExclusive, ledgerEnd: logic.ledgerEnd })
  if (endInclusive !== undefined && endInclusive > logic.ledgerEnd) {
    return new OffsetAfterLedgerEnd({ field: fields.end, offset: endInclusive, ledgerEnd: logic.ledgerEnd })
  }
  return undefined
}

/** The latest record time of each synchronizer among the updates at or before `offset`, by synchronizer id. */
export const synchronizerTimesAt = (logic: ParticipantLogic, offset: number): ReadonlyArray<SynchronizerTime> => {
  const known = logic.topology.synchronizers().map((s) => s.synchronizerId)
  const times = new Map<SynchronizerId, Micros>()
  for (let at = Math.min(offset, logic.ledgerEnd); at >= 1 && times.size < known.length; at--) {
    const update = logic.updateAtOffset(at)?.update
    if (update !== undefined && !times.has(update.synchronizerId)) times.set(update.synchronizerId, update.recordTime)
  }
  return [...times.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([synchronizerId, recordTime]) => ({ synchronizerId, recordTime }))
}

/** One page of the update stream (see the module comment for the checkpoint rule). */
export const readUpdates = (logic: ParticipantLogic, query: UpdatesQuery): UpdatesPage => {
  const end = Math.min(query.endInclusive ?? logic.ledgerEnd, logic.ledgerEnd)
  const items: Array<StreamItem> = []
  if (query.maxItems <= 0 || end <= query.beginExclusive) return { items, scannedTo: Math.max(query.beginExclusive, end), truncated: false }
  if (query.descending) {
    for (let offset = end; offset > query.beginExclusive; offset--) {
      const entry = logic.updateAtOffset(offset)
      const view = entry === undefined ? undefined : viewUpdate(logic, entry, query.format)
      if (view === undefined) continue
      items.push(view)
      if (items.length >= query.maxItems) return { items, scannedTo: offset, truncated: offset > query.beginExclusive + 1 }
    }
    return { items, scannedTo: query.beginExclusive, truncated: false }
  }
  let lastShown = query.beginExclusive
  for (let offset = query.beginExclusive + 1; offset <= end; offset++) {
    const entry = logic.updateAtOffset(offset)
    const view = entry === undefined ? undefined : viewUpdate(logic, entry, query.format)
    if (view === undefined) continue
    items.push(view)
    lastShown = offset
    if (items.length >= query.maxItems) return { items, scannedTo: offset, truncated: offset < end }
  }
  if (end > lastShown) {
    if (items.length >= query.maxItems) return { items, scannedTo: lastShown, truncated: true }
    items.push({ kind: "checkpoint", offset: end, synchronizerTimes: synchronizerTimesAt(logic, end) })
  }
  return { items, scannedTo: end, truncated: false }
}

/** L6: an update by id, as the format shows it. */
export const updateById = (logic: ParticipantLogic, updateId: string, format: ResolvedUpdateFormat): Either.Either<UpdateView, UpdateNotFound> => {
  const entry = logic.updateById(updateId)
  const view = entry === undefined ? undefined : viewUpdate(logic, entry, format)
  return view === undefined ? Either.left(new UpdateNotFound({ updateId })) : Either.right(view)
}

/** An update by offset, as the format shows it. */
export const updateByOffset = (logic: ParticipantLogic, offset: number, format: ResolvedUpdateFormat): Either.Either<UpdateView, UpdateNotFound> => {
  const entry = logic.updateAtOffset(offset)
  const view = entry === undefined ? undefined : viewUpdate(logic, entry, format)
  return view === undefined ? Either.left(new UpdateNotFound({ offset })) : Either.right(view)
}

export interface UpdatesPageQuery {
  readonly beginExclusive: number
  /** The page's upper bound (the ledger end when the request named none). */
  readonly endInclusive: number
  readonly descending: boolean
  readonly maxItems: number
  readonly format: ResolvedUpdateFormat
}

export interface UpdatesPageResult {
  /** The updates of the page (no checkpoints), in the requested order. */
  readonly updates: ReadonlyArray<UpdateView>
  /** The page covers the offsets in (lowestExclusive, highestInclusive]. */
  readonly lowestExclusive: number
  readonly highestInclusive: number
  /** Whether updates of the range lie beyond the page (the next page continues after it). */
  readonly more: boolean
}

/**
 * One page of updates (`get-updates-page`): at most `maxItems` updates of (beginExclusive,
 * endInclusive], from the low end (ascending) or the high end (descending), with the offsets the
 * page covers so that the next page starts right after (or below) it.
 */
export const readUpdatesPage = (logic: ParticipantLogic, query: UpdatesPageQuery): UpdatesPageResult => {
  const page = readUpdates(logic, {
    beginExclusive: query.beginExclusive,
    endInclusive: query.endInclusive,
    descending: query.descending,
    maxItems: query.maxItems,
    format: query.format
  })
  const updates = page.items.filter((item): item is UpdateView => item.kind !== "checkpoint")
  const end = Math.max(query.beginExclusive, Math.min(query.endInclusive, logic.ledgerEnd))
  if (query.descending) {
    return {
      updates,
      lowestExclusive: page.truncated ? page.scannedTo - 1 : query.beginExclusive,
      highestInclusive: end,
      more: page.truncated
    }
  }
  return { updates, lowestExclusive: query.beginExclusive, highestInclusive: page.truncated ? page.scannedTo : end, more: page.truncated }
}

// =============================================================================================
// Active contracts
// =============================================================================================

export interface ActiveContractView {
  readonly created: CreatedEventView
  readonly synchronizerId: SynchronizerId
  readonly reassignmentCounter: number
  readonly workflowId: string
}

/**
 * The participant's active contracts at an offset (replayed from its update log), as an event
 * format shows them (stakeholder rules). Oldest first. Contracts in flight between synchronizers
 * at that offset are not listed.
 */
export const activeContractsAt = (
  logic: ParticipantLogic,
  offset: number,
  format: ResolvedEventFormat
): ReadonlyArray<ActiveContractView> => {
  const active = new Map<ContractId, { contract: ActiveContract; offset: number; workflowId: string }>()
  const hostedStakeholder = (node: CreatedNode) => [...node.signatories, ...node.observers].some((p) => logic.hosts(p))
  for (let at = 1; at <= Math.min(offset, logic.ledgerEnd); at++) {
    const entry = logic.updateAtOffset(at)
    if (entry === undefined) continue
    const update = entry.update
    if (update.kind === "transaction") {
      for (const node of update.nodes) {
        if (node.kind === "created") {
          if (hostedStakeholder(node)) {
            active.set(node.contractId, {
              contract: { created: node, createdInUpdateId: update.updateId, synchronizerId: update.synchronizerId, reassignmentCounter: 0 },
              offset: at,
              workflowId: update.workflowId
            })
          }
        } else if (node.consuming) {
          active.delete(node.contractId)
        }
      }
    } else if (update.kind === "topology") {
      // changes no contract
    } else if (update.event.kind === "unassign") {
      active.delete(update.event.contractId)
    } else {
      const node = update.event.createdEvent
      active.set(node.contractId, {
        contract: {
          created: node,
          createdInUpdateId: update.updateId,
          synchronizerId: update.event.targetSynchronizer,
          reassignmentCounter: update.event.reassignmentCounter
        },
        offset: at,
        workflowId: update.workflowId
      })
    }
  }
  const out: Array<ActiveContractView> = []
  const hosts = (p: PartyId) => logic.hosts(p)
  for (const { contract, offset: at, workflowId } of active.values()) {
    const match = matchEvent(format, stakeholdersOf(contract), hosts, createdSubject(contract.created))
    if (match === undefined) continue
    out.push({
      created: createdView(contract.created, at, match, true, () => contract),
      synchronizerId: contract.synchronizerId,
      reassignmentCounter: contract.reassignmentCounter,
      workflowId
    })
  }
  return out
}

// =============================================================================================
// Events by contract id, contracts by id
// =============================================================================================

/** No create or archive event of the contract is visible with the format (CONTRACT_EVENTS_NOT_FOUND). */
export class ContractEventsNotFound extends Schema.TaggedError<ContractEventsNotFound>()("ContractEventsNotFound", {
  contractId: Schema.String
}) {
  override get message(): string {
    return `Contract events not found, or not visible: contract id ${this.contractId}`
  }
}

/** No contract with this id is known here, or none of the querying parties is a stakeholder (CONTRACT_NOT_FOUND). */
export class ContractNotFoundById extends Schema.TaggedError<ContractNotFoundById>()("ContractNotFoundById", {
  contractId: Schema.String
}) {
  override get message(): string {
    return `Contract could not be found with id ${this.contractId}`
  }
}

interface ContractEventsEntry {
  /** Offset of the update with the contract's first create event (a transaction, else an assignment). */
  created: number | undefined
  /** Offset of the transaction whose consuming exercise archived it. */
  archived: number | undefined
}

interface ContractEventsIndex {
  indexedTo: number
  readonly byContract: Map<ContractId, ContractEventsEntry>
}

/**
 * Where each contract was created and archived in a participant's update log, built on first use
 * and caught up with the log on every later one (kept beside the logic: a rebuilt node starts a
 * new index; the simulation never pays for it).
 */
const contractIndexes = new WeakMap<ParticipantLogic, ContractEventsIndex>()

const contractEventsIndex = (logic: ParticipantLogic): ContractEventsIndex => {
  let index = contractIndexes.get(logic)
  if (index === undefined) {
    index = { indexedTo: 0, byContract: new Map() }
    contractIndexes.set(logic, index)
  }
  const entryOf = (id: ContractId): ContractEventsEntry => {
    let entry = index!.byContract.get(id)
    if (entry === undefined) index!.byContract.set(id, (entry = { created: undefined, archived: undefined }))
    return entry
  }
  for (let at = index.indexedTo + 1; at <= logic.ledgerEnd; at++) {
    const update = logic.updateAtOffset(at)?.update
    if (update === undefined) continue
    if (update.kind === "transaction") {
      for (const node of update.nodes) {
        if (node.kind === "created") {
          const entry = entryOf(node.contractId)
          // A contract seen assigned before its creation arrived: the creation is its create event.
          if (entry.created === undefined || logic.updateAtOffset(entry.created)?.update.kind !== "transaction") entry.created = at
        } else if (node.consuming) {
          const entry = entryOf(node.contractId)
          entry.archived ??= at
        }
      }
    } else if (update.kind === "reassignment" && update.event.kind === "assign") {
      const entry = entryOf(update.event.createdEvent.contractId)
      entry.created ??= at
    }
  }
  index.indexedTo = logic.ledgerEnd
  return index
}

interface FoundCreate {
  readonly node: CreatedNode
  readonly offset: number
  readonly contract: ActiveContract
  readonly transient: boolean
}

const createOf = (logic: ParticipantLogic, offset: number | undefined, contractId: ContractId): FoundCreate | undefined => {
  const entry = offset === undefined ? undefined : logic.updateAtOffset(offset)
  if (entry === undefined) return undefined
  const update = entry.update
  if (update.kind === "transaction") {
    const node = update.nodes.find((n): n is CreatedNode => n.kind === "created" && n.contractId === contractId)
    if (node === undefined) return undefined
    return {
      node,
      offset: entry.offset,
      contract: { created: node, createdInUpdateId: update.updateId, synchronizerId: update.synchronizerId, reassignmentCounter: 0 },
      transient: transientContracts(update).has(contractId)
    }
  }
  if (update.kind === "reassignment" && update.event.kind === "assign") {
    const node = update.event.createdEvent
    return {
      node,
      offset: entry.offset,
      contract: {
        created: node,
        createdInUpdateId: update.updateId,
        synchronizerId: update.event.targetSynchronizer,
        reassignmentCounter: update.event.reassignmentCounter
      },
      transient: false
    }
  }
  return undefined
}

export interface ContractEvents {
  readonly created: { readonly event: CreatedEventView; readonly synchronizerId: SynchronizerId } | undefined
  readonly archived: { readonly event: ArchivedEventView; readonly synchronizerId: SynchronizerId } | undefined
}

/**
 * The create and the archive event of a contract as an event format shows them (ACS-delta rules:
 * a requesting party must be a stakeholder and its filter match). Active and archived contracts
 * alike; a contract created and archived in one transaction shows both, the create with
 * `acsDelta` false. None visible: ContractEventsNotFound.
 */
export const eventsByContractId = (
  logic: ParticipantLogic,
  contractId: ContractId,
  format: ResolvedEventFormat
): Either.Either<ContractEvents, ContractEventsNotFound> => {
  const entry = contractEventsIndex(logic).byContract.get(contractId)
  const hosts = (p: PartyId) => logic.hosts(p)
  let created: ContractEvents["created"] = undefined
  const create = createOf(logic, entry?.created, contractId)
  if (create !== undefined) {
    const match = matchEvent(format, stakeholdersOf(create.contract), hosts, createdSubject(create.node))
    if (match !== undefined) {
      created = { event: createdView(create.node, create.offset, match, !create.transient, () => create.contract), synchronizerId: create.contract.synchronizerId }
    }
  }
  let archived: ContractEvents["archived"] = undefined
  const archiving = entry?.archived === undefined ? undefined : logic.updateAtOffset(entry.archived)
  if (archiving !== undefined && archiving.update.kind === "transaction") {
    const update = archiving.update
    const node = update.nodes.find((n): n is ExercisedNode => n.kind === "exercised" && n.consuming && n.contractId === contractId)
    if (node !== undefined) {
      const match = matchEvent(format, node.stakeholders, hosts, exercisedSubject(node))
      if (match !== undefined) {
        archived = {
          event: { kind: "archived", offset: archiving.offset, node, witnessParties: match.parties, implementedInterfaces: match.views },
          synchronizerId: update.synchronizerId
        }
      }
    }
  }
  if (created === undefined && archived === undefined) return Either.left(new ContractEventsNotFound({ contractId }))
  return Either.right({ created, archived })
}

/**
 * A contract by id (the contract service): its create event, when one of the querying parties is
 * a stakeholder (no querying parties: any contract this participant knows). Archived contracts
 * are found too, as on Canton (its contract store keeps them until pruning).
 */
export const contractById = (
  logic: ParticipantLogic,
  contractId: ContractId,
  queryingParties: ReadonlyArray<PartyId>
): Either.Either<{ readonly contract: ActiveContract; readonly witnessParties: ReadonlyArray<PartyId> }, ContractNotFoundById> => {
  const create = createOf(logic, contractEventsIndex(logic).byContract.get(contractId)?.created, contractId)
  if (create === undefined) return Either.left(new ContractNotFoundById({ contractId }))
  const stakeholders = stakeholdersOf(create.contract)
  const witnessParties = queryingParties.length === 0 ? [...new Set(stakeholders)].sort() : [...new Set(queryingParties.filter((p) => stakeholders.includes(p)))].sort()
  if (witnessParties.length === 0) return Either.left(new ContractNotFoundById({ contractId }))
  return Either.right({ contract: create.contract, witnessParties })
}

// =============================================================================================
// Command completions
// =============================================================================================

export interface CompletionsQuery {
  /** Only commands submitted by this user (undefined: any user). */
  readonly userId: string | undefined
  /** Only commands acting for one of these parties (empty: any party). */
  readonly parties: ReadonlyArray<PartyId>
}

export interface CompletionView {
  readonly kind: "completion"
  readonly record: CompletionRecord
  /** The command's actAs parties among the requested ones (all of them when any party was asked for). */
  readonly actAs: ReadonlyArray<PartyId>
}

export type CompletionItem = CompletionView | CheckpointView

/** Where a completion stream stands: the next completion to look at and the offset it covered. */
export interface CompletionCursor {
  readonly index: number
  readonly coveredTo: number
}

/** The cursor of a stream that starts after `beginExclusive`: at the first completion with a greater offset. */
export const completionsFrom = (logic: ParticipantLogic, beginExclusive: number): CompletionCursor => {
  const list = logic.completions
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid]!.offset <= beginExclusive) lo = mid + 1
    else hi = mid
  }
  return { index: lo, coveredTo: beginExclusive }
}

/**
 * The next completions of a stream (command completion service): those of the user's commands
 * acting for a requested party, from the cursor on, at most `maxItems` items. When the ledger end
 * lies after the last offset covered and the limit did not cut the page, an OffsetCheckpoint at
 * the ledger end closes it (as the update stream's checkpoints).
 */
export const readCompletions = (
  logic: ParticipantLogic,
  query: CompletionsQuery,
  cursor: CompletionCursor,
  maxItems: number
): { readonly items: ReadonlyArray<CompletionItem>; readonly cursor: CompletionCursor; readonly truncated: boolean } => {
  const items: Array<CompletionItem> = []
  const list = logic.completions
  const requested = new Set(query.parties)
  let coveredTo = cursor.coveredTo
  let index = cursor.index
  for (; index < list.length; index++) {
    if (items.length >= maxItems) return { items, cursor: { index, coveredTo }, truncated: true }
    const record = list[index]!
    if (query.userId !== undefined && record.userId !== query.userId) continue
    const actAs = requested.size === 0 ? [...record.completion.actAs] : record.completion.actAs.filter((p) => requested.has(p))
    if (actAs.length === 0) continue
    items.push({ kind: "completion", record, actAs })
    coveredTo = Math.max(coveredTo, record.offset)
  }
  if (logic.ledgerEnd > coveredTo) {
    if (items.length >= maxItems) return { items, cursor: { index, coveredTo }, truncated: true }
    items.push({ kind: "checkpoint", offset: logic.ledgerEnd, synchronizerTimes: synchronizerTimesAt(logic, logic.ledgerEnd) })
    coveredTo = logic.ledgerEnd
  }
  return { items, cursor: { index, coveredTo }, truncated: false }
}

/** The paid traffic cost of a successful command's transaction, as its update on this participant records it. */
export const completionTrafficCost = (logic: ParticipantLogic, record: CompletionRecord): number | undefined => {
  if (record.completion._tag !== "Succeeded") return undefined
  const update = logic.updateById(record.completion.updateId)?.update
  return update?.kind === "transaction" ? update.paidTrafficCost : undefined
}

/**
 * One page of the active contracts at an offset (`active-contracts-page`): the contracts from
 * position `from` of the snapshot (oldest first, the order of `activeContractsAt`), at most
 * `maxItems`; `next` is where the next page starts, undefined on the last page.
 */
export const activeContractsPage = (
  logic: ParticipantLogic,
  offset: number,
  format: ResolvedEventFormat,
  from: number,
  maxItems: number
): { readonly contracts: ReadonlyArray<ActiveContractView>; readonly next: number | undefined } => {
  const all = activeContractsAt(logic, offset, format)
  const contracts = all.slice(from, from + maxItems)
  return { contracts, next: from + contracts.length < all.length ? from + contracts.length : undefined }
}

// =============================================================================================
// Commands
// =============================================================================================

const formatIssues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`))
    .join("; ")

const decodeValue = <A>(schema: Schema.Schema<A>, value: unknown, field: string): Either.Either<unknown, InvalidArgument> => {
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all" })(value)
  return Either.isLeft(decoded) ? Either.left(new InvalidArgument({ field, message: formatIssues(decoded.left) })) : Either.right(value)
}

/**
 * Checks commands before interpretation: the template exists (either reference form), the choice
 * exists, and the create arguments and choice argument decode with the template's Schemas (so a
 * bad field is a 400 naming it). `field` is the commands' JSON path, e.g. `commands`.
 */
export const checkCommands = (
  registry: TemplateRegistry,
  commands: ReadonlyArray<Command>,
  field: string
): Either.Either<ReadonlyArray<Command>, InvalidArgument | TemplatesOrInterfacesNotFound> =>
  Either.gen(function* () {
    for (const [i, command] of commands.entries()) {
      const at = `${field}[${i}].${command._tag}`
      if (parseReference(command.templateId) === undefined) {
        return yield* Either.left(new InvalidArgument({ field: `${at}.templateId`, message: `"${command.templateId}" is not a valid template identifier` }))
      }
      const template: Template<unknown> | undefined = registry.lookup(command.templateId)
      if (template === undefined) return yield* Either.left(new TemplatesOrInterfacesNotFound({ references: [command.templateId] }))
      if (command._tag !== "ExerciseCommand") yield* decodeValue(template.payload, command.createArguments, `${at}.createArguments`)
      if (command._tag !== "CreateCommand") {
        const choice = template.choices.get(command.choice)
        if (choice === undefined) {
          return yield* Either.left(new InvalidArgument({ field: `${at}.choice`, message: `template ${template.nameReference} has no choice ${command.choice}` }))
        }
        yield* decodeValue(choice.argument, command.choiceArgument, `${at}.choiceArgument`)
      }
    }
    return commands
  })

/** Disclosed contracts from their blobs; a blob that is not one, or disagrees with its stated ids, is an InvalidArgument. */
export const decodeDisclosedContracts = (
  disclosed: ReadonlyArray<{ readonly createdEventBlob: string; readonly contractId?: string | undefined; readonly templateId?: string | undefined }>,
  field: string
): Either.Either<ReadonlyArray<ActiveContract>, InvalidArgument> =>
  Either.gen(function* () {
    const out: Array<ActiveContract> = []
    for (const [i, d] of disclosed.entries()) {
      const contract = decodeCreatedEventBlob(d.createdEventBlob)
      if (contract === undefined) {
        return yield* Either.left(new InvalidArgument({ field: `${field}[${i}].createdEventBlob`, message: "is not a created event blob of this network" }))
      }
      if (d.contractId !== undefined && d.contractId !== "" && d.contractId !== contract.created.contractId) {
        return yield* Either.left(new InvalidArgument({ field: `${field}[${i}].contractId`, message: `does not match the blob's contract ${contract.created.contractId}` }))
      }
      if (d.templateId !== undefined && d.templateId !== "") {
        const ref = parseReference(d.templateId)
        const own = splitTemplateId(contract.created.templateId)
        const same =
          ref !== undefined &&
          ref.module === own.module &&
          ref.entity === own.entity &&
          (ref.byName ? ref.pkg === contract.created.packageName : ref.pkg === own.pkg)
        if (!same) {
          return yield* Either.left(new InvalidArgument({ field: `${field}[${i}].templateId`, message: `does not match the blob's template ${contract.created.templateId}` }))
        }
      }
      out.push(contract)
    }
    return out
  })

// =============================================================================================
// Parties
// =============================================================================================

export interface PartyInfo {
  readonly party: PartyId
  /** Hosted on this participant. */
  readonly isLocal: boolean
  readonly external: boolean
}

/** The parties the topology knows, sorted, with whether this participant hosts them. */
export const knownParties = (logic: ParticipantLogic): ReadonlyArray<PartyInfo> =>
  logic.topology
    .allParties()
    .map((h) => ({ party: h.party, isLocal: logic.hosts(h.party), external: h.external }))
    .sort((a, b) => (a.party < b.party ? -1 : a.party > b.party ? 1 : 0))

/** The participant id as the ledger API prints it (`<name>::<namespace>`, no member prefix). */
export const participantIdOf = (logic: ParticipantLogic): string => uidWithoutPrefix(logic.uid)

export class UnknownHostingParticipant extends Schema.TaggedError<UnknownHostingParticipant>()("UnknownHostingParticipant", {
  participantUid: Schema.String
}) {
  override get message(): string {
    return `participant ${this.participantUid} is not a participant of this network`
  }
}

/**
 * Hosts a verified external party: its hosting (participants with `PAR::` uids, permissions,
 * threshold) goes into the topology, its signing keys into the network's ledger API state, and each
 * hosting participant of the network commits its topology update (ParticipantAuthorizationAdded). Runs
 * inside the engine's lock.
 */
export const hostExternalParty = (
  network: CoinNetwork,
  topology: TopologyState,
  party: External.VerifiedExternalParty,
  /** When the hosting becomes effective (the record time of the participants' topology updates). */
  now: Micros,
  /** The synchronizer the party was allocated on (the participants' default when not given). */
  synchronizerId?: SynchronizerId
): Either.Either<PartyId, PartyAlreadyExists | UnknownHostingParticipant> => {
  if (topology.isKnownParty(party.partyId)) return Either.left(new PartyAlreadyExists({ party: party.partyId }))
  const participants: Array<{ participantUid: string; permission: ParticipantPermission }> = []
  for (const p of party.hosting.participants) {
    const uid = p.participantUid.startsWith("PAR::") ? p.participantUid : `PAR::${p.participantUid}`
    if (topology.participant(uid) === undefined) return Either.left(new UnknownHostingParticipant({ participantUid: p.participantUid }))
    participants.push({ participantUid: uid, permission: p.permission })
  }
  topology.setHosting({ party: party.partyId, participants, threshold: party.hosting.threshold, external: true })
  ledgerApiState(network).externalParties.set(party.partyId, party.signingKeys)
  // Every hosting participant of this network starts hosting the party: each commits its
  // topology update (with its own permission), in the network's participant order.
  for (const node of network.participants) {
    if (node.logic.hosts(party.partyId)) node.logic.authorizationAdded(party.partyId, now, synchronizerId)
  }
  return Either.right(party.partyId)
}

/** The registered signing keys of an external party, when it was allocated through the ledger API. */
export const externalPartyKeys = (network: CoinNetwork, party: PartyId): External.SigningKeysWithThreshold | undefined =>
  ledgerApiState(network).externalParties.get(party)

// =============================================================================================
// Interactive submission (prepare / execute)
// =============================================================================================

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
  network: CoinNetwork,
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
