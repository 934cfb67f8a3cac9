/**
 * The participant as an actor: its logic (logic.ts) behind one mailbox, commands that read the
 * clock and send what the logic returns, and the waiters for command completions. The logic
 * returns the completions each message decided; this shell, where the Effect runtime is, hands
 * them to the Deferreds that wait for them.
 */
import { Clock, Deferred, Effect, Either } from "effect"
import { micros, type ContractNotActive, type InterpretationError, type PartyId } from "@sandnet/core"
import type { CommandRejected, PartyAlreadyExists } from "../errors.ts"
import type { InterpretedTransaction } from "../ledger/interpreter.ts"
import type { TemplateRegistry } from "../ledger/template.ts"
import { Network, receiveOf, type Actor } from "../network/network.ts"
import { Topology } from "../topology.ts"
import { ParticipantLogic } from "./logic.ts"
import { commandKeyOf, type Completion, type ParticipantConfig, type ReassignRequest, type SubmitRequest } from "./model.ts"

export interface ParticipantNode extends Actor {
  readonly logic: ParticipantLogic
  /** Interprets and submits; fails at once on interpretation errors and duplicates. */
  readonly submit: (request: SubmitRequest) => Effect.Effect<{ readonly updateId: string; readonly transaction: InterpretedTransaction }, InterpretationError | CommandRejected>
  readonly reassign: (request: ReassignRequest) => Effect.Effect<{ readonly updateId: string }, CommandRejected | ContractNotActive>
  /** Waits for the completion of a submitted command (the driver must keep delivering messages). */
  readonly awaitCompletion: (commandId: string, actAs: ReadonlyArray<PartyId>) => Effect.Effect<Completion>
  /** The completion of a submitted command if it has completed already, else undefined (what `awaitCompletion` answers at once). */
  readonly completionNow: (commandId: string, actAs: ReadonlyArray<PartyId>) => Completion | undefined
  readonly allocateParty: (hint: string) => Effect.Effect<PartyId, PartyAlreadyExists>
}

/** Who waits for which command's completion (by command key), in the order they started waiting. */
class CompletionWaiters {
  private readonly waiting = new Map<string, Array<Deferred.Deferred<Completion>>>()

  add(commandKey: string, deferred: Deferred.Deferred<Completion>): void {
    let list = this.waiting.get(commandKey)
    if (list === undefined) this.waiting.set(commandKey, (list = []))
    list.push(deferred)
  }

  /** Takes the waiters of these completions; the effect that resolves them, or undefined when nobody waits. */
  settle(completions: ReadonlyArray<Completion>): Effect.Effect<void> | undefined {
    let resolve: Array<Effect.Effect<boolean>> | undefined
    for (const completion of completions) {
      const key = commandKeyOf(completion.commandId, completion.actAs)
      const waiting = this.waiting.get(key)
      if (waiting === undefined) continue
      this.waiting.delete(key)
      resolve ??= []
      for (const deferred of waiting) resolve.push(Deferred.succeed(deferred, completion))
    }
    return resolve === undefined ? undefined : Effect.all(resolve, { discard: true })
  }
}

export const makeParticipant = (
  config: ParticipantConfig,
  registry: TemplateRegistry,
  /** A recovered node's logic (see ParticipantLogic.recover); a fresh one otherwise. */
  recovered?: ParticipantLogic
): Effect.Effect<ParticipantNode, never, Network | Topology> =>
  Effect.gen(function* () {
    const network = yield* Network
    const topology = yield* Topology
    const logic = recovered ?? new ParticipantLogic(config, topology, registry)
    const waiters = new CompletionWaiters()
    const now = Effect.map(Clock.currentTimeNanos, micros.fromNanos)
    const node: ParticipantNode = {
      address: config.uid,
      logic,
      receive: receiveOf(network, (message, t) => {
        const { outgoing, completions } = logic.handle(message, t)
        if (completions.length === 0) return outgoing
        return { outgoing, then: waiters.settle(completions) }
      }),
      submit: (request) =>
        Effect.flatMap(now, (t) => {
          const result = logic.submit(request, t)
          if (Either.isLeft(result)) return Effect.fail(result.left)
          return Effect.as(network.sendAll(result.right.out), { updateId: result.right.updateId, transaction: result.right.transaction })
        }),
      reassign: (request) =>
        Effect.flatMap(now, (t) => {
          const result = logic.reassign(request, t)
          if (Either.isLeft(result)) return Effect.fail(result.left)
          return Effect.as(network.sendAll(result.right.out), { updateId: result.right.updateId })
        }),
      awaitCompletion: (commandId, actAs) =>
        Effect.flatMap(Deferred.make<Completion>(), (deferred) => {
          const done = logic.completionOf(commandId, actAs)
          if (done !== undefined) return Effect.succeed(done)
          waiters.add(commandKeyOf(commandId, actAs), deferred)
          return Deferred.await(deferred)
        }),
      completionNow: (commandId, actAs) => logic.completionOf(commandId, actAs),
      allocateParty: (hint) => Effect.flatMap(now, (t) => logic.allocateParty(hint, t))
    }
    if (recovered === undefined) yield* network.register(node)
    return node
  })
