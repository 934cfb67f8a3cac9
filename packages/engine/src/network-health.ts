/**
 * The network as the node's landing page and developer console show it: each node with the
 * parties its participant hosts and its progress, each synchronizer with what its mediator still
 * waits for. Plain values, read from the participants and synchronizers so that the HTTP layer
 * never reaches into their logic.
 */
import type { Micros } from "@sandnet/core"
import type { CoinNetwork } from "./coin-network.ts"

export interface NodeHealth {
  readonly name: string
  readonly role: "super validator" | "validator"
  readonly participantUid: string
  readonly operator: string
  /** The parties the topology hosts on this node's participant, sorted. */
  readonly hostedParties: ReadonlyArray<string>
  readonly ledgerEnd: number
  readonly pendingConfirmations: number
  readonly submitted: number
  readonly committed: number
  readonly rejected: number
}

export interface SynchronizerHealth {
  readonly name: string
  readonly synchronizerId: string
  readonly migrationId: number
  readonly pendingConfirmationRequests: number
  /** Record time of the last sequenced message; 0 when none was sequenced yet. */
  readonly lastSequenced: Micros
}

/** Super validators first, then validators. */
export const nodesHealth = (network: CoinNetwork): ReadonlyArray<NodeHealth> => {
  const parties = network.topology.allParties()
  const nodes = [
    ...network.superValidators.map((n) => ({ node: n, role: "super validator" as const })),
    ...network.validators.map((n) => ({ node: n, role: "validator" as const }))
  ]
  return nodes.map(({ node, role }) => {
    const logic = node.participant.logic
    const uid = logic.config.uid
    return {
      name: node.name,
      role,
      participantUid: uid as string,
      operator: node.operator as string,
      hostedParties: parties
        .filter((h) => h.participants.some((p) => p.participantUid === uid))
        .map((h) => h.party as string)
        .sort(),
      ledgerEnd: logic.ledgerEnd,
      pendingConfirmations: logic.pendingRequestCount,
      submitted: logic.stats.submitted,
      committed: logic.stats.committed,
      rejected: logic.stats.rejected
    }
  })
}

export const synchronizersHealth = (network: CoinNetwork): ReadonlyArray<SynchronizerHealth> =>
  network.synchronizers.map((s) => ({
    name: s.info.name,
    synchronizerId: s.info.synchronizerId as string,
    migrationId: s.info.migrationId,
    pendingConfirmationRequests: s.mediator.logic.pendingCount,
    lastSequenced: s.sequencer.logic.lastTimestamp
  }))
