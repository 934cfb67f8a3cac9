/**
 * Token-standard transfers: the sender creates a transfer instruction under a tracking id (its
 * coin is locked, with a reserve for the holding fees until the instruction's deadline); the
 * receiver accepts or rejects it, the sender withdraws it.
 */
import { Effect, Either } from "effect"
import { InvalidArgument, formatAmount, toIso, type ActiveContract, type ContractId, type Json, type PartyId } from "@sandnet/core"
import {
  COIN_INSTRUMENT,
  CoinTransferInstruction,
  TransferFactory_Transfer,
  TransferInstruction_Accept,
  TransferInstruction_Reject,
  TransferInstruction_Withdraw,
  choiceContext,
  emptyMeta,
  holdingFeeRate,
  lockReserveRounds,
  type CoinTransferInstructionPayload
} from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { transferInstructionMachine } from "../../machines/transfer-instruction.ts"
import type * as Api from "../api.ts"
import { selectCoins } from "../coin-selection.ts"
import { payloadOf, type WalletContext } from "../context.ts"
import { DsoNotReady, TokenTransferNotFound, type WalletError } from "../errors.ts"
import { allowed, instructionLifecycle } from "../lifecycles.ts"
import { submitted, type Outcome } from "../outcome.ts"
import { expectSuccess, knownReceiver, nowMicros, reference, submit, validAmount, validReceiver, withinHoldingLimit } from "../submission.ts"
import { decide, submitTracked } from "../tracking.ts"

export const createTokenStandardTransfer = (wallet: WalletContext, user: string, request: Api.CreateTokenStandardTransferRequest): Effect.Effect<Outcome<Api.TransferInstructionResultResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    const amount = yield* validAmount(request.amount)
    yield* validReceiver(request.receiver_party_id, party)
    yield* withinHoldingLimit(wallet, request.receiver_party_id as PartyId, amount, now)
    yield* knownReceiver(wallet, request.receiver_party_id)
    if (!Number.isSafeInteger(request.expires_at) || request.expires_at <= now) return yield* new InvalidArgument({ field: "expires_at", message: "must be a time in the future, in microseconds" })
    const ref = yield* reference(wallet, now)
    const factory = wallet.dso.externalPartyCoinRules()
    if (factory === undefined) return yield* new DsoNotReady({ reason: "no ExternalPartyCoinRules" })
    const round = wallet.dso.latestOpenRound(now)!.payload
    const reserve = holdingFeeRate(round) * BigInt(lockReserveRounds(now, request.expires_at, Number(round.tickDuration.microseconds)))
    const inputs = yield* selectCoins(wallet, party, amount + reserve, ref.roundNumber)
    const key = yield* decide(wallet, "tokenStandardTransfer", party, request.tracking_id)
    const commandId = `wallet:token-transfer:${request.tracking_id}`
    const command = Commands.exercise(TransferFactory_Transfer, factory.created.contractId, {
      expectedAdmin: wallet.network.dso,
      transfer: {
        sender: party,
        receiver: request.receiver_party_id,
        amount: formatAmount(amount),
        instrumentId: { admin: wallet.network.dso, id: COIN_INSTRUMENT },
        requestedAt: toIso(now),
        executeBefore: toIso(request.expires_at),
        inputHoldingCids: inputs,
        meta: { values: request.description.length > 0 ? { "splice.lfdecentralizedtrust.org/reason": request.description } : {} }
      },
      extraArgs: { context: choiceContext(ref.rules.created.contractId, ref.round.created.contractId), meta: emptyMeta }
    })
    yield* submitTracked(wallet, party, "tokenStandardTransfer", request.tracking_id, key, [party], commandId, [command], [factory, ref.rules, ref.round], inputs)
    return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, (results) => instructionResult(results[0] ?? null)) })
  })

const instructionFor = (
  wallet: WalletContext,
  party: PartyId,
  contractId: ContractId,
  role: "sender" | "receiver"
): Either.Either<{ readonly contract: ActiveContract; readonly payload: CoinTransferInstructionPayload }, TokenTransferNotFound> => {
  const contract = wallet.participant.logic.visibleContract(contractId, new Set([party]))
  if (contract === undefined || contract.created.templateId !== CoinTransferInstruction.templateId) return Either.left(new TokenTransferNotFound({ contractId }))
  const payload = payloadOf<CoinTransferInstructionPayload>(contract)
  return payload.transfer[role] === party ? Either.right({ contract, payload }) : Either.left(new TokenTransferNotFound({ contractId }))
}

/** Accept, reject (receiver) or withdraw (sender) a token-standard transfer. */
export const decideTokenStandardTransfer = (
  wallet: WalletContext,
  user: string,
  contractId: ContractId,
  decision: "accept" | "reject" | "withdraw"
): Effect.Effect<Outcome<Api.TransferInstructionResultResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    const { contract, payload } = yield* instructionFor(wallet, party, contractId, decision === "withdraw" ? "sender" : "receiver")
    // At the ledger time the accepting transaction will get (now): the expiry rule the contract checks.
    const step = decision === "accept" ? { type: "accept" as const, ledgerTime: now } : { type: decision }
    yield* allowed(transferInstructionMachine, instructionLifecycle(wallet, contract), step, contractId, payload.transfer.executeBefore)
    const ref = yield* reference(wallet, now)
    // The receiver's node does not see the sender's locked coin: it comes disclosed, as from scan.
    const locked = wallet.participant.logic.acs.get(payload.lockedCoin) ?? wallet.dso.contract(payload.lockedCoin)
    const extraArgs = { context: choiceContext(ref.rules.created.contractId, ref.round.created.contractId), meta: emptyMeta }
    const choice = decision === "accept" ? TransferInstruction_Accept : decision === "reject" ? TransferInstruction_Reject : TransferInstruction_Withdraw
    const commandId = `wallet:token-transfer-${decision}:${contractId}`
    yield* submit(wallet, [party], [], commandId, [Commands.exercise(choice, contractId, { extraArgs })], [ref.rules, ref.round, ...(locked === undefined ? [] : [locked])], [])
    return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, (results) => instructionResult(results[0] ?? null)) })
  })


const instructionResult = (result: Json): Api.TransferInstructionResultResponse => {
  const r = result as { output?: { tag?: string; value?: { transferInstructionCid?: string; receiverHoldingCids?: ReadonlyArray<string> } }; senderChangeCids?: ReadonlyArray<string> } | null
  const tag = r?.output?.tag
  const output: Api.TransferInstructionResultOutput =
    tag === "TransferInstructionResult_Pending"
      ? { transfer_instruction_cid: r?.output?.value?.transferInstructionCid ?? "" }
      : tag === "TransferInstructionResult_Completed"
        ? { receiver_holding_cids: [...(r?.output?.value?.receiverHoldingCids ?? [])] }
        : {}
  return { output, sender_change_cids: [...(r?.senderChangeCids ?? [])], meta: {} }
}
