/** The active contract set at an offset, replayed from a participant's update log, whole or by page. */
import type { ActiveContract, ContractId, CreatedNode, PartyId, SynchronizerId } from "@sandnet/core"
import { stakeholdersOf } from "../ledger/acs.ts"
import type { ParticipantLogic } from "../participant/index.ts"
import type { ResolvedEventFormat } from "./event-format.ts"
import { createdSubject, matchEvent } from "./matching.ts"
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
  logic: ParticipantLogic,
  offset: number,
  format: ResolvedEventFormat
): ReadonlyArray<ActiveContractView> => {
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

/**
 * One page of the active contracts at an offset (`active-contracts-page`): the contracts from
 * position `from` of the snapshot (oldest first, the order of `activeContractsAt`), at most
 * `maxItems`; `next` is where the next page starts, undefined on the last page.
 */
export const activeContractsPage = (
  logic: ParticipantLogic,
  offset: number,
  format: ResolvedEventFormat,
  from: number,
  maxItems: number
): { readonly contracts: ReadonlyArray<ActiveContractView>; readonly next: number | undefined } => {
  const all = activeContractsAt(logic, offset, format)
  const contracts = all.slice(from, from + maxItems)
  return { contracts, next: from + contracts.length < all.length ? from + contracts.length : undefined }
}
