/** The expiry automation: expires the offers, accepted offers, transfer instructions and buy-traffic requests the users sent, once they are due. */
import { Effect } from "effect"
import type { ContractId, Micros } from "@sandnet/core"
import {
  AcceptedTransferOffer_Expire,
  BuyTrafficRequest_Expire,
  CoinTransferInstruction_Expire,
  TransferOffer_Expire,
  type CoinTransferInstructionPayload
} from "../../coin/index.ts"
import { expiryOf } from "../../coin/expiry.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { ok, type AutomationState, type Expiring } from "./state.ts"

/** Files a transfer instruction a user sent, to expire after its deadline. */
export const fileInstruction = (auto: AutomationState, contractId: ContractId, p: CoinTransferInstructionPayload): void => {
  if (auto.hosts(p.transfer.sender)) auto.fileExpiry(expiryOf(p.transfer.executeBefore), { contractId, kind: "instruction", actor: p.transfer.sender })
}

/** Expires what is due; what is still active is looked at again on the next poll. */
export const expire = (auto: AutomationState, now: Micros): Effect.Effect<void> =>
  Effect.gen(function* () {
    const acs = auto.wallet.participant.logic.acs
    const retry: Array<Expiring> = []
    for (;;) {
      const e = auto.expiry.popDue(now)
      if (e === undefined) break
      if (!acs.has(e.contractId)) continue
      retry.push(e)
      const command =
        e.kind === "offer"
          ? Commands.exercise(TransferOffer_Expire, e.contractId, { actor: e.actor })
          : e.kind === "accepted"
            ? Commands.exercise(AcceptedTransferOffer_Expire, e.contractId, { actor: e.actor })
            : e.kind === "instruction"
              ? Commands.exercise(CoinTransferInstruction_Expire, e.contractId, {})
              : Commands.exercise(BuyTrafficRequest_Expire, e.contractId, {})
      yield* auto.run([e.actor], [], `auto:expire:${e.contractId}`, [command], [], [], ok(() => {
        if (e.kind === "instruction") auto.stats.instructionsExpired++
        else if (e.kind === "buyTraffic") auto.stats.buyTrafficRequestsExpired++
        else auto.stats.offersExpired++
      }))
    }
    // Looked at again next time; gone by then if the expiry went through.
    for (const e of retry) auto.fileExpiry(now + auto.config.pollInterval, e)
  })
