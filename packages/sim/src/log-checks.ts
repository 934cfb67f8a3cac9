/**
 * The invariants that read every participant's update log, as visitors of one walk: checkInvariants
 * walks each log once for all of those asked for, each checked alone walks them once for itself.
 *
 * - no-double-spend: no node commits two consumptions of one contract;
 * - exactly-once: no node commits an update twice, and no command (submitters and command id) is
 *   committed twice by the participant that submitted it;
 * - reassignment-counters: see `reassignmentCountersCheck`;
 * - stakeholders-committed: every participant that hosts an informee of an ACCEPTED verdict
 *   committed its update, and every committed transaction or reassignment has an ACCEPTED verdict
 *   (topology updates have none).
 *
 * Why: in the large scenario the twenty super validators' logs hold every transfer (about 1.2
 * million entries), and each of these checks walked them on its own with a string-keyed map
 * operation per entry and node (0.5 to 0.7 us on a slow VM, against 0.15 us keyed by the update
 * object the super validators share). Now one walk serves them all, what a check remembers across
 * nodes is one map for all of them (keyed by the shared id, marked with the last node that saw it),
 * and what depends only on an update is looked up once per update object: the eleven invariants
 * took 12.3 s instead of 15 s on that network (docs/benchmarks.md, 2026-11-30 mid-morning).
 */
import type { CommittedUpdate, ContractId, PartyId, TransactionUpdate } from "@sandnet/core"
import { commandKeyOf, type CoinNetwork, type ParticipantNode } from "@sandnet/engine"
import { cappedList, MarksById, nodeName } from "./check-tools.ts"

/** A check that reads each participant's log: told of each node, then of each of its entries, in order. */
export interface LogCheck {
  readonly beginNode: (node: ParticipantNode, index: number) => void
  readonly visit: (entry: CommittedUpdate) => void
  readonly endNode: (node: ParticipantNode) => void
  readonly violations: () => ReadonlyArray<string>
}

/** Walks every participant's log once, telling each check of every entry. */
export const walkLogs = (network: CoinNetwork, checks: ReadonlyArray<LogCheck>): void => {
  network.participants.forEach((node, index) => {
    for (const check of checks) check.beginNode(node, index)
    for (const entry of node.logic.log) for (const check of checks) check.visit(entry)
    for (const check of checks) check.endNode(node)
  })
}

/** Runs one log check alone. */
const runAlone = (network: CoinNetwork, check: LogCheck): ReadonlyArray<string> => {
  walkLogs(network, [check])
  return check.violations()
}

/** Where a contract was last seen consumed: by which node (its index) and in which update. */
interface Consumption {
  node: number
  updateId: string
}

export const noDoubleSpendCheck = (): LogCheck => {
  const violations: Array<string> = []
  const consumed = new MarksById<Consumption>(() => ({ node: -1, updateId: "" }))
  let node = -1
  let name = ""
  return {
    beginNode: (n, index) => {
      node = index
      name = nodeName(n)
    },
    visit: ({ update }) => {
      if (update.kind !== "transaction") return
      for (const n of update.nodes) {
        if (n.kind !== "exercised" || !n.consuming) continue
        const earlier = consumed.of(n, n.contractId)
        if (earlier.node === node) violations.push(`${name}: contract ${n.contractId} consumed in ${earlier.updateId} and again in ${update.updateId}`)
        else {
          earlier.node = node
          earlier.updateId = update.updateId
        }
      }
    },
    endNode: () => {},
    violations: () => violations
  }
}

export const checkNoDoubleSpend = (network: CoinNetwork): ReadonlyArray<string> => runAlone(network, noDoubleSpendCheck())

export const exactlyOnceCheck = (): LogCheck => {
  const list = cappedList()
  /** By update id: the index of the last node that committed it. */
  const committedBy = new MarksById<{ node: number }>(() => ({ node: -1 }))
  let commands = new Map<string, string>()
  let node = -1
  let name = ""
  let uid = ""
  return {
    beginNode: (n, index) => {
      node = index
      name = nodeName(n)
      uid = n.logic.uid
      commands = new Map()
    },
    visit: ({ update }) => {
      const committed = committedBy.of(update, update.updateId)
      if (committed.node === node) list.add(`${name} committed update ${update.updateId} twice`)
      committed.node = node
      if (update.kind === "topology" || update.submittingParticipant !== uid) return
      const submitters = update.kind === "transaction" ? update.submitters : [update.submitter]
      const key = commandKeyOf(update.commandId, submitters)
      const earlier = commands.get(key)
      if (earlier !== undefined) list.add(`${name}: command ${update.commandId} of ${submitters.join(", ")} committed twice, in ${earlier} and in ${update.updateId}`)
      else commands.set(key, update.updateId)
    },
    endNode: () => {},
    violations: list.result
  }
}

export const checkExactlyOnce = (network: CoinNetwork): ReadonlyArray<string> => runAlone(network, exactlyOnceCheck())

/** A reassigned contract as one node's log tells it: created there or not, its unassigns and assigns by counter. */
interface ReassignedHere {
  created: boolean
  readonly unassigns: Map<number, string>
  readonly assigns: Map<number, string>
}

/**
 * Reassignment counters, per node and contract. A node sees the events of different synchronizers
 * in any order (an assign can come before its unassign), so the rules do not depend on the order:
 * every unassign has a counter one above the contract's previous one (0 at creation, then each
 * assign's), no counter is used by two unassigns or two assigns, and every assign names an unassign
 * the node also committed, with the same counter.
 */
export const reassignmentCountersCheck = (): LogCheck => {
  const violations: Array<string> = []
  let history = new Map<ContractId, ReassignedHere>()
  const createdBy = new WeakMap<TransactionUpdate, ReadonlyArray<ContractId>>()
  let name = ""
  const of = (id: ContractId): ReassignedHere => {
    let h = history.get(id)
    if (h === undefined) history.set(id, (h = { created: false, unassigns: new Map(), assigns: new Map() }))
    return h
  }
  return {
    beginNode: (n) => {
      name = nodeName(n)
      history = new Map()
    },
    visit: ({ update }) => {
      if (update.kind !== "reassignment") return
      const event = update.event
      if (event.kind === "unassign") {
        const h = of(event.contractId)
        if (h.unassigns.has(event.reassignmentCounter)) violations.push(`${name}: two unassigns of ${event.contractId} with counter ${event.reassignmentCounter}`)
        h.unassigns.set(event.reassignmentCounter, event.unassignId)
      } else {
        const h = of(event.createdEvent.contractId)
        if (h.assigns.has(event.reassignmentCounter)) violations.push(`${name}: two assigns of ${event.createdEvent.contractId} with counter ${event.reassignmentCounter}`)
        h.assigns.set(event.reassignmentCounter, event.unassignId)
      }
    },
    endNode: (n) => {
      if (history.size === 0) return
      markCreated(n, history, createdBy)
      for (const [id, h] of history) violations.push(...counterViolations(name, id, h))
    },
    violations: () => violations
  }
}

/**
 * Which of the reassigned contracts were created on this node (most contracts never move: only those
 * are looked up). The contracts a transaction creates are listed once per update object: the super
 * validators' logs share them, and walking every node of every transaction again for each of them
 * was a quarter of this check.
 */
const markCreated = (node: ParticipantNode, history: ReadonlyMap<ContractId, ReassignedHere>, createdBy: WeakMap<TransactionUpdate, ReadonlyArray<ContractId>>): void => {
  for (const { update } of node.logic.log) {
    if (update.kind !== "transaction") continue
    let created = createdBy.get(update)
    if (created === undefined) createdBy.set(update, (created = createdIn(update)))
    for (const id of created) {
      const h = history.get(id)
      if (h !== undefined) h.created = true
    }
  }
}

const createdIn = (update: TransactionUpdate): ReadonlyArray<ContractId> => {
  const ids: Array<ContractId> = []
  for (const n of update.nodes) if (n.kind === "created") ids.push(n.contractId)
  return ids
}

const counterViolations = (name: string, id: ContractId, h: ReassignedHere): Array<string> => {
  const violations: Array<string> = []
  for (const counter of h.unassigns.keys()) {
    const previous = counter - 1
    const known = previous === 0 ? h.created || h.assigns.size > 0 || h.unassigns.size > 0 : h.assigns.has(previous)
    // A node that learnt of the contract through an assign only knows counters from there on.
    if (!known && h.created) violations.push(`${name}: unassign of ${id} has counter ${counter}, but the contract never had counter ${previous} here`)
  }
  for (const [counter, unassignId] of h.assigns) {
    const unassign = h.unassigns.get(counter)
    if (unassign === undefined) violations.push(`${name}: assign of ${id} with counter ${counter} has no unassign with that counter here`)
    else if (unassign !== unassignId) violations.push(`${name}: assign of ${id} names unassign ${unassignId}, expected ${unassign}`)
  }
  return violations
}

export const checkReassignmentCounters = (network: CoinNetwork): ReadonlyArray<string> => runAlone(network, reassignmentCountersCheck())

/**
 * Stakeholders committed: the first super validator's scan is the reference. Its accepted verdicts
 * are checked against the nodes of their informees when the check is made; the logs, as they are
 * walked, against its verdicts.
 */
export const stakeholdersCommittedCheck = (network: CoinNetwork): LogCheck => {
  const sv = network.superValidators[0]
  const list = cappedList()
  if (sv !== undefined) acceptedVerdictsCommitted(network, sv, list.add)
  // What the reference's verdict says of each update object ("" when accepted): the super
  // validators' logs share their update objects, so each is looked up once.
  const verdictProblems = new WeakMap<object, string>()
  const problemOf = (update: Exclude<CommittedUpdate["update"], { readonly kind: "topology" }>): string => {
    let problem = verdictProblems.get(update)
    if (problem === undefined) {
      const verdict = sv!.scan.verdictOf(update.updateId)
      problem =
        verdict === undefined
          ? `for which ${sv!.name}'s scan has no verdict`
          : verdict.verdict.result === "VERDICT_RESULT_ACCEPTED"
            ? ""
            : `whose verdict is ${verdict.verdict.result}`
      verdictProblems.set(update, problem)
    }
    return problem
  }
  let name = ""
  return {
    beginNode: (n) => {
      name = nodeName(n)
    },
    visit: ({ update }) => {
      // topology updates are not confirmed by a mediator: they have no verdict
      if (sv === undefined || update.kind === "topology") return
      const problem = problemOf(update)
      if (problem !== "") list.add(`${name} committed ${update.updateId}, ${problem}`)
    },
    endNode: () => {},
    violations: list.result
  }
}

/** Every participant hosting an informee of an accepted verdict of `sv`'s scan committed its update. */
const acceptedVerdictsCommitted = (network: CoinNetwork, sv: CoinNetwork["superValidators"][number], add: (violation: string) => void): void => {
  const byUid = new Map<string, ParticipantNode>(network.participants.map((p) => [p.logic.uid, p]))
  for (const { verdict } of sv.scan.verdictLog) {
    if (verdict.result !== "VERDICT_RESULT_ACCEPTED") continue
    const informees = new Set<PartyId>()
    for (const view of verdict.views) for (const p of view.informees) informees.add(p)
    for (const uid of network.topology.participantsOf([...informees].sort())) {
      const node = byUid.get(uid)
      if (node !== undefined && node.logic.updateById(verdict.updateId) === undefined) {
        add(`${nodeName(node)} hosts an informee of accepted update ${verdict.updateId} but did not commit it`)
      }
    }
  }
}

export const checkStakeholdersCommitted = (network: CoinNetwork): ReadonlyArray<string> =>
  network.superValidators.length === 0 ? [] : runAlone(network, stakeholdersCommittedCheck(network))
