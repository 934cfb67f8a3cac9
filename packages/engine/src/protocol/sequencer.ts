/**
 * The sequencer of one synchronizer: totally orders submissions, stamps each with a strictly
 * increasing record time (microsecond resolution), charges the sender's traffic per envelope and
 * delivers every envelope to its recipients over ordered links. A submission arriving after its
 * max sequencing time, or from a member without enough traffic, is not sequenced.
 */
import { Effect } from "effect"
import { invariant, PairQueue, type Micros, type TrafficSummary } from "@sandnet/core"
import { Network, Outgoing, receiveOf, type Actor, type Address } from "../network/network.ts"
import type { SynchronizerInfo } from "../topology.ts"
import type { Deliver, DeliverError, EnvelopeContent, SubmissionRequest } from "./messages.ts"
import {
  availableTraffic,
  consumeTraffic,
  envelopeCost,
  initialTrafficState,
  setExtraTrafficLimit,
  type MemberTrafficState
} from "./traffic.ts"

export interface SequencerStats {
  sequenced: number
  rejectedForTraffic: number
  expired: number
  duplicates: number
}

export class SequencerLogic {
  lastTimestamp: Micros = 0
  readonly traffic = new Map<Address, MemberTrafficState>()
  readonly stats: SequencerStats = { sequenced: 0, rejectedForTraffic: 0, expired: 0, duplicates: 0 }
  /**
   * Message ids already decided (sequenced or refused), per sender: a copy of a submission that
   * the network delivers again is dropped, so a request refused for traffic can never be sequenced
   * later from a second copy after its sender gave up on it.
   */
  private readonly decided = new Set<string>()
  /**
   * The decided ids in the order they were decided, with their max sequencing times: the oldest
   * are forgotten from here (walking the set itself from its start was 21.8% of the large
   * scenario's run, PairQueue says why).
   */
  private readonly decidedOrder = new PairQueue<string, Micros>()

  constructor(
    readonly synchronizer: SynchronizerInfo,
    /** Members that do not pay for traffic (the mediator, as in Canton). */
    private readonly exempt: ReadonlySet<Address>
  ) {}

  trafficOf(member: Address, now: Micros): MemberTrafficState {
    let state = this.traffic.get(member)
    if (state === undefined) {
      state = initialTrafficState(this.synchronizer.parameters.traffic, now)
      this.traffic.set(member, state)
    }
    return state
  }

  available(member: Address, now: Micros): number {
    return availableTraffic(this.trafficOf(member, now), this.synchronizer.parameters.traffic, now)
  }

  handle(request: SubmissionRequest, now: Micros): ReadonlyArray<Outgoing> {
    const self = this.synchronizer.sequencer
    const id = this.synchronizer.synchronizerId
    const timestamp = Math.max(now, this.lastTimestamp + 1)
    if (timestamp > request.maxSequencingTime) {
      // Too late: never sequenced. The sender learns it from sequencer time passing its deadline.
      this.stats.expired++
      return []
    }
    const messageKey = request.sender + "\n" + request.messageId
    if (this.decided.has(messageKey)) {
      this.stats.duplicates++
      return []
    }
    this.forgetExpired(timestamp)
    this.decided.add(messageKey)
    this.decidedOrder.push(messageKey, request.maxSequencingTime)
    const parameters = this.synchronizer.parameters.traffic
    const costs = request.envelopes.map((e) => envelopeCost(e.size, e.recipients.length, parameters))
    const total = costs.reduce((a, b) => a + b, 0)
    if (!this.exempt.has(request.sender)) {
      const traffic = this.trafficOf(request.sender, timestamp)
      if (!consumeTraffic(traffic, parameters, total, timestamp)) {
        this.stats.rejectedForTraffic++
        const error: DeliverError = {
          _tag: "DeliverError",
          synchronizerId: id,
          timestamp,
          messageId: request.messageId,
          reason: `SEQUENCER_TRAFFIC_EXCEEDED: submission costs ${total} bytes of traffic, ${availableTraffic(traffic, parameters, timestamp)} available`
        }
        this.lastTimestamp = timestamp
        return [Outgoing.send(self, request.sender, error, true)]
      }
    }
    invariant(timestamp > this.lastTimestamp, "sequencer timestamps must strictly increase")
    this.lastTimestamp = timestamp
    this.stats.sequenced++
    return this.deliver(request, timestamp, costs, total)
  }

  /**
   * The deliveries of a sequenced submission: one Deliver per recipient, the sender's receipt
   * included. Recipients that are neither the sender nor the mediator and get the same envelopes
   * share one Deliver (messages are immutable): a request or a verdict goes to every informee's
   * node, twenty-odd in the large scenario, where a Deliver and its list each were a sequencer's
   * largest allocation (sampling heap profile).
   */
  private deliver(request: SubmissionRequest, timestamp: Micros, costs: ReadonlyArray<number>, total: number): ReadonlyArray<Outgoing> {
    const only = request.envelopes.length === 1 ? request.envelopes[0]! : undefined
    // One envelope (almost every submission): every recipient gets the same contents, no grouping.
    if (only !== undefined && only.content._tag !== "SetExtraTrafficLimit" && distinct(only.recipients)) {
      const recipients = only.recipients.filter((r) => r !== this.synchronizer.sequencer)
      const receiptOnly = !recipients.includes(request.sender)
      if (request.receipt !== false && receiptOnly) recipients.push(request.sender)
      const contents = [only.content]
      return this.deliveries(request, timestamp, costs, total, recipients, (recipient) => (recipient === request.sender && receiptOnly ? [] : contents))
    }
    const self = this.synchronizer.sequencer
    // Group the envelopes per recipient, keeping submission order; recipients in first-seen order.
    const batches = new Map<Address, Array<EnvelopeContent>>()
    for (const envelope of request.envelopes) {
      // Traffic purchases are sequenced like everything else, then applied in sequencing order.
      if (envelope.content._tag === "SetExtraTrafficLimit" && envelope.recipients.includes(self)) {
        this.handleSetLimit(envelope.content.member, envelope.content.extraTrafficLimit, timestamp)
      }
      for (const recipient of envelope.recipients) {
        if (recipient === self) continue
        let batch = batches.get(recipient)
        if (batch === undefined) batches.set(recipient, (batch = []))
        batch.push(envelope.content)
      }
    }
    if (request.receipt !== false && !batches.has(request.sender)) batches.set(request.sender, [])
    return this.deliveries(request, timestamp, costs, total, [...batches.keys()], (recipient) => batches.get(recipient)!)
  }

  /** One Deliver per recipient, in order; recipients that are neither the sender nor the mediator share one when their contents are the same. */
  private deliveries(
    request: SubmissionRequest,
    timestamp: Micros,
    costs: ReadonlyArray<number>,
    total: number,
    recipients: ReadonlyArray<Address>,
    contentsOf: (recipient: Address) => ReadonlyArray<EnvelopeContent>
  ): ReadonlyArray<Outgoing> {
    const self = this.synchronizer.sequencer
    const out: Array<Outgoing> = []
    let shared: Deliver | undefined = undefined
    for (const recipient of recipients) {
      const isSender = recipient === request.sender
      const toMediator = recipient === this.synchronizer.mediator
      const plain = !isSender && !toMediator
      const contents = contentsOf(recipient)
      if (plain && shared !== undefined && sameContents(shared.contents, contents)) {
        out.push(Outgoing.send(self, recipient, shared, true))
        continue
      }
      const deliver: Deliver = {
        _tag: "Deliver",
        synchronizerId: this.synchronizer.synchronizerId,
        timestamp,
        sender: request.sender,
        messageId: isSender ? request.messageId : undefined,
        contents,
        trafficSummary: toMediator ? trafficSummaryOf(request, costs, total) : undefined
      }
      if (plain) shared = deliver
      out.push(Outgoing.send(self, recipient, deliver, true))
    }
    return out
  }

  /**
   * Copies arriving after their max sequencing time are refused anyway: their ids can go, oldest
   * decided first, up to the first that may still come (as long as it stays, so do the ones after it).
   */
  private forgetExpired(now: Micros): void {
    const order = this.decidedOrder
    while (order.length > 0 && order.firstValue()! < now) {
      this.decided.delete(order.firstKey()!)
      order.shift()
    }
    invariant(this.decided.size === order.length, "every decided id is in the order once")
  }

  handleSetLimit(member: Address, limit: number, now: Micros): void {
    setExtraTrafficLimit(this.trafficOf(member, now), limit)
  }
}

/** What the mediator learns of a request's traffic: its total and each envelope's cost and views. */
const trafficSummaryOf = (request: SubmissionRequest, costs: ReadonlyArray<number>, total: number): TrafficSummary => ({
  totalTrafficCost: total,
  envelopes: request.envelopes.map((e, i) => ({ trafficCost: costs[i]!, viewIds: [...e.viewIds] }))
})

/** Whether no recipient is listed twice (a short list: compared pairwise, nothing allocated). */
const distinct = (recipients: ReadonlyArray<Address>): boolean => {
  if (recipients.length > 64) return false
  for (let i = 1; i < recipients.length; i++) for (let j = 0; j < i; j++) if (recipients[i] === recipients[j]) return false
  return true
}

/** Whether two recipients' envelope lists hold the same contents, in the same order. */
const sameContents = (a: ReadonlyArray<EnvelopeContent>, b: ReadonlyArray<EnvelopeContent>): boolean => {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export interface SequencerActor extends Actor {
  readonly logic: SequencerLogic
}

export const makeSequencer = (synchronizer: SynchronizerInfo): Effect.Effect<SequencerActor, never, Network> =>
  Effect.gen(function* () {
    const network = yield* Network
    const logic = new SequencerLogic(synchronizer, new Set([synchronizer.mediator]))
    const actor: SequencerActor = {
      address: synchronizer.sequencer,
      logic,
      receive: receiveOf(network, (message, now) => (message._tag === "SubmissionRequest" ? logic.handle(message as SubmissionRequest, now) : []))
    }
    yield* network.register(actor)
    return actor
  })
