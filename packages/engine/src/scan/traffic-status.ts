/**
 * A member's traffic on a synchronizer as scan reports it (Splice's getMemberTrafficStatus): what
 * the sequencer holds now (extra traffic consumed and the extra-traffic limit) and what was bought
 * for the member (the genesis grant plus its MemberTraffic purchases on the DSO's ledger). The
 * limit catches up with the purchases once the super validators tell the sequencer.
 */
import { Either } from "effect"
import type { PartyId } from "@sandnet/core"
import type { MemberTrafficPayload } from "../coin/traffic.ts"
import type { SynchronizerNode } from "../coin-network.ts"
import type { TemplateRegistry } from "../ledger/template.ts"
import type { ParticipantLogic } from "../participant/index.ts"
import type { TopologyState } from "../topology.ts"
import { contractsOf, createdOf } from "./contracts.ts"
import { MemberTrafficNotFound } from "./errors.ts"
import { ScanTemplates } from "./templates.ts"

export interface MemberTrafficStatus {
  readonly totalConsumed: number
  readonly totalLimit: number
  readonly totalPurchased: number
}

/** What the read needs of the network (the scan's super validator's view). */
export interface TrafficView {
  readonly synchronizers: ReadonlyArray<SynchronizerNode>
  readonly topology: TopologyState
  readonly initialExtraTraffic: { readonly superValidator: number; readonly validator: number }
  readonly logic: ParticipantLogic
  readonly registry: TemplateRegistry
  readonly dso: PartyId
}

/** 404 for an unknown synchronizer or a member that is not a participant of the network. */
export const memberTrafficStatus = (view: TrafficView, synchronizerId: string, memberId: string): Either.Either<MemberTrafficStatus, MemberTrafficNotFound> => {
  const synchronizer = view.synchronizers.find((s) => s.info.synchronizerId === synchronizerId)
  if (synchronizer === undefined) return Either.left(new MemberTrafficNotFound({ detail: `synchronizer ${synchronizerId} is not known` }))
  const member = view.topology.participant(memberId)
  if (member === undefined) return Either.left(new MemberTrafficNotFound({ detail: `member ${memberId} is not known on synchronizer ${synchronizerId}` }))
  // Read without creating: the sequencer starts a member's state on its first submission.
  const state = synchronizer.sequencer.logic.traffic.get(memberId)
  const grant = member.isSuperValidator ? view.initialExtraTraffic.superValidator : view.initialExtraTraffic.validator
  let purchased = 0
  for (const c of contractsOf(view.logic, view.registry, ScanTemplates.memberTraffic, view.dso)) {
    const p = createdOf(c).createArguments as unknown as MemberTrafficPayload
    if (p.memberId === memberId && p.synchronizerId === synchronizerId) purchased += Number(p.totalPurchased)
  }
  return Either.right({
    totalConsumed: state?.extraTrafficConsumed ?? 0,
    totalLimit: state?.extraTrafficLimit ?? 0,
    totalPurchased: grant + purchased
  })
}
