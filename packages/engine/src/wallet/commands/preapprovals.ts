/**
 * One-step transfers: a user creates a TransferPreapproval (the operator provides it), and a
 * sender pays a receiver through the receiver's preapproval at once (featured when the
 * preapproval's provider has a FeaturedAppRight).
 */
import { Effect } from "effect"
import { InvalidArgument, formatAmount, toIso, type PartyId } from "@sandnet/core"
import { CoinRules_CreateTransferPreapproval, TransferPreapproval_Send } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import type * as Api from "../api.ts"
import { selectCoins } from "../coin-selection.ts"
import type { WalletContext } from "../context.ts"
import { PreapprovalAlreadyExists, PreapprovalNotFound, type WalletError } from "../errors.ts"
import { submitted, type Outcome } from "../outcome.ts"
import { expectSuccess, nowMicros, reference, submit, validAmount, validReceiver, withinHoldingLimit } from "../submission.ts"

export const createTransferPreapproval = (wallet: WalletContext, user: string): Effect.Effect<Outcome<Api.CreateTransferPreapprovalResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    const existing = wallet.dso.preapprovalOf(party, now)
    if (existing !== undefined) return yield* new PreapprovalAlreadyExists({ contractId: existing.contract.created.contractId })
    const ref = yield* reference(wallet, now)
    const commandId = `wallet:preapproval:${party}:${ref.roundNumber}`
    yield* submit(wallet, [party, wallet.operator], [], commandId, [
      Commands.exercise(CoinRules_CreateTransferPreapproval, ref.rules.created.contractId, {
        receiver: party,
        provider: wallet.operator,
        expiresAt: toIso(now + wallet.config.transferPreapproval.preapprovalLifetime)
      })
    ], [ref.rules], [])
    return submitted({
      commandId,
      actAs: [party, wallet.operator],
      finish: (c) => expectSuccess(c, (results) => ({ transfer_preapproval_contract_id: String((results[0] as { transferPreapprovalCid?: string } | null)?.transferPreapprovalCid ?? "") }))
    })
  })

/** One-step transfer through the receiver's preapproval; featured when its provider has a FeaturedAppRight. */
export const transferPreapprovalSend = (wallet: WalletContext, user: string, request: Api.TransferPreapprovalSendRequest): Effect.Effect<Outcome<Api.TransferPreapprovalSendResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    const amount = yield* validAmount(request.amount)
    yield* validReceiver(request.receiver_party_id, party)
    yield* withinHoldingLimit(wallet, request.receiver_party_id as PartyId, amount, now)
    if (request.deduplication_id.length === 0) return yield* new InvalidArgument({ field: "deduplication_id", message: "must not be empty" })
    const preapproval = wallet.dso.preapprovalOf(request.receiver_party_id, now)
    if (preapproval === undefined) return yield* new PreapprovalNotFound({ receiver: request.receiver_party_id })
    const ref = yield* reference(wallet, now)
    const inputs = yield* selectCoins(wallet, party, amount, ref.roundNumber)
    const featured = wallet.dso.featuredAppRightOf(preapproval.payload.provider)
    const commandId = `wallet:send:${request.deduplication_id}`
    const updateId = yield* submit(wallet, [party], [], commandId, [
      Commands.exercise(TransferPreapproval_Send, preapproval.contract.created.contractId, {
        sender: party,
        coinRules: ref.rules.created.contractId,
        context: { openMiningRound: ref.round.created.contractId, featuredAppRight: featured?.contract.created.contractId ?? null },
        inputs: inputs.map((value) => ({ tag: "InputCoin" as const, value })),
        amount: formatAmount(amount),
        description: request.description ?? null
      })
    ], [ref.rules, ref.round, preapproval.contract, ...(featured === undefined ? [] : [featured.contract])], inputs)
    if (featured !== undefined) wallet.featuredCommands.add(commandId)
    return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, () => ({ update_id: updateId, featured: featured !== undefined })) })
  })

