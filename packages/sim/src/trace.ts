/**
 * Traces: the deliveries around a step of a run, readable, and the trace file a failing run leaves
 * behind. A trace file carries everything needed to replay the run exactly (the scenario text, the
 * seed) plus where it failed and what the last deliveries were, so `sandnet simulate --replay
 * trace.json` reruns it to that step and checks that the same failure happens at the same delivery.
 * `--keep-trace` leaves the trace of a run that passed too (no failure, its final history hash), so
 * that any run can be handed on and replayed exactly.
 */
import { Either, ParseResult, Schema } from "effect"
import { SIMULATION_EPOCH, type Micros } from "@sandnet/core"
import type {
  Deliver,
  DeliverError,
  Delivery,
  EnvelopeContent,
  Message,
  ProtocolRequest,
  SubmissionRequest
} from "@sandnet/engine"

/** Keeps the last `capacity` deliveries (references only: formatting happens when asked). */
export class DeliveryRing {
  private readonly ring: Array<Delivery | undefined>
  private count = 0

  constructor(readonly capacity: number) {
    this.ring = new Array<Delivery | undefined>(Math.max(1, capacity)).fill(undefined)
  }

  record(delivery: Delivery, n: number): void {
    this.ring[n % this.ring.length] = delivery
    this.count = n
  }

  /** The recorded deliveries with their numbers, oldest first. */
  entries(): ReadonlyArray<{ readonly n: number; readonly delivery: Delivery }> {
    const out: Array<{ n: number; delivery: Delivery }> = []
    for (let n = Math.max(1, this.count - this.ring.length + 1); n <= this.count; n++) {
      const delivery = this.ring[n % this.ring.length]
      if (delivery !== undefined) out.push({ n, delivery })
    }
    return out
  }
}

/** Simulated time as h:mm:ss.uuuuuu since the simulation's epoch. */
export const formatSimTime = (at: Micros): string => {
  const t = Math.max(0, at - SIMULATION_EPOCH)
  const us = t % 1_000_000
  const s = Math.floor(t / 1_000_000)
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.${String(us).padStart(6, "0")}`
}

/** `PAR::validator3::1220ab...` -> `validator3`. */
export const shortAddress = (address: string): string => {
  const m = /^(?:[A-Z]{3}::)?([^:]+)(?:::.*)?$/.exec(address)
  const name = m?.[1] ?? address
  if (address.startsWith("SEQ::")) return `${name}/sequencer`
  if (address.startsWith("MED::")) return `${name}/mediator`
  return name
}

const shortId = (id: string): string => (id.length > 16 ? `${id.slice(0, 12)}…` : id)

/** Message ids name members and synchronizers in full (`PAR::sv1::1220ab...`): keep their names. */
const shortMessageId = (id: string): string => id.replace(/(?:[A-Z]{3}::)?([a-z0-9-]+)::1220[0-9a-f]{64}/g, "$1")

const describeRequest = (request: ProtocolRequest): string => `${request.kind} ${shortId(request.updateId)} (command ${request.commandId})`

const describeContent = (content: EnvelopeContent): string => {
  switch (content._tag) {
    case "ConfirmationRequest":
      return `ConfirmationRequest ${describeRequest(content.request)} views ${content.viewIds.join(",")}`
    case "MediatorRequest":
      return `MediatorRequest ${describeRequest(content.request)}`
    case "ConfirmationResponse":
      return `ConfirmationResponse request ${content.requestId} ${content.responses.map((r) => `view ${r.viewId} ${r.approve ? "approve" : `reject (${r.reason ?? ""})`}`).join("; ")}`
    case "ConfirmationResult":
      return `ConfirmationResult ${describeRequest(content.request)} ${content.verdict.result.replace("VERDICT_RESULT_", "")}${content.verdict.reason !== undefined ? ` (${content.verdict.reason})` : ""}`
    case "TimeProof":
      return "TimeProof"
    case "SetExtraTrafficLimit":
      return `SetExtraTrafficLimit ${shortAddress(content.member)} ${content.extraTrafficLimit}`
  }
}

/** One line about a message: its tag and what it carries. */
export const describeMessage = (message: Message): string => {
  switch (message._tag) {
    case "Deliver": {
      const d = message as Deliver
      const contents = d.contents.length === 0 ? "receipt" : d.contents.map(describeContent).join(" + ")
      return `Deliver @${formatSimTime(d.timestamp)} from ${shortAddress(d.sender)}${d.messageId !== undefined ? ` [${shortMessageId(d.messageId)}]` : ""}: ${contents}`
    }
    case "DeliverError": {
      const e = message as DeliverError
      return `DeliverError [${shortMessageId(e.messageId)}]: ${e.reason}`
    }
    case "SubmissionRequest": {
      const s = message as SubmissionRequest
      const contents = s.envelopes.length === 0 ? "time proof" : s.envelopes.map((e) => describeContent(e.content)).join(" + ")
      return `SubmissionRequest [${shortMessageId(s.messageId)}]: ${contents}`
    }
    default: {
      const fields = Object.entries(message)
        .filter(([k, v]) => k !== "_tag" && (typeof v === "string" || typeof v === "number" || typeof v === "boolean"))
        .map(([k, v]) => `${k}=${String(v)}`)
      return fields.length === 0 ? message._tag : `${message._tag} ${fields.join(" ")}`
    }
  }
}

export const TraceDelivery = Schema.Struct({
  n: Schema.Number,
  at: Schema.String,
  from: Schema.String,
  to: Schema.String,
  message: Schema.String
})
export type TraceDelivery = typeof TraceDelivery.Type

export const describeDelivery = (n: number, delivery: Delivery): TraceDelivery => ({
  n,
  at: formatSimTime(delivery.at),
  from: shortAddress(delivery.from),
  to: shortAddress(delivery.to),
  message: describeMessage(delivery.message)
})

export const formatTraceDelivery = (d: TraceDelivery, mark = false): string =>
  `${mark ? ">>" : "  "} #${d.n} ${d.at} ${d.from === d.to ? `${d.to} (timer)` : `${d.from} -> ${d.to}`}: ${d.message}`

export const TraceFile = Schema.Struct({
  sandnetTrace: Schema.Literal(1),
  scenario: Schema.Struct({ file: Schema.String, name: Schema.String, text: Schema.String }),
  seed: Schema.Int,
  /** Absent in the trace of a run that passed (`--keep-trace`): its replay must pass again, to `passed`. */
  failure: Schema.optional(Schema.Struct({
    invariant: Schema.String,
    message: Schema.String,
    /** The delivery after which the invariant was first seen broken (numbered from 1). */
    delivery: Schema.Int,
    simulatedTime: Schema.String,
    /** Seen by the checks during the run, or only by those at its end (convergence). */
    phase: Schema.Literal("during", "end"),
    /** The history hash of the network right after that delivery (replays must reach the same). */
    historyHash: Schema.String
  })),
  /** A run that passed: its history hash and length at the end (replays must reach the same). */
  passed: Schema.optional(Schema.Struct({ historyHash: Schema.String, deliveries: Schema.Int })),
  /** Other violations found in the same run (first few). */
  violations: Schema.Array(Schema.String),
  /** The deliveries before the failing one, and it last. */
  deliveries: Schema.Array(TraceDelivery),
  faults: Schema.Array(Schema.String)
})
export type TraceFile = typeof TraceFile.Type

export const encodeTrace = (trace: TraceFile): string => JSON.stringify(Schema.encodeSync(TraceFile)(trace), null, 2) + "\n"

export const decodeTrace = (text: string): Either.Either<TraceFile, string> => {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    return Either.left(`not JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  return Either.mapLeft(Schema.decodeUnknownEither(TraceFile)(raw), (e) => ParseResult.TreeFormatter.formatErrorSync(e))
}
