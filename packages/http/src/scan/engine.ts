/**
 * How the scan and registry handlers reach the engine: through the node's NodeRuntime, reading
 * the first super validator's scan and participant. Every scan read is a runtime read: no lock,
 * the engine as the last operation left it, answered once that is committed.
 *
 * The runtime is looked up optionally: a node built without one (the HTTP foundation's own tests,
 * `layerMemory` alone) answers these endpoints 501 instead of failing to start.
 */
import { ScanApi, type SuperValidatorNode } from "@sandnet/engine"
import type { Micros } from "@sandnet/core"
import { Effect, Option } from "effect"
import { NotImplemented } from "../errors.ts"
import { NodeRuntime, type EngineInstance } from "@sandnet/node"

/** What a read needs: the scan's super validator, the engine (registry, dso) and the engine's time. */
export interface ScanView {
  readonly engine: EngineInstance
  readonly sv: SuperValidatorNode
  readonly now: Micros
}

/** The scan's view of an engine: sv1, the engine's time. */
export const scanViewOf = (engine: EngineInstance): ScanView => ({ engine, sv: engine.network.superValidators[0]!, now: engine.clock.now })

/** Runs a read against the node's scan (sv1); 501 when the node has no engine. */
export const withScan = <A, E>(operation: string, read: (view: ScanView) => Effect.Effect<A, E>): Effect.Effect<A, E | NotImplemented> =>
  Effect.flatMap(Effect.serviceOption(NodeRuntime), (runtime): Effect.Effect<A, E | NotImplemented> =>
    Option.match(runtime, {
      onNone: () => Effect.fail(new NotImplemented({ operation: `${operation} (this node runs without an engine)` })),
      onSome: (rt) =>
        rt.read((engine) => Effect.suspend(() => read(scanViewOf(engine))))
    })
  )

/** Render options of the node's scan. */
export const renderOptions = (view: ScanView, encoding: ScanApi.ValueEncoding): ScanApi.RenderOptions => ({
  registry: view.engine.network.registry,
  encoding
})

/** The registry's view of the DSO's contracts (sv1's ACS). */
export const registryContext = (view: ScanView): ScanApi.RegistryContext => ScanApi.registryContextOf(view.engine.network, view.sv, view.now)

/** The DSO's contracts of a template on the scan's node (the upstream reads and the scan proxy). */
export const dsoContracts = (view: ScanView, reference: string): ReadonlyArray<ScanApi.DsoContract> => ScanApi.dsoContractsOf(view.engine.network, view.sv, reference)

/** The DSO's round contracts of a template on the scan's node, lowest round first. */
export const dsoRounds = (view: ScanView, reference: string): ReadonlyArray<ScanApi.DsoContract> => ScanApi.dsoRoundsOf(view.engine.network, view.sv, reference)
