/**
 * One-step transfers: a user creates a TransferPreapproval (the operator provides it), and a
 * sender pays a receiver through the receiver's preapproval at once (featured when the
 * preapproval's provider has a FeaturedAppRight).
 */
import { Effect, Either } from "effect"
import { InvalidArgument, formatAmount, toIso, type ActiveContract, type ContractId, type Micros, type PartyId } from "@sandnet/core"
import { CoinRules_CreateTransferPreapproval, TransferPreapproval_Send } from "../../coin/index.ts"
import { Commands, type Command } from "../../ledger/interpreter.ts"
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

/** What a one-step transfer submits, checked and chosen at `now`. */
interface SendPlan {
  readonly party: PartyId
  readonly commandId: string
  readonly command: Command
  readonly disclosed: ReadonlyArray<ActiveContract>
  readonly inputs: ReadonlyArray<ContractId>
  readonly featured: boolean
}

/**
 * The checks and choices of a one-step transfer, in the order its errors are reported: all of them
 * reads and checks, so a plain function (the transfer is the workload's most frequent command; an
 * Effect.gen step per check cost more than the checks).
 */
const planSend = (wallet: WalletContext, user: string, request: Api.TransferPreapprovalSendRequest, now: Micros): Either.Either<SendPlan, WalletError> => {
  const party = wallet.partyOf(user)
  if (Either.isLeft(party)) return Either.left(party.left)
  const amount = validAmount(request.amount)
  if (Either.isLeft(amount)) return Either.left(amount.left)
  const receiver = validReceiver(request.receiver_party_id, party.right)
  if (Either.isLeft(receiver)) return Either.left(receiver.left)
  const limit = withinHoldingLimit(wallet, request.receiver_party_id as PartyId, amount.right, now)
  if (Either.isLeft(limit)) return Either.left(limit.left)
  if (request.deduplication_id.length === 0) return Either.left(new InvalidArgument({ field: "deduplication_id", message: "must not be empty" }))
  const preapproval = wallet.dso.preapprovalOf(request.receiver_party_id, now)
  if (preapproval === undefined) return Either.left(new PreapprovalNotFound({ receiver: request.receiver_party_id }))
  const ref = reference(wallet, now)
  if (Either.isLeft(ref)) return Either.left(ref.left)
  const { rules, round, roundNumber } = ref.right
  const inputs = selectCoins(wallet, party.right, amount.right, roundNumber)
  if (Either.isLeft(inputs)) return Either.left(inputs.left)
  const featured = wallet.dso.featuredAppRightOf(preapproval.payload.provider)
  const command = Commands.exercise(TransferPreapproval_Send, preapproval.contract.created.contractId, {
    sender: party.right,
    coinRules: rules.created.contractId,
    context: { openMiningRound: round.created.contractId, featuredAppRight: featured?.contract.created.contractId ?? null },
    inputs: inputs.right.map((value) => ({ tag: "InputCoin" as const, value })),
    amount: formatAmount(amount.right),
    description: request.description ?? null
  })
  return Either.right({
    party: party.right,
    commandId: `wallet:send:${request.deduplication_id}`,
    command,
    disclosed: [rules, round, preapproval.contract, ...(featured === undefined ? [] : [featured.contract])],
    inputs: inputs.right,
    featured: featured !== undefined
  })
}

/** One-step transfer through the receiver's preapproval; featured when its provider has a FeaturedAppRight. */
export const transferPreapprovalSend = (wallet: WalletContext, user: string, request: Api.TransferPreapprovalSendRequest): Effect.Effect<Outcome<Api.TransferPreapprovalSendResponse>, WalletError> =>
  Effect.flatMap(nowMicros, (now) => {
    const plan = planSend(wallet, user, request, now)
    if (Either.isLeft(plan)) return Effect.fail(plan.left)
    const { party, commandId, command, disclosed, inputs, featured } = plan.right
    return Effect.map(submit(wallet, [party], [], commandId, [command], disclosed, inputs), (updateId) => {
      if (featured) wallet.featuredCommands.add(commandId)
      return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, () => ({ update_id: updateId, featured })) })
    })
  })
