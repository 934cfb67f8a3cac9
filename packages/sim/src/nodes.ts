/**
 * Participants as their clients see them. Every participant of a simulated network is reached
 * through a handle that stays the same object for the whole run, whatever happens to the node
 * behind it: a crash makes it refuse commands (UNAVAILABLE) until the node is rebuilt from its
 * journal (ParticipantLogic.recover); a skewed clock is applied to the commands it interprets; and
 * a client that retries resubmits through it. Installed before anything else holds on to the
 * nodes, so the workload, wallets and automations all talk to handles.
 */
import { Clock, Effect } from "effect"
import type { Micros } from "@sandnet/core"
import {
  CommandRejected,
  ParticipantLogic,
  makeParticipant,
  type CoinNetwork,
  type EventQueueNetwork,
  type Network,
  type ParticipantNode,
  type ReassignRequest,
  type SubmitRequest,
  type Topology
} from "@sandnet/engine"

/** A command a client submitted and may submit again with the same command id. */
export type ClientCall =
  | { readonly kind: "submit"; readonly request: SubmitRequest }
  | { readonly kind: "reassign"; readonly request: ReassignRequest }

export const UNAVAILABLE = "UNAVAILABLE"

export class ParticipantHandle implements ParticipantNode {
  /** The node behind the handle (replaced on restart). */
  current: ParticipantNode
  down = false
  /** The node's own clock, when it is skewed. */
  clock: Clock.Clock | undefined = undefined
  /** Called after the node accepted a client's submission (retries hook in here). */
  onAccepted: ((handle: ParticipantHandle, call: ClientCall) => Effect.Effect<void>) | undefined = undefined
  restarts = 0

  constructor(
    node: ParticipantNode,
    readonly name: string
  ) {
    this.current = node
  }

  get address(): string {
    return this.current.address
  }

  get logic(): ParticipantLogic {
    return this.current.logic
  }

  readonly receive: ParticipantNode["receive"] = (message, from) => this.current.receive(message, from)

  private unavailable(): CommandRejected {
    // (strings by type: no schema validation, as the participant's own rejections)
    return new CommandRejected({ code: UNAVAILABLE, message: `participant ${this.name} is down` }, true)
  }

  private onOwnClock<A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> {
    return this.clock === undefined ? effect : Effect.withClock(effect, this.clock)
  }

  /** Submits without the retry hook (a retry's resubmission). */
  resubmit(call: ClientCall): Effect.Effect<unknown, unknown> {
    if (this.down) return Effect.fail(this.unavailable())
    return call.kind === "submit" ? this.onOwnClock(this.current.submit(call.request)) : this.onOwnClock(this.current.reassign(call.request))
  }

  readonly submit: ParticipantNode["submit"] = (request) => {
    if (this.down) return Effect.fail(this.unavailable())
    const submitted = this.onOwnClock(this.current.submit(request))
    const hook = this.onAccepted
    return hook === undefined ? submitted : Effect.tap(submitted, () => hook(this, { kind: "submit", request }))
  }

  readonly reassign: ParticipantNode["reassign"] = (request) => {
    if (this.down) return Effect.fail(this.unavailable())
    const submitted = this.onOwnClock(this.current.reassign(request))
    const hook = this.onAccepted
    return hook === undefined ? submitted : Effect.tap(submitted, () => hook(this, { kind: "reassign", request }))
  }

  readonly awaitCompletion: ParticipantNode["awaitCompletion"] = (commandId, actAs) => Effect.suspend(() => this.current.awaitCompletion(commandId, actAs))

  readonly completionNow: ParticipantNode["completionNow"] = (commandId, actAs) => this.current.completionNow(commandId, actAs)

  /** Party allocation is a topology change, modelled as instant: it goes through even while the node is down. */
  readonly allocateParty: ParticipantNode["allocateParty"] = (hint) => Effect.suspend(() => this.current.allocateParty(hint))
}

/**
 * Puts a handle in front of every participant of the network (in place: the network's node records
 * and its participant list then hold the handles). Returns them in the network's participant order.
 */
export const installHandles = (network: CoinNetwork): ReadonlyArray<ParticipantHandle> => {
  const handles: Array<ParticipantHandle> = []
  for (const node of [...network.superValidators, ...network.validators]) {
    const handle = node.participant instanceof ParticipantHandle ? node.participant : new ParticipantHandle(node.participant, node.name)
    ;(node as { participant: ParticipantNode }).participant = handle
    handles.push(handle)
  }
  const participants = network.participants as Array<ParticipantNode>
  participants.splice(0, participants.length, ...handles)
  return handles
}

/**
 * Replaces a participant's logic before the network has run (tests use it to put a deliberately
 * broken participant in): the new logic replays the old one's journal and takes over its listeners.
 */
export const replaceLogic = (
  network: CoinNetwork,
  queue: EventQueueNetwork,
  handle: ParticipantHandle,
  make: (old: ParticipantLogic) => ParticipantLogic
): Effect.Effect<void, never, Network | Topology> =>
  Effect.gen(function* () {
    const old = handle.logic
    const logic = make(old)
    for (const event of old.journal) {
      logic.apply(event, true)
      logic.journal.push(event)
    }
    const sv = network.superValidators.find((s) => s.participant === handle)
    if (sv !== undefined) logic.addListener(sv.scan)
    const node = yield* makeParticipant(old.config, old.registry, logic)
    queue.replace(node)
    handle.current = node
  })

/** Crashes and restarts participants; holds the timers of sequencers and mediators that are down. */
export class NodeControl {
  constructor(
    private readonly queue: EventQueueNetwork,
    private readonly onRestart: (handle: ParticipantHandle) => void
  ) {}

  /** The node stops: its in-memory timers are gone; what the sequencer sends it waits (the link model holds it). */
  crash(handle: ParticipantHandle): void {
    handle.down = true
    const address = handle.address
    this.queue.queue.removeWhere((d) => d.to === address && d.from === address)
  }

  /** Rebuilds the node from its journal, re-arms its timers and puts it back on the network. */
  restart(handle: ParticipantHandle, now: Micros): Effect.Effect<void, never, Network | Topology> {
    return Effect.gen(this, function* () {
      const crashed = handle.logic
      const { logic, timers } = ParticipantLogic.recover(crashed, now)
      const node = yield* makeParticipant(crashed.config, crashed.registry, logic)
      this.queue.replace(node)
      handle.current = node
      handle.down = false
      handle.restarts++
      this.onRestart(handle)
      yield* this.queue.sendAll(timers)
    })
  }

  /** A sequencer or mediator that is down keeps its state; its own timers fire once it is back. */
  holdTimers(address: string, until: Micros): void {
    const held = this.queue.queue.removeWhere((d) => d.to === address && d.from === address && d.at < until)
    for (const d of held) this.queue.queue.push({ ...d, at: until })
  }
}
