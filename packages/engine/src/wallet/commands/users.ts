/**
 * Wallet users (the validator admin API): onboarding a user (a fresh party per user unless one is
 * named, with its ValidatorRight and MergeDelegationProposal; the operator's party is tied to
 * `validatorWalletUser`) and offboarding one (its ValidatorRight is archived).
 */
import { Effect, Either } from "effect"
import { InvalidArgument, isPartyId, partyHint, partyNamespace, type PartyId } from "@sandnet/core"
import { MergeDelegationProposal, ValidatorRight } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import type * as Api from "../api.ts"
import { payloadOf, type WalletContext } from "../context.ts"
import { PartyNotHostedHere, UserAlreadyExists, type WalletError } from "../errors.ts"
import { done, submitted, type Outcome } from "../outcome.ts"
import { archiveOf, expectSuccess, nowMicros, submit } from "../submission.ts"

/**
 * Onboards a user: a fresh party (hint = the user name) unless one is named, then one
 * transaction creating the user's ValidatorRight and MergeDelegationProposal. Onboarding a user
 * again answers its party.
 */
export const onboardUser = (wallet: WalletContext, request: Api.OnboardUserRequest): Effect.Effect<Outcome<Api.OnboardUserResponse>, WalletError> =>
  Effect.gen(function* () {
    const existing = wallet.state.users.get(request.name)
    if (existing !== undefined) {
      if (request.party_id !== undefined && request.party_id !== existing.party) return yield* new UserAlreadyExists({ user: request.name, party: existing.party })
      return done({ party_id: existing.party })
    }
    const party = yield* partyForUser(wallet, request)
    const now = yield* nowMicros
    wallet.apply({ _tag: "UserOnboarded", user: request.name, party, at: now })
    wallet.stats.usersOnboarded++
    // A party that has its wallet contracts already (a second user of the party) needs no command.
    const hasRight = [...wallet.participant.logic.acs.ofTemplate(ValidatorRight.templateId, party)].some((c) => {
      const p = payloadOf<{ user: string; validator: string }>(c)
      return p.user === party && p.validator === wallet.operator
    })
    if (hasRight) return done({ party_id: party })
    // The same party onboarded again after an offboarding: a fresh command id (the first one is deduplicated).
    const first = `wallet:onboard:${party}`
    const logic = wallet.participant.logic
    const used = logic.isInFlight(first, [party, wallet.operator]) || logic.completionOf(first, [party, wallet.operator]) !== undefined
    const commandId = used ? `${first}:${now}` : first
    yield* submit(wallet, [party, wallet.operator], [], commandId, [
      Commands.create(ValidatorRight, { dso: wallet.network.dso, user: party, validator: wallet.operator }),
      Commands.create(MergeDelegationProposal, { delegation: { owner: party, operator: wallet.operator, dso: wallet.network.dso, meta: {} } })
    ], [], [])
    return submitted({ commandId, actAs: [party, wallet.operator], finish: (c) => expectSuccess(c, () => ({ party_id: party })) })
  })

const partyForUser = (wallet: WalletContext, request: Api.OnboardUserRequest): Effect.Effect<PartyId, WalletError> =>
  Effect.gen(function* () {
    const logic = wallet.participant.logic
    if (request.party_id !== undefined) {
      if (!isPartyId(request.party_id)) return yield* new InvalidArgument({ field: "party_id", message: "is not a party id" })
      if (logic.hosts(request.party_id)) return request.party_id
      if (request.createPartyIfMissing !== true || partyNamespace(request.party_id) !== logic.config.namespace) {
        return yield* new PartyNotHostedHere({ party: request.party_id })
      }
      return yield* Effect.orDie(wallet.participant.allocateParty(partyHint(request.party_id)))
    }
    const hint = request.name.replace(/[^a-zA-Z0-9_\-.]/g, "_").slice(0, 150)
    if (hint.length === 0) return yield* new InvalidArgument({ field: "name", message: "must not be empty" })
    for (let n = 1; ; n++) {
      const allocated = yield* Effect.either(wallet.participant.allocateParty(n === 1 ? hint : `${hint}-${n}`))
      if (Either.isRight(allocated)) return allocated.right
    }
  })

export const offboardUser = (wallet: WalletContext, user: string): Effect.Effect<Outcome<void>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    wallet.apply({ _tag: "UserOffboarded", user, at: now })
    const rights = [...wallet.participant.logic.acs.ofTemplate(ValidatorRight.templateId, party)].filter((c) => payloadOf<{ user: string }>(c).user === party)
    if (rights.length === 0 || party === wallet.operator) return done(undefined)
    const commandId = `wallet:offboard:${party}:${now}`
    yield* submit(wallet, [party, wallet.operator], [], commandId, rights.map((r) => Commands.exercise(archiveOf(ValidatorRight), r.created.contractId, {})), [], [])
    return submitted({ commandId, actAs: [party, wallet.operator], finish: (c) => expectSuccess(c, () => undefined) })
  })

