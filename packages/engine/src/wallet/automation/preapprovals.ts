/** Preapproval renewal: the operator renews the transfer preapprovals it provides before they expire (when configured). */
import { Effect } from "effect"
import { parseIso, toIso, type ContractId, type Micros } from "@sandnet/core"
import { TransferPreapproval_Renew, type TransferPreapprovalPayload } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { ok, type AutomationState } from "./state.ts"

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
