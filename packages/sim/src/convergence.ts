/**
 * End-of-run invariants that only make sense once faults have healed and in-flight work settled:
 * every node's history converges.
 *
 * - scans-converge: every super validator's scan holds the same verdicts (same update ids, same
 *   results) and the same updates;
 * - stakeholders-committed and exactly-once: log-checks.ts (they walk the participants' logs);
 * - commands-complete: no command is still in flight anywhere (each got its completion);
 * - acs-converge: every participant that hosts a stakeholder of an active contract has it active
 *   too, on the same synchronizer with the same reassignment counter (and the same for contracts in
 *   flight between synchronizers).
 */
import type { ActiveContract } from "@sandnet/core"
import { stakeholdersOf, type CoinNetwork } from "@sandnet/engine"
import { capped, cappedList, MarksById, MAX_LISTED, nodeName } from "./check-tools.ts"

/** What the first scan holds of an update id, and the last scan found to hold it too (its index). */
interface ScanReference {
  readonly result: string | undefined
  seenBy: number
}

/** Marks `mine` as held by scan `scan`; whether this is the first mark of that scan. */
const markSeen = (mine: ScanReference, scan: number): boolean => {
  if (mine.seenBy === scan) return false
  mine.seenBy = scan
  return true
}

/** The reference's entries scan `scan` did not mark, when it marked fewer than all. */
const unseenBy = (reference: ReadonlyMap<string, ScanReference>, scan: number, marked: number): Array<[string, ScanReference]> =>
  marked < reference.size ? [...reference].filter(([, mine]) => mine.seenBy !== scan) : []

/**
 * The first scan's verdicts and updates are the reference; every other scan is walked once and
 * each of its entries marked in the reference with the scan's index, so that what it lacks is
 * what its walk did not mark. (One map for all scans: with a map of its own per scan, this check
 * was 3.4% of the large scenario's bootstrap profile.)
 */
export const checkScansConverge = (network: CoinNetwork): ReadonlyArray<string> => {
  const [first, ...rest] = network.superValidators
  if (first === undefined) return []
  const violations: Array<string> = []
  const verdicts = new Map<string, ScanReference>()
  for (const { verdict } of first.scan.verdictLog) verdicts.set(verdict.updateId, { result: verdict.result, seenBy: 0 })
  const updates = new Map<string, ScanReference>()
  for (const { update } of first.scan.updates) updates.set(update.updateId, { result: undefined, seenBy: 0 })
  for (const [i, sv] of rest.entries()) {
    const scan = i + 1
    let marked = 0
    for (const { verdict } of sv.scan.verdictLog) {
      const id = verdict.updateId
      const mine = verdicts.get(id)
      if (mine === undefined) violations.push(`${sv.name} scan has a verdict for ${id} that ${first.name} lacks`)
      else {
        if (markSeen(mine, scan)) marked++
        if (verdict.result !== mine.result) violations.push(`${sv.name} scan's verdict for ${id} is ${verdict.result}, ${first.name}'s is ${mine.result}`)
      }
    }
    for (const [id, mine] of unseenBy(verdicts, scan, marked)) violations.push(`${sv.name} scan has no verdict for ${id} (${first.name} has ${mine.result})`)
    marked = 0
    for (const { update } of sv.scan.updates) {
      const mine = updates.get(update.updateId)
      if (mine === undefined) violations.push(`${sv.name} scan has update ${update.updateId} that ${first.name} lacks`)
      else if (markSeen(mine, scan)) marked++
    }
    for (const [id] of unseenBy(updates, scan, marked)) violations.push(`${sv.name} scan lacks update ${id} that ${first.name} has`)
    if (violations.length > MAX_LISTED) return capped(violations.slice(0, MAX_LISTED), violations.length - MAX_LISTED)
  }
  return violations
}

export const checkCommandsComplete = (network: CoinNetwork): ReadonlyArray<string> => {
  const list = cappedList()
  for (const node of network.participants) {
    const open = new Map<string, string>()
    for (const event of node.logic.journal) {
      if (event._tag === "CommandSubmitted") open.set(event.commandKey, event.commandId)
      else if (event._tag === "CommandCompleted") open.delete(event.commandKey)
    }
    for (const commandId of open.values()) list.add(`${nodeName(node)}: command ${commandId} is still in flight`)
  }
  return list.result()
}

/**
 * Where the first node holding a contract says it is: its synchronizer (the target, in flight) and
 * reassignment counter; and the nodes holding it (none yet when the mark was just made).
 */
interface Held {
  by: string
  synchronizer: string
  counter: number
  readonly contract: ActiveContract
  readonly holders: Array<string>
}

/** Contracts seen so far: found by the contract object that the nodes holding it share, else by id. */
const seenContracts = () => new MarksById<Held, ActiveContract>((contract) => ({ by: "", synchronizer: "", counter: 0, contract, holders: [] }))

export const checkAcsConverge = (network: CoinNetwork): ReadonlyArray<string> => {
  const { add, result } = cappedList()
  // One pass over every node's ACS records where each contract is (as the first node holding it
  // says) and which nodes hold it; then each contract's holders are compared with the participants
  // of its stakeholders. Linear in the total size of the ACSs. A state is compared field by field
  // and written out only for a violation: in the large scenario (20 super validators holding every
  // coin) a text and a stakeholder list per contract per node were most of this check's 2.6 s.
  // The super validators' ACSs share their contract objects: a contract already seen is found by
  // its object, and only a new object looks its id up (a string-keyed lookup costs three times more).
  const active = seenContracts()
  const inFlight = seenContracts()
  const stateText = (label: string, synchronizer: string, counter: number) => `${label === "active" ? "on" : "to"} ${synchronizer} at counter ${counter}`
  const note = (seen: MarksById<Held, ActiveContract>, label: string, contract: ActiveContract, synchronizer: string, counter: number, uid: string, name: string) => {
    const id = contract.created.contractId
    const first = seen.of(contract, id)
    if (first.holders.length === 0) {
      first.by = name
      first.synchronizer = synchronizer
      first.counter = counter
    } else if (first.synchronizer !== synchronizer || first.counter !== counter) {
      add(`${name} has ${id} ${label} ${stateText(label, synchronizer, counter)}, ${first.by} ${stateText(label, first.synchronizer, first.counter)}`)
    }
    first.holders.push(uid)
  }
  for (const node of network.participants) {
    const { uid, config } = node.logic
    for (const c of node.logic.acs.all()) note(active, "active", c, c.synchronizerId, c.reassignmentCounter, uid, config.name)
    for (const f of node.logic.acs.inFlightContracts()) note(inFlight, "in flight", f.contract, f.targetSynchronizer, f.reassignmentCounter, uid, config.name)
  }
  const names = new Map(network.participants.map((p) => [p.logic.uid, p.logic.config.name]))
  for (const [label, seen] of [["active", active], ["in flight", inFlight]] as const) {
    for (const [id, held] of seen.entries()) {
      const expected = network.topology.participantsOf(stakeholdersOf(held.contract))
      if (expected.length === held.holders.length) continue
      const holders = new Set(held.holders)
      for (const uid of expected) if (!holders.has(uid)) add(`${held.by} has ${id} ${label}, ${names.get(uid) ?? uid} (a stakeholder's participant) does not`)
    }
  }
  return result()
}
