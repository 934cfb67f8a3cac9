/**
 * What the ledger API's package, vetting and external-party queries need of a network, and the
 * participant whose state answers them. Every participant of a network takes the same uploads,
 * vetting and external parties (each journals them), so any of them could answer; the one chosen
 * is the first whose journal is kept in this process, as that is the one a restart restores here
 * (in a network spread over processes, the others are copies of nodes elsewhere).
 */
import { invariant } from "@sandnet/core"
import type { ParticipantLogic } from "../participant/index.ts"
import type { TemplateRegistry } from "../ledger/template.ts"

export { builtInPackages, type KnownPackage } from "../participant/index.ts"

/** What the ledger API needs of a network: its template registry and its participants. */
export interface LedgerNetwork {
  readonly registry: TemplateRegistry
  readonly participants: ReadonlyArray<{ readonly logic: ParticipantLogic }>
}

/** The participant whose packages, vetting and external parties' keys the network-wide queries read. */
export const ledgerParticipant = (network: LedgerNetwork): ParticipantLogic => {
  const node = network.participants.find((p) => p.logic.journalSink !== undefined) ?? network.participants[0]
  invariant(node !== undefined, "a network has at least one participant")
  return node.logic
}
