/**
 * Preapprovals the operator provides: it accepts the proposals its users' parties make (as
 * Splice's validator does), and renews the preapprovals before they expire (when configured).
 */
import { Effect } from "effect"
import { parseIso, toIso, type ContractId, type Micros } from "@sandnet/core"
import {
  TransferPreapprovalProposal_Accept,
  TransferPreapproval_Renew,
  type TransferPreapprovalPayload,
  type TransferPreapprovalProposalPayload
} from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { ok, type AutomationState, type Reference } from "./state.ts"

/** Files a preapproval proposal to the operator. Whether to act at once. */
export const filePreapprovalProposal = (auto: AutomationState, contractId: ContractId, p: TransferPreapprovalProposalPayload): boolean => {
  if (p.provider !== auto.operator) return false
  auto.preapprovalProposals.add(contractId)
  return true
}

/**
 * Accepts the queued proposals still active; one whose receiver already has a live preapproval is
 * left as it is (a second preapproval would only shadow the first).
 */
export const acceptPreapprovalProposals = (auto: AutomationState, now: Micros, ref: Reference): Effect.Effect<void> =>
  Effect.gen(function* () {
    const acs = auto.wallet.participant.logic.acs
    for (const cid of [...auto.preapprovalProposals]) {
      auto.preapprovalProposals.delete(cid)
      const c = acs.get(cid)
      if (c === undefined) continue
      const receiver = (c.created.createArguments as unknown as TransferPreapprovalProposalPayload).receiver
      if (auto.wallet.dso.preapprovalOf(receiver, now) !== undefined) continue
      const expiresAt = toIso(now + auto.config.transferPreapproval.preapprovalLifetime)
      yield* auto.run(
        [auto.operator],
        [],
        `auto:preapproval-proposal:${cid}`,
        [Commands.exercise(TransferPreapprovalProposal_Accept, cid, { context: auto.context(ref), inputs: [], expiresAt })],
        [ref.rules],
        [],
        ok(() => auto.stats.preapprovalProposalsAccepted++)
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
