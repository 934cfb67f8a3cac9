/**
 * Completions of a participant's own commands: a command in flight is completed once (succeeded
 * on its accepted verdict, failed on a rejection, a sequencing error or a timeout), journaled as
 * `CommandCompleted`, kept as a completion record for the command completion service, and handed
 * to the commit listeners. The completions a message decided are returned with what it sends
 * (`Handled`); the actor resolves whoever waits for them.
 */
import { invariant, type Micros } from "@sandnet/core"
import { MAX_DEDUPLICATION, nothingHandled, type Completion, type DecidedCommand, type Handled, type ParticipantEvent } from "./model.ts"
import type { Outgoing } from "../network/network.ts"
import type { ParticipantState } from "./state.ts"

/** Completes a command in flight: journals its outcome and tells the listeners. */
export const complete = (node: ParticipantState, commandKey: string, completion: Completion, now: Micros): Handled => {
  const entry = node.commands.get(commandKey)
  if (entry === undefined || entry.status !== "inFlight") return nothingHandled
  node.apply({ _tag: "CommandCompleted", commandKey, completion, at: now })
  pruneDeduplication(node, now)
  const outgoing: Array<Outgoing> = []
  for (const listener of node.listeners) if (listener.onCompletion !== undefined) outgoing.push(...listener.onCompletion(completion, now))
  return { outgoing, completions: [completion] }
}

/** Completes a command in flight as failed, with the ledger error code and its reason. */
export const failCommand = (node: ParticipantState, commandKey: string, updateId: string | undefined, code: string, reason: string, now: Micros): Handled => {
  const entry = node.commands.get(commandKey)
  if (entry === undefined) return nothingHandled
  node.stats.rejected++
  // a decided command is not completed again (complete() would drop it)
  if (entry.status !== "inFlight") return nothingHandled
  return complete(node, commandKey, { _tag: "Failed", commandId: entry.commandId, actAs: entry.actAs, updateId, code, reason }, now)
}

const pruneDeduplication = (node: ParticipantState, now: Micros): void => {
  if (node.commands.size < 200_000) return
  node.commands.forgetDecided((entry) => now - entry.completedAt >= MAX_DEDUPLICATION)
}

/** Folds `CommandCompleted`: the command's outcome and its completion record. */
export const applyCompletion = (node: ParticipantState, event: Extract<ParticipantEvent, { _tag: "CommandCompleted" }>): void => {
  const entry = node.commands.get(event.commandKey)
  // who submitted it and where: the attempt in flight, else what an earlier completion recorded
  const submitted = entry === undefined ? undefined : entry.status === "inFlight" ? entry : node.completions.at(entry.completionAt)
  const completion = event.completion
  const offset = completion._tag === "Succeeded" ? completion.offset : node.ledgerEnd
  invariant(offset >= (node.completions.last()?.offset ?? 0), "completion offsets must not decrease")
  const decided: DecidedCommand = { status: completion._tag === "Succeeded" ? "succeeded" : "failed", completedAt: event.at, completionAt: node.completions.length }
  node.completions.push({
    completion,
    userId: submitted?.userId,
    submissionId: submitted?.submissionId,
    synchronizerId: submitted?.synchronizerId ?? node.config.defaultSynchronizer,
    recordTime: completion._tag === "Succeeded" ? completion.recordTime : event.at,
    offset,
    completedAt: event.at
  })
  node.commands.set(event.commandKey, decided)
}
