/**
 * Live change notices for the pages (`GET /sandnet/events`, server-sent events): every 200 ms the
 * stream looks at what a page would show change (each node's ledger end, the scan's updates and
 * verdicts, the engine instance, which a reset or a restore replaces, the request log) and sends a
 * `change` event when any of it moved, and at least every 5 s a `tick` with the ledger time. Pages
 * refetch what they show on a change: no page reloads, no polling of the surfaces.
 *
 * The counters are read without the engine lock: they are plain numbers that only grow within one
 * engine instance, and a page reads the real state through the surfaces anyway.
 */
import { HttpServerResponse } from "@effect/platform"
import { toIso } from "@sandnet/core"
import { nodesHealth } from "@sandnet/engine"
import { Effect, Option, Schedule, Stream } from "effect"
import { NodeRuntime, type EngineInstance } from "@sandnet/node"
import type { RequestLog } from "./request-log.ts"

export interface LiveState {
  readonly generation: number
  readonly ledger_time: string
  readonly offsets: Readonly<Record<string, number>>
  readonly scan_updates: number
  readonly scan_verdicts: number
  readonly requests: number
}

const POLL = "200 millis"
const TICK_EVERY_MILLIS = 5000

const encoder = new TextEncoder()
const sse = (event: string, data: unknown): Uint8Array => encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)

/** Numbers each engine instance the node runs, so that a page sees a reset or a restore. */
export const makeGenerations = () => {
  const ids = new WeakMap<EngineInstance, number>()
  let next = 0
  return (engine: EngineInstance): number => {
    const known = ids.get(engine)
    if (known !== undefined) return known
    ids.set(engine, ++next)
    return next
  }
}

const stateOf = (engine: EngineInstance, generation: number, now: number, log: RequestLog): LiveState => {
  const network = engine.network
  const offsets: Record<string, number> = {}
  for (const n of nodesHealth(network)) offsets[n.name] = n.ledgerEnd
  const scan = network.superValidators[0]!.scan
  return {
    generation,
    ledger_time: toIso(now),
    offsets,
    scan_updates: scan.updates.length,
    scan_verdicts: scan.verdictLog.length,
    requests: log.last()
  }
}

/** What makes a `change` (everything but the ledger time, which moves on its own). */
const changeKey = (s: LiveState): string => JSON.stringify([s.generation, s.offsets, s.scan_updates, s.scan_verdicts, s.requests])

export const liveEvents = (log: RequestLog, generationOf: (engine: EngineInstance) => number) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.serviceOption(NodeRuntime)
    if (Option.isNone(runtime)) return HttpServerResponse.unsafeJson({ error: "this node runs without an engine: no live events" }, { status: 501 })
    const rt = runtime.value
    let lastKey = ""
    let lastSent = 0
    const poll = Effect.gen(function* () {
      const engine = yield* rt.engine
      const state = stateOf(engine, generationOf(engine), yield* rt.now, log)
      const key = changeKey(state)
      const wallMillis = Date.now()
      if (key !== lastKey) {
        lastKey = key
        lastSent = wallMillis
        return Option.some(sse("change", state))
      }
      if (wallMillis - lastSent >= TICK_EVERY_MILLIS) {
        lastSent = wallMillis
        return Option.some(sse("tick", state))
      }
      return Option.none<Uint8Array>()
    })
    const body = Stream.concat(
      // tell the browser to reconnect quickly after a restart of the node
      Stream.make(encoder.encode("retry: 1000\n\n")),
      Stream.repeatEffectWithSchedule(poll, Schedule.spaced(POLL)).pipe(Stream.filterMap((x) => x))
    )
    return HttpServerResponse.stream(body, {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
    })
  })
