/**
 * A member's traffic on a synchronizer as scan reports it (Splice's getMemberTrafficStatus): what
 * the sequencer holds now (extra traffic consumed and the extra-traffic limit) and what was bought
 * for the member (the genesis grant plus its MemberTraffic purchases on the DSO's ledger). The
 * limit catches up with the purchases once the super validators tell the sequencer.
 */
import { Either } from "effect"
import type { MemberTrafficPayload } from "../coin/traffic.ts"
import type { CoinNetwork, SuperValidatorNode } from "../coin-network.ts"
import { contractsOf, createdOf } from "./contracts.ts"
import { MemberTrafficNotFound } from "./errors.ts"
import { ScanTemplates } from "./templates.ts"

export interface MemberTrafficStatus {
  readonly totalConsumed: number
  readonly totalLimit: number
  readonly totalPurchased: number
}

/** 404 for an unknown synchronizer or a member that is not a participant of the network; purchases as the scan's node (`sv`) sees them. */
export const memberTrafficStatus = (
  network: CoinNetwork,
  sv: SuperValidatorNode,
  synchronizerId: string,
  memberId: string
): Either.Either<MemberTrafficStatus, MemberTrafficNotFound> => {
  const synchronizer = network.synchronizers.find((s) => s.info.synchronizerId === synchronizerId)
  if (synchronizer === undefined) return Either.left(new MemberTrafficNotFound({ detail: `synchronizer ${synchronizerId} is not known` }))
  const member = network.topology.participant(memberId)
  if (member === undefined) return Either.left(new MemberTrafficNotFound({ detail: `member ${memberId} is not known on synchronizer ${synchronizerId}` }))
  // Read without creating: the sequencer starts a member's state on its first submission.
  const state = synchronizer.sequencer.logic.traffic.get(memberId)
  const initial = network.config.initialExtraTraffic
  const grant = member.isSuperValidator ? initial.superValidator : initial.validator
  let purchased = 0
  for (const c of contractsOf(sv.participant.logic, network.registry, ScanTemplates.memberTraffic, network.dso)) {
    const p = createdOf(c).createArguments as unknown as MemberTrafficPayload
    if (p.memberId === memberId && p.synchronizerId === synchronizerId) purchased += Number(p.totalPurchased)
  }
  return Either.right({
    totalConsumed: state?.extraTrafficConsumed ?? 0,
    totalLimit: state?.extraTrafficLimit ?? 0,
    totalPurchased: grant + purchased
  })
}
