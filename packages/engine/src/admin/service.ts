/**
 * `UserManagement`: the Effect service over the pure decisions of decide.ts. One command at a time
 * (a semaphore of one permit): decide on the current state, journal the events, fold them. The
 * journal (`AdminJournal`) is where storage plugs in: it receives every event before the state
 * changes, and `UserManagement.layerFrom(events)` rebuilds the state from a stored journal.
 *
 * Time comes from Effect's Clock (so TestClock drives it in simulations); it is only recorded in
 * the events, never decided upon.
 */
import { micros } from "@sandnet/core"
import { Clock, Context, Effect, Either, Layer, Ref } from "effect"
import * as Decide from "./decide.ts"
import * as Parties from "./parties.ts"
import type { AdminError } from "./errors.ts"
import type { AdminEvent } from "./events.ts"
import {
  DEFAULT_ADMIN_LIMITS,
  DEFAULT_IDENTITY_PROVIDER_ID,
  PARTICIPANT_ADMIN_USER_ID,
  Rights,
  type AdminLimits,
  type IdentityProviderConfig,
  type PartyRecord,
  type Right,
  type User,
  type UserRecord
} from "./model.ts"
import { apply, emptyAdminState, identityProviderByIssuer, replay, type AdminState } from "./state.ts"

/** Receives every admin event, in order, before it takes effect. */
export class AdminJournal extends Context.Tag("@sandnet/engine/admin/AdminJournal")<
  AdminJournal,
  { readonly append: (events: ReadonlyArray<AdminEvent>) => Effect.Effect<void> }
>() {
  /** Keeps nothing: for simulations and tests that do not persist. */
  static readonly none: Layer.Layer<AdminJournal> = Layer.succeed(AdminJournal, { append: () => Effect.void })
}

export interface UserManagementOptions {
  readonly limits?: Partial<AdminLimits> | undefined
  /**
   * The administrator user that must exist (created with ParticipantAdmin when missing, as a
   * journaled event). `null` creates none. Default `participant_admin`.
   */
  readonly participantAdminUserId?: string | null | undefined
}

export interface UserManagementService {
  readonly limits: AdminLimits
  /** The current state (for snapshots and read-heavy callers such as the auth layer). */
  readonly state: Effect.Effect<AdminState>
  /** `state` as a plain call (the HTTP node's reads without a fiber check tokens against it). */
  readonly stateNow: () => AdminState

  readonly createIdentityProviderConfig: (
    input: Decide.IdentityProviderConfigInput
  ) => Effect.Effect<IdentityProviderConfig, AdminError>
  readonly getIdentityProviderConfig: (identityProviderId: string) => Effect.Effect<IdentityProviderConfig, AdminError>
  readonly listIdentityProviderConfigs: Effect.Effect<ReadonlyArray<IdentityProviderConfig>>
  readonly updateIdentityProviderConfig: (
    input: Decide.UpdateIdentityProviderConfigInput
  ) => Effect.Effect<IdentityProviderConfig, AdminError>
  readonly deleteIdentityProviderConfig: (identityProviderId: string) => Effect.Effect<void, AdminError>
  /** The configuration whose issuer equals `issuer` exactly, if any (deactivated ones included). */
  readonly identityProviderByIssuer: (issuer: string) => Effect.Effect<IdentityProviderConfig | undefined>

  readonly createUser: (input: Decide.CreateUserInput) => Effect.Effect<UserRecord, AdminError>
  readonly getUser: (userId: string, scope?: Decide.IdentityProviderScope) => Effect.Effect<UserRecord, AdminError>
  readonly listUsers: (input: Decide.ListUsersInput) => Effect.Effect<Decide.UsersPage, AdminError>
  readonly updateUser: (
    input: Decide.UpdateUserInput,
    scope?: Decide.IdentityProviderScope
  ) => Effect.Effect<User, AdminError>
  readonly deleteUser: (userId: string, scope?: Decide.IdentityProviderScope) => Effect.Effect<void, AdminError>
  readonly listUserRights: (
    userId: string,
    scope?: Decide.IdentityProviderScope
  ) => Effect.Effect<ReadonlyArray<Right>, AdminError>
  readonly grantUserRights: (
    userId: string,
    rights: ReadonlyArray<Right>,
    scope?: Decide.IdentityProviderScope
  ) => Effect.Effect<ReadonlyArray<Right>, AdminError>
  readonly revokeUserRights: (
    userId: string,
    rights: ReadonlyArray<Right>,
    scope?: Decide.IdentityProviderScope
  ) => Effect.Effect<ReadonlyArray<Right>, AdminError>
  readonly updateUserIdentityProvider: (
    userId: string,
    sourceIdentityProviderId: string,
    targetIdentityProviderId: string
  ) => Effect.Effect<void, AdminError>
  /** The participant-local details of a party (the empty record when none was stored). */
  readonly getPartyRecord: (party: string) => Effect.Effect<PartyRecord>
  /** PATCH /v2/parties/{party}: `ledgerParty` is what the topology says of the party (undefined: unknown). */
  readonly updatePartyDetails: (
    input: Parties.UpdatePartyDetailsInput,
    ledgerParty: Parties.LedgerPartyFacts | undefined
  ) => Effect.Effect<PartyRecord, AdminError>
  /** Drops every party record (the network was reset: its parties are gone). */
  readonly clearPartyRecords: Effect.Effect<void>
}

export class UserManagement extends Context.Tag("@sandnet/engine/admin/UserManagement")<
  UserManagement,
  UserManagementService
>() {
  /** A fresh, empty user management (plus the administrator user), journaling to AdminJournal. */
  static readonly layer = (options?: UserManagementOptions): Layer.Layer<UserManagement, never, AdminJournal> =>
    Layer.effect(UserManagement, makeUserManagement([], options))

  /** Rebuilt from a stored journal; new events go to AdminJournal. */
  static readonly layerFrom = (
    events: Iterable<AdminEvent>,
    options?: UserManagementOptions
  ): Layer.Layer<UserManagement, never, AdminJournal> => Layer.effect(UserManagement, makeUserManagement(events, options))

  /** In memory, nothing persisted: for tests and simulations. */
  static readonly layerMemory = (options?: UserManagementOptions): Layer.Layer<UserManagement> =>
    UserManagement.layer(options).pipe(Layer.provide(AdminJournal.none))
}

const nowMicros = Effect.map(Clock.currentTimeNanos, micros.fromNanos)

/** Decide, journal, fold: atomically with respect to other commands. */
type Run = <A>(decide: (state: AdminState, at: number) => Decide.Decided<A>) => Effect.Effect<A, AdminError>

/** A query of the current state. */
type Read = <A>(query: (state: AdminState) => Either.Either<A, AdminError>) => Effect.Effect<A, AdminError>

/** Builds the service; `events` is the journal to start from. */
export const makeUserManagement = (
  events: Iterable<AdminEvent>,
  options?: UserManagementOptions
): Effect.Effect<UserManagementService, never, AdminJournal> =>
  Effect.gen(function* () {
    const journal = yield* AdminJournal
    const limits: AdminLimits = { ...DEFAULT_ADMIN_LIMITS, ...options?.limits }
    const ref = yield* Ref.make<AdminState>(replay(events, emptyAdminState))
    // The state is immutable and only `run` replaces it: a plain copy of the last one set.
    let latest = yield* Ref.get(ref)
    const lock = yield* Effect.makeSemaphore(1)

    const run: Run = (decide) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const state = yield* Ref.get(ref)
          const at = yield* nowMicros
          const decided = decide(state, at)
          if (Either.isLeft(decided)) return yield* Effect.fail(decided.left)
          const { events: produced, result } = decided.right
          if (produced.length > 0) {
            yield* journal.append(produced)
            latest = produced.reduce(apply, state)
            yield* Ref.set(ref, latest)
          }
          return result
        })
      )

    const read: Read = (query) =>
      Effect.flatMap(Ref.get(ref), (state) => {
        const answer = query(state)
        return Either.isLeft(answer) ? Effect.fail(answer.left) : Effect.succeed(answer.right)
      })

    yield* ensureAdminUser(ref, run, limits, options)
    return serviceOf(limits, ref, run, read, () => latest)
  })

/** The administrator user that must exist, created (journaled) when missing. */
const ensureAdminUser = (ref: Ref.Ref<AdminState>, run: Run, limits: AdminLimits, options: UserManagementOptions | undefined): Effect.Effect<void> =>
  Effect.gen(function* () {
    const adminId = options?.participantAdminUserId === undefined ? PARTICIPANT_ADMIN_USER_ID : options.participantAdminUserId
    if (adminId === null || (yield* Ref.get(ref)).users.has(adminId)) return
    yield* Effect.orDie(
      run((state, at) =>
        Decide.createUser(
          state,
          { user: { id: adminId, identityProviderId: DEFAULT_IDENTITY_PROVIDER_ID }, rights: [Rights.participantAdmin] },
          limits,
          at
        )
      )
    )
  })

/** Each operation: a decision run, or a query read, on the current state. */
const serviceOf = (limits: AdminLimits, ref: Ref.Ref<AdminState>, run: Run, read: Read, stateNow: () => AdminState): UserManagementService => ({
  limits,
  state: Ref.get(ref),
  stateNow,
  createIdentityProviderConfig: (input) => run((state, at) => Decide.createIdentityProviderConfig(state, input, limits, at)),
  getIdentityProviderConfig: (id) => read((state) => Decide.getIdentityProviderConfig(state, id)),
  listIdentityProviderConfigs: Effect.map(Ref.get(ref), Decide.listIdentityProviderConfigs),
  updateIdentityProviderConfig: (input) => run((state, at) => Decide.updateIdentityProviderConfig(state, input, at)),
  deleteIdentityProviderConfig: (id) => run((state, at) => Decide.deleteIdentityProviderConfig(state, id, at)),
  identityProviderByIssuer: (issuer) => Effect.map(Ref.get(ref), (state) => identityProviderByIssuer(state, issuer)),
  createUser: (input) => run((state, at) => Decide.createUser(state, input, limits, at)),
  getUser: (userId, scope) => read((state) => Decide.getUser(state, userId, scope)),
  listUsers: (input) => read((state) => Decide.listUsers(state, input, limits)),
  updateUser: (input, scope) => run((state, at) => Decide.updateUser(state, input, scope, limits, at)),
  deleteUser: (userId, scope) => run((state, at) => Decide.deleteUser(state, userId, scope, at)),
  listUserRights: (userId, scope) => read((state) => Decide.listUserRights(state, userId, scope)),
  grantUserRights: (userId, rights, scope) => run((state, at) => Decide.grantUserRights(state, userId, rights, scope, limits, at)),
  revokeUserRights: (userId, rights, scope) => run((state, at) => Decide.revokeUserRights(state, userId, rights, scope, at)),
  updateUserIdentityProvider: (userId, source, target) => run((state, at) => Decide.updateUserIdentityProvider(state, userId, source, target, at)),
  getPartyRecord: (party) => Effect.map(Ref.get(ref), (state) => Parties.partyRecordOf(state, party)),
  updatePartyDetails: (input, ledgerParty) => run((state, at) => Parties.updatePartyDetails(state, input, ledgerParty, limits, at)),
  clearPartyRecords: Effect.orDie(
    run((state, at) => Either.right({ events: state.partyRecords.size === 0 ? [] : [{ _tag: "PartyRecordsCleared" as const, at }], result: undefined }))
  )
})
