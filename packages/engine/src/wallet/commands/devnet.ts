/** What only a development network allows: tapping coin, and self-granting a featured app right. */
import { Effect } from "effect"
import { formatAmount } from "@sandnet/core"
import { CoinRules_DevNet_FeatureApp, CoinRules_DevNet_Tap } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import type * as Api from "../api.ts"
import type { WalletContext } from "../context.ts"
import { DevNetOnly, type WalletError } from "../errors.ts"
import { done, submitted, type Outcome } from "../outcome.ts"
import { expectSuccess, nowMicros, reference, submit, validAmount, withinHoldingLimit } from "../submission.ts"

export const tap = (wallet: WalletContext, user: string, request: Api.TapRequest): Effect.Effect<Outcome<Api.TapResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    const amount = yield* validAmount(request.amount)
    yield* withinHoldingLimit(wallet, party, amount, now)
    const ref = yield* reference(wallet, now)
    if (!ref.isDevNet) return yield* new DevNetOnly({ operation: "tap" })
    const commandId = `wallet:tap:${request.command_id ?? `${party}:${now}:${wallet.nextId()}`}`
    yield* submit(wallet, [party], [], commandId, [
      Commands.exercise(CoinRules_DevNet_Tap, ref.rules.created.contractId, { receiver: party, amount: formatAmount(amount), openRound: ref.round.created.contractId })
    ], [ref.rules, ref.round], [])
    return submitted({
      commandId,
      actAs: [party],
      finish: (c) => expectSuccess(c, (results) => ({ contract_id: String((results[0] as { coinSum?: { coin?: string } } | null)?.coinSum?.coin ?? "") }))
    })
  })

export const selfGrantFeaturedAppRight = (wallet: WalletContext, user: string): Effect.Effect<Outcome<Api.SelfGrantFeaturedAppRightResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const existing = wallet.dso.featuredAppRightOf(party)
    if (existing !== undefined) return done({ contract_id: existing.contract.created.contractId })
    const now = yield* nowMicros
    const ref = yield* reference(wallet, now)
    if (!ref.isDevNet) return yield* new DevNetOnly({ operation: "self-granting a featured app right" })
    const commandId = `wallet:feature:${party}`
    yield* submit(wallet, [party], [], commandId, [Commands.exercise(CoinRules_DevNet_FeatureApp, ref.rules.created.contractId, { provider: party })], [ref.rules], [])
    return submitted({
      commandId,
      actAs: [party],
      finish: (c) => expectSuccess(c, (results) => ({ contract_id: String((results[0] as { featuredAppRightCid?: string } | null)?.featuredAppRightCid ?? "") }))
    })
  })

