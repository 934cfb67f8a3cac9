/**
 * Event, transaction and update formats, and their resolution against the node's packages.
 *
 * Filters (EventFormat): per party and for any hosted party; cumulative template filters
 * (package-id `<pkg>:<Module>:<Entity>` or package-name `#<name>:<Module>:<Entity>` references),
 * interface filters (matched through the interfaces a template implements) and wildcards. An
 * empty filter list is one wildcard. References are resolved against the node's packages
 * (built-in and uploaded): unknown ones are errors, as on the real participant.
 */
import { Either } from "effect"
import { InvalidArgument, type PartyId } from "@sandnet/core"
import { PackageNamesNotFound, TemplatesOrInterfacesNotFound, type FilterResolutionError } from "./errors.ts"
import type { KnownPackage } from "./state.ts"

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

export interface TemplateMatcher {
  readonly packageId: string | undefined
  readonly packageName: string | undefined
  readonly module: string
  readonly entity: string
}

export interface ResolvedCumulative {
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
export const splitTemplateId = (templateId: string): { pkg: string; module: string; entity: string } => {
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

/** Every party an update format reads as, and whether it reads as any party (the rights a reader needs). */
export const readersOf = (format: UpdateFormat): { readonly parties: ReadonlyArray<PartyId>; readonly anyParty: boolean } => {
  const parties = new Set<PartyId>()
  let anyParty = false
  for (const ef of [format.transactions?.eventFormat, format.reassignments]) {
    if (ef === undefined) continue
    for (const p of partiesOf(ef)) parties.add(p)
    if (ef.filtersForAnyParty !== undefined) anyParty = true
  }
  if (format.topologyParties !== undefined) {
    if (format.topologyParties.length === 0) anyParty = true
    for (const p of format.topologyParties) parties.add(p)
  }
  return { parties: [...parties].sort(), anyParty }
}
