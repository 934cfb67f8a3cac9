/**
 * The network between actors. Actors never call each other: they send messages through this
 * service, which a driver delivers. Two drivers exist: the simulation runner (virtual time, a
 * link model with seeded delays and faults) and the HTTP node (live time, zero delay). Both use
 * the same deterministic event queue below, so the same inputs give the same delivery order.
 */
import { Clock as ClockService, type Clock, Context, Effect } from "effect"
import { invariant, micros, type Micros } from "@sandnet/core"

export type Address = string

export interface Message {
  readonly _tag: string
}

/** An actor: one mailbox (its queue of deliveries) and one private state behind `receive`. */
export interface Actor<M extends Message = Message> {
  readonly address: Address
  readonly receive: (message: M, from: Address) => Effect.Effect<void>
}

/**
 * `receive` as a plain function, for the drivers' delivery loops (a fiber step per delivery cost
 * more than most handlers): handles the message as `receive` would with its clock reading `now`,
 * sends through the actor's own network, and returns the rest of the work as an effect, or
 * undefined when there is none (the usual case).
 */
export type ReceiveNow = (message: Message, from: Address, now: Micros) => Effect.Effect<void> | undefined

const receiveNowKey: unique symbol = Symbol("sandnet/receiveNow")

/** A `receive` that carries its plain-function form. */
type PairedReceive = Actor["receive"] & { readonly [receiveNowKey]?: ReceiveNow }

/**
 * Pairs a `receive` with its plain-function form. The form is kept on the function itself (a
 * property read is cheaper per delivery than a map lookup), so an actor whose `receive` was
 * replaced since (tests wrap them) is delivered to through the new one.
 */
export const withReceiveNow = <R extends Actor["receive"]>(receive: R, receiveNow: ReceiveNow): R =>
  Object.assign(receive, { [receiveNowKey]: receiveNow })

/**
 * What an actor's pure handler leaves to its shell besides the outbox: an effect to run once the
 * outbox is sent (e.g. resolving the waiters of completed commands), or undefined when none.
 */
export interface Reaction {
  readonly outgoing: ReadonlyArray<Outgoing>
  readonly then: Effect.Effect<void> | undefined
}

/**
 * An actor's `receive` from its pure handler (the outbox to send, or a Reaction), paired with its
 * plain-function form when the network is the event queue (see ReceiveNow).
 */
export const receiveOf = (
  network: NetworkService,
  handle: (message: Message, now: Micros) => ReadonlyArray<Outgoing> | Reaction
): Actor["receive"] => {
  const receive = (message: Message) =>
    Effect.flatMap(ClockService.currentTimeNanos, (nanos) => {
      const handled = handle(message, micros.fromNanos(nanos))
      if (isOutbox(handled)) return network.sendAll(handled)
      const send = network.sendAll(handled.outgoing)
      return handled.then === undefined ? send : Effect.zipRight(send, handled.then)
    })
  if (!(network instanceof EventQueueNetwork)) return receive
  return withReceiveNow(receive, (message, _from, now) => {
    const handled = handle(message, now)
    if (isOutbox(handled)) {
      network.sendAllNow(handled)
      return undefined
    }
    network.sendAllNow(handled.outgoing)
    return handled.then
  })
}

const isOutbox = (handled: ReadonlyArray<Outgoing> | Reaction): handled is ReadonlyArray<Outgoing> => Array.isArray(handled)

export interface SendOptions {
  /**
   * Ordered links keep FIFO order and are never dropped by faults other than a crash of the
   * receiver (a sequencer's delivery subscription is ordered and gap-free in the real system).
   */
  readonly ordered?: boolean
}

/** What a handler wants sent once it has updated its state. */
export type Outgoing =
  | { readonly _tag: "Send"; readonly from: Address; readonly to: Address; readonly message: Message; readonly ordered: boolean }
  | { readonly _tag: "Timer"; readonly to: Address; readonly message: Message; readonly at: Micros }

export const Outgoing = {
  send: (from: Address, to: Address, message: Message, ordered = false): Outgoing => ({ _tag: "Send", from, to, message, ordered }),
  timer: (to: Address, message: Message, at: Micros): Outgoing => ({ _tag: "Timer", to, message, at })
}

export interface NetworkService {
  readonly register: (actor: Actor) => Effect.Effect<void>
  /** Sends a handler's outbox, in order. */
  readonly sendAll: (outbox: ReadonlyArray<Outgoing>) => Effect.Effect<void>
  readonly send: (from: Address, to: Address, message: Message, options?: SendOptions) => Effect.Effect<void>
  /** A timer for the actor itself: delivered at `at` (never dropped). */
  readonly schedule: (to: Address, message: Message, at: Micros) => Effect.Effect<void>
}

export class Network extends Context.Tag("@sandnet/engine/Network")<Network, NetworkService>() {}

/** One pending delivery. `seq` breaks ties between equal times: FIFO in the order of sending. */
export interface Delivery {
  readonly at: Micros
  readonly seq: number
  readonly from: Address
  readonly to: Address
  readonly message: Message
}

/**
 * Decides what a link does with a message: the times at which it is delivered (an empty list
 * drops it, two entries duplicate it). The engine's default is the zero-delay link of the HTTP node.
 */
/**
 * A clock that tells its time in microseconds as it keeps it (the drivers' clocks, driver.ts): the
 * queue reads the time of every delivery, and through `unsafeCurrentTimeNanos` that was three
 * BigInts per delivery (the simulation run loop's own allocations in the shortened large scenario:
 * 345 MiB with them, 160 MiB without).
 */
export interface MicrosClock extends Clock.Clock {
  readonly unsafeCurrentTimeMicros: () => Micros
}

const isMicrosClock = (clock: Clock.Clock): clock is MicrosClock => typeof (clock as Partial<MicrosClock>).unsafeCurrentTimeMicros === "function"

export interface LinkModel {
  readonly route: (from: Address, to: Address, message: Message, now: Micros, ordered: boolean) => ReadonlyArray<Micros>
}

export const zeroDelayLink: LinkModel = { route: (_from, _to, _message, now) => [now] }

/**
 * Where messages to actors of other processes go when a network is spread over processes: every
 * actor is registered in every process (built from the same configuration), but only the local
 * ones receive deliveries here; a message to any other address is handed to `send`, which carries
 * it to the process that owns the address. Timers are always local.
 */
export interface RemoteRoute {
  readonly isLocal: (address: Address) => boolean
  readonly send: (from: Address, to: Address, message: Message, ordered: boolean) => void
}

/**
 * Binary min-heap of deliveries ordered by (at, seq). The keys are kept beside the deliveries in
 * arrays of numbers, so that sifting compares contiguous doubles instead of reading each delivery
 * object (in the large scenario the pop was a tenth of the run's CPU: reading a delivery object per
 * comparison and the swaps' temporary arrays). Sifts move a hole instead of swapping. (at, seq) is a
 * total order (seq is unique), so the order of deliveries is the same as any other heap's.
 */
export class DeliveryQueue {
  private readonly items: Array<Delivery> = []
  private readonly ats: Array<number> = []
  private readonly seqs: Array<number> = []

  get size(): number {
    return this.items.length
  }

  peek(): Delivery | undefined {
    return this.items[0]
  }

  push(delivery: Delivery): void {
    const { items, ats, seqs } = this
    const at = delivery.at
    const seq = delivery.seq
    let i = items.length
    items.push(delivery)
    ats.push(at)
    seqs.push(seq)
    while (i > 0) {
      const parent = (i - 1) >> 1
      const parentAt = ats[parent]!
      if (parentAt < at || (parentAt === at && seqs[parent]! < seq)) break
      items[i] = items[parent]!
      ats[i] = parentAt
      seqs[i] = seqs[parent]!
      i = parent
    }
    items[i] = delivery
    ats[i] = at
    seqs[i] = seq
  }

  pop(): Delivery | undefined {
    const { items, ats, seqs } = this
    const top = items[0]
    if (top === undefined) return undefined
    const last = items.pop()!
    const lastAt = ats.pop()!
    const lastSeq = seqs.pop()!
    const size = items.length
    if (size === 0) return top
    let i = 0
    for (;;) {
      let child = 2 * i + 1
      if (child >= size) break
      const right = child + 1
      if (right < size && (ats[right]! < ats[child]! || (ats[right] === ats[child] && seqs[right]! < seqs[child]!))) child = right
      const childAt = ats[child]!
      if (lastAt < childAt || (lastAt === childAt && lastSeq < seqs[child]!)) break
      items[i] = items[child]!
      ats[i] = childAt
      seqs[i] = seqs[child]!
      i = child
    }
    items[i] = last
    ats[i] = lastAt
    seqs[i] = lastSeq
    return top
  }

  /** Removes every delivery matching the predicate (used when a node crashes). */
  removeWhere(predicate: (delivery: Delivery) => boolean): ReadonlyArray<Delivery> {
    const removed = this.items.filter(predicate)
    if (removed.length === 0) return removed
    const kept = this.items.filter((d) => !predicate(d))
    this.items.length = 0
    this.ats.length = 0
    this.seqs.length = 0
    for (const d of kept) this.push(d)
    return removed
  }
}

/**
 * The event-queue network shared by both drivers. `now` is read from the driver through a
 * function (the virtual time of the simulation, or the live clock of the node), and the driver
 * pulls deliveries with `next`.
 */
export class EventQueueNetwork implements NetworkService {
  readonly queue = new DeliveryQueue()
  private readonly actors = new Map<Address, Actor>()
  /** Last delivery time per ordered link, by sender then receiver. */
  private readonly lastOrderedDelivery = new Map<Address, Map<Address, Micros>>()
  private sequence = 0
  /** Each actor's clock offset from the driver's (a skewed clock, see driver.ts): none unless set. */
  private timeOffsetOf: ((address: Address) => Micros) | undefined = undefined
  private remote: RemoteRoute | undefined = undefined
  private transform: ((message: Message) => Message) | undefined = undefined

  constructor(
    private readonly now: () => Micros,
    private link: LinkModel = zeroDelayLink
  ) {}

  setLinkModel(link: LinkModel): void {
    this.link = link
  }

  /** Routes messages to actors of other processes through `remote` (see RemoteRoute). */
  setRemoteRoute(remote: RemoteRoute | undefined): void {
    this.remote = remote
  }

  /**
   * Passes every sent message through `transform` (the simulation checks the wire form this way:
   * a run whose messages all go through `toWire`/`fromWire` must have the same history).
   */
  setMessageTransform(transform: ((message: Message) => Message) | undefined): void {
    this.transform = transform
  }

  /** Whether deliveries to `address` happen in this process. */
  isLocal(address: Address): boolean {
    return this.remote === undefined || this.remote.isLocal(address)
  }

  /**
   * A message that arrived from another process: queued for its local actor now, after what is
   * already due (FIFO per sender is the transport's order).
   */
  receiveRemote(from: Address, to: Address, message: Message): void {
    invariant(this.isLocal(to), () => `a message for ${to} arrived at a process that does not own it`)
    this.queue.push({ at: this.now(), seq: this.sequence++, from, to, message })
  }

  /**
   * Declares actors whose clocks run ahead (or behind) the driver's by an offset (the driver gives
   * them a SkewedClock). Their timers are set in their own time, so they are queued at the driver's
   * time when the actor's clock reaches them: without this, an actor behind by more than a timer's
   * delay gets the timer at once, again and again, and virtual time never moves.
   */
  setTimeOffsets(offsetOf: (address: Address) => Micros): void {
    this.timeOffsetOf = offsetOf
  }

  private timerAt(to: Address, at: Micros): Micros {
    return Math.max(this.timeOffsetOf === undefined ? at : at - this.timeOffsetOf(to), this.now())
  }

  actor(address: Address): Actor | undefined {
    return this.actors.get(address)
  }

  addresses(): ReadonlyArray<Address> {
    return [...this.actors.keys()]
  }

  readonly register = (actor: Actor): Effect.Effect<void> =>
    Effect.sync(() => {
      this.actors.set(actor.address, actor)
    })

  /** Replaces an actor (a restarted node), keeping its address and pending deliveries. */
  replace(actor: Actor): void {
    invariant(this.actors.has(actor.address), () => `no actor at ${actor.address} to replace`)
    this.actors.set(actor.address, actor)
  }

  readonly send = (from: Address, to: Address, message: Message, options?: SendOptions): Effect.Effect<void> =>
    Effect.sync(() => this.sendNow(from, to, message, options?.ordered === true))

  sendNow(from: Address, to: Address, sent: Message, ordered: boolean): void {
    const message = this.transform === undefined ? sent : this.transform(sent)
    if (this.remote !== undefined && !this.remote.isLocal(to)) {
      this.remote.send(from, to, message, ordered)
      return
    }
    const now = this.now()
    const times = this.link.route(from, to, message, now, ordered)
    for (const time of times) {
      let at = Math.max(time, now)
      if (ordered) {
        let links = this.lastOrderedDelivery.get(from)
        if (links === undefined) this.lastOrderedDelivery.set(from, (links = new Map()))
        at = Math.max(at, links.get(to) ?? at)
        links.set(to, at)
      }
      this.queue.push({ at, seq: this.sequence++, from, to, message })
    }
  }

  readonly sendAll = (outbox: ReadonlyArray<Outgoing>): Effect.Effect<void> =>
    outbox.length === 0 ? Effect.void : Effect.sync(() => this.sendAllNow(outbox))

  /** `sendAll` done at once (for actors' ReceiveNow). */
  sendAllNow(outbox: ReadonlyArray<Outgoing>): void {
    for (const out of outbox) {
      if (out._tag === "Send") this.sendNow(out.from, out.to, out.message, out.ordered)
      else this.queue.push({ at: this.timerAt(out.to, out.at), seq: this.sequence++, from: out.to, to: out.to, message: out.message })
    }
  }

  readonly schedule = (to: Address, message: Message, at: Micros): Effect.Effect<void> =>
    Effect.sync(() => {
      this.queue.push({ at: this.timerAt(to, at), seq: this.sequence++, from: to, to, message })
    })

  /** The next delivery due at or before `until`, removed from the queue. */
  next(until: Micros): Delivery | undefined {
    const head = this.queue.peek()
    if (head === undefined || head.at > until) return undefined
    return this.queue.pop()
  }

  nextTime(): Micros | undefined {
    return this.queue.peek()?.at
  }

  /** Delivers one message to its actor (a message to an unknown address is dropped). */
  deliver(delivery: Delivery): Effect.Effect<void> {
    const actor = this.actors.get(delivery.to)
    if (actor === undefined) return Effect.void
    return actor.receive(delivery.message, delivery.from)
  }

  /**
   * Delivers one message at once where its actor can take it so (see ReceiveNow), at the time
   * `clock` reads (the clock its `receive` would run on): returns undefined when the delivery is
   * done, or the effect that does the rest (all of it, through `receive`, for an actor without
   * a ReceiveNow).
   */
  deliverNow(delivery: Delivery, clock: Clock.Clock): Effect.Effect<void> | undefined {
    const actor = this.actors.get(delivery.to)
    if (actor === undefined) return undefined
    const receiveNow = (actor.receive as PairedReceive)[receiveNowKey]
    if (receiveNow === undefined) return actor.receive(delivery.message, delivery.from)
    // Exactly the time `receive` reads (Clock.currentTimeNanos, in microseconds).
    return receiveNow(delivery.message, delivery.from, isMicrosClock(clock) ? clock.unsafeCurrentTimeMicros() : micros.fromNanos(clock.unsafeCurrentTimeNanos()))
  }
}
