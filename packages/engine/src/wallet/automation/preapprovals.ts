/**
 * Preapprovals the operator provides: it accepts the proposals its users' parties make (as
 * Splice's validator does, AcceptTransferPreapprovalProposalTrigger), paying the preapproval fee
 * from its own coin, and renews the preapprovals before they expire (when configured). An operator
 * without the coin for the fee leaves the proposal waiting and tries again on each poll (Splice's
 * trigger fails with "Insufficient funds to create transfer pre-approval" and retries).
 */
import { Effect, Either } from "effect"
import { parseIso, toIso, type ContractId, type Micros } from "@sandnet/core"
import {
  TransferPreapprovalProposal_Accept,
  TransferPreapproval_Renew,
  transferPreapprovalFee,
  type OpenMiningRoundPayload,
  type TransferPreapprovalPayload,
  type TransferPreapprovalProposalPayload
} from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { payloadOf } from "../context.ts"
import { ok, type AutomationState, type Reference } from "./state.ts"

/** Files a preapproval proposal to the operator. Whether to act at once. */
export const filePreapprovalProposal = (auto: AutomationState, contractId: ContractId, p: TransferPreapprovalProposalPayload): boolean => {
  if (p.provider !== auto.operator) return false
  auto.preapprovalProposals.add(contractId)
  return true
}

/**
 * Accepts the queued proposals still active, paying each fee with the operator's coin; one whose
 * receiver already has a live preapproval is left as it is (a second preapproval would only shadow
 * the first). A proposal the operator cannot pay for (or whose accept failed) stays queued for the
 * next poll.
 */
export const acceptPreapprovalProposals = (auto: AutomationState, now: Micros, ref: Reference): Effect.Effect<void> =>
  Effect.gen(function* () {
    const acs = auto.wallet.participant.logic.acs
    const lifetime = auto.config.transferPreapproval.preapprovalLifetime
    for (const cid of [...auto.preapprovalProposals]) {
      auto.preapprovalProposals.delete(cid)
      const c = acs.get(cid)
      if (c === undefined) continue
      const receiver = payloadOf<TransferPreapprovalProposalPayload>(c).receiver
      if (auto.wallet.dso.preapprovalOf(receiver, now) !== undefined) continue
      const fee = transferPreapprovalFee(lifetime, payloadOf<OpenMiningRoundPayload>(ref.round).coinPrice)
      const inputs = fee > 0n ? auto.wallet.selectCoins(auto.operator, fee, ref.roundNumber) : Either.right([])
      if (Either.isLeft(inputs)) {
        auto.preapprovalProposals.add(cid)
        auto.stats.preapprovalProposalsUnpaid++
        continue
      }
      yield* auto.run(
        [auto.operator],
        [],
        `auto:preapproval-proposal:${cid}:${now}`,
        [
          Commands.exercise(TransferPreapprovalProposal_Accept, cid, {
            context: auto.context(ref),
            inputs: inputs.right.map((value) => ({ tag: "InputCoin" as const, value })),
            expiresAt: toIso(now + lifetime)
          })
        ],
        [ref.rules, ref.round],
        inputs.right,
        (completion) => {
          if (completion._tag === "Succeeded") auto.stats.preapprovalProposalsAccepted++
          else auto.preapprovalProposals.add(cid)
        }
      )
    }
  })

/** Files a preapproval the operator provides, for renewal ahead of its expiry. */
export const filePreapproval = (auto: AutomationState, contractId: ContractId, p: TransferPreapprovalPayload): void => {
  if (p.provider === auto.operator && auto.config.transferPreapproval.renew) {
    auto.renewals.push((parseIso(p.expiresAt) ?? 0) - auto.config.transferPreapproval.renewalDuration, contractId)
  }
}

/** Renews the preapprovals due; what is still active is looked at again on the next poll. */
export const renew = (auto: AutomationState, now: Micros): Effect.Effect<void> =>
  Effect.gen(function* () {
    const acs = auto.wallet.participant.logic.acs
    const retry: Array<ContractId> = []
    for (;;) {
      const cid = auto.renewals.popDue(now)
      if (cid === undefined) break
      if (!acs.has(cid)) continue
      retry.push(cid)
      yield* auto.run(
        [auto.operator],
        [],
        `auto:renew:${cid}`,
        [Commands.exercise(TransferPreapproval_Renew, cid, { newExpiresAt: toIso(now + auto.config.transferPreapproval.preapprovalLifetime) })],
        [],
        [],
        ok(() => auto.stats.preapprovalsRenewed++)
      )
    }
    for (const cid of retry) auto.renewals.push(now + auto.config.pollInterval, cid)
  })
