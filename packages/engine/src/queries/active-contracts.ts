/** The active contract set at an offset, replayed from a participant's update log, whole or by page. */
import { Either } from "effect"
import type { ActiveContract, ContractId, CreatedNode, PartyId, SynchronizerId } from "@sandnet/core"
import { stakeholdersOf } from "../ledger/acs.ts"
import type { ParticipantNode } from "../participant/index.ts"
import type { OffsetAfterLedgerEnd } from "./errors.ts"
import type { ResolvedEventFormat } from "./event-format.ts"
import { createdSubject, matchEvent } from "./matching.ts"
import { checkOffsets } from "./updates.ts"
import { createdView, type CreatedEventView } from "./views.ts"

export interface ActiveContractView {
  readonly created: CreatedEventView
  readonly synchronizerId: SynchronizerId
  readonly reassignmentCounter: number
  readonly workflowId: string
}

/**
 * The participant's active contracts at an offset (replayed from its update log), as an event
 * format shows them (stakeholder rules). Oldest first. Contracts in flight between synchronizers
 * at that offset are not listed.
 */
export const activeContractsAt = (
  participant: ParticipantNode,
  offset: number,
  format: ResolvedEventFormat
): ReadonlyArray<ActiveContractView> => {
  const logic = participant.logic
  const active = new Map<ContractId, { contract: ActiveContract; offset: number; workflowId: string }>()
  const hostedStakeholder = (node: CreatedNode) => [...node.signatories, ...node.observers].some((p) => logic.hosts(p))
  for (let at = 1; at <= Math.min(offset, logic.ledgerEnd); at++) {
    const entry = logic.updateAtOffset(at)
    if (entry === undefined) continue
    const update = entry.update
    if (update.kind === "transaction") {
      for (const node of update.nodes) {
        if (node.kind === "created") {
          if (hostedStakeholder(node)) {
            active.set(node.contractId, {
              contract: { created: node, createdInUpdateId: update.updateId, synchronizerId: update.synchronizerId, reassignmentCounter: 0 },
              offset: at,
              workflowId: update.workflowId
            })
          }
        } else if (node.consuming) {
          active.delete(node.contractId)
        }
      }
    } else if (update.kind === "topology") {
      // changes no contract
    } else if (update.event.kind === "unassign") {
      active.delete(update.event.contractId)
    } else {
      const node = update.event.createdEvent
      active.set(node.contractId, {
        contract: {
          created: node,
          createdInUpdateId: update.updateId,
          synchronizerId: update.event.targetSynchronizer,
          reassignmentCounter: update.event.reassignmentCounter
        },
        offset: at,
        workflowId: update.workflowId
      })
    }
  }
  const out: Array<ActiveContractView> = []
  const hosts = (p: PartyId) => logic.hosts(p)
  for (const { contract, offset: at, workflowId } of active.values()) {
    const match = matchEvent(format, stakeholdersOf(contract), hosts, createdSubject(contract.created))
    if (match === undefined) continue
    out.push({
      created: createdView(contract.created, at, match, true, () => contract),
      synchronizerId: contract.synchronizerId,
      reassignmentCounter: contract.reassignmentCounter,
      workflowId
    })
  }
  return out
}

/** The first `limit` active contracts at `activeAtOffset`, which must be at or before the ledger end. */
export const activeContractsSnapshot = (
  participant: ParticipantNode,
  activeAtOffset: number,
  format: ResolvedEventFormat,
  limit: number
): Either.Either<ReadonlyArray<ActiveContractView>, OffsetAfterLedgerEnd> => {
  const offsets = checkOffsets(participant, activeAtOffset, undefined, { begin: "activeAtOffset", end: "activeAtOffset" })
  return offsets !== undefined ? Either.left(offsets) : Either.right(activeContractsAt(participant, activeAtOffset, format).slice(0, limit))
}

export interface ActiveContractsPage {
  /** The offset of the snapshot the page is of. */
  readonly activeAtOffset: number
  readonly contracts: ReadonlyArray<ActiveContractView>
  /** Where the next page starts; undefined on the last page. */
  readonly next: number | undefined
}

/**
 * One page of the active contracts at an offset (`active-contracts-page`): the contracts from
 * position `from` of the snapshot (oldest first, the order of `activeContractsAt`), at most
 * `maxItems`. The snapshot is at `activeAtOffset` (the ledger end when not given), which must be
 * at or before the ledger end.
 */
export const activeContractsPage = (
  participant: ParticipantNode,
  query: { readonly activeAtOffset: number | undefined; readonly format: ResolvedEventFormat; readonly from: number; readonly maxItems: number }
): Either.Either<ActiveContractsPage, OffsetAfterLedgerEnd> => {
  const offset = query.activeAtOffset ?? participant.logic.ledgerEnd
  const offsets = checkOffsets(participant, offset, undefined, { begin: "activeAtOffset", end: "activeAtOffset" })
  if (offsets !== undefined) return Either.left(offsets)
  const all = activeContractsAt(participant, offset, query.format)
  const contracts = all.slice(query.from, query.from + query.maxItems)
  return Either.right({ activeAtOffset: offset, contracts, next: query.from + contracts.length < all.length ? query.from + contracts.length : undefined })
}
