/**
 * Pure helpers shared by every lifecycle machine. Machines are stepped only through their own pure
 * `getInitialSnapshot` / `transition` (what xstate's `initialTransition` / `transition` call; never a
 * started actor), so a snapshot is a plain value that the engine can store in its log, restore after
 * a restart and replay deterministically.
 */
import { InvariantViolation, invariant } from "@sandnet/core"
import { Either, ParseResult, Schema } from "effect"
import {
  createActor,
  getNextTransitions,
  type AnyActorScope,
  type AnyStateMachine,
  type ContextFrom,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom
} from "xstate"

/** The state name of a snapshot. Every lifecycle machine is flat, so the value is one string. */
export type StateOf<M extends AnyStateMachine> = Extract<SnapshotFrom<M>["value"], string>

/**
 * Why an event did not change the lifecycle. The HTTP layer maps it: notAllowedInState is a
 * conflict with the contract's current state (409; accept on an offer already accepted, or any
 * event on a closed one); conditionFailed names the guards that said no, so the caller can pick
 * 409 for time rules (beforeExpiry: offer expired; atOrAfterExpiry: not expired yet) or 400 for a
 * request that can never fit. Submissions with a tracking id use `submissionDecision` instead.
 */
export type Refusal =
  /** The current state has no transition for this event at all (accept an already accepted offer). */
  | {
      readonly kind: "notAllowedInState"
      readonly state: string
      readonly event: string
    }
  /** The state handles the event, but every guard said no (accept at or after expiresAt). */
  | {
      readonly kind: "conditionFailed"
      readonly state: string
      readonly event: string
      readonly guards: ReadonlyArray<string>
    }

export type StepResult<M extends AnyStateMachine> =
  | { readonly accepted: true; readonly snapshot: SnapshotFrom<M> }
  | { readonly accepted: false; readonly snapshot: SnapshotFrom<M>; readonly refusal: Refusal }

/** A snapshot as it is written to the store: plain JSON, tagged with the machine and its version. */
export interface PersistedLifecycle<M extends AnyStateMachine = AnyStateMachine> {
  readonly machine: string
  readonly version: string
  readonly state: StateOf<M>
  readonly context: ContextFrom<M>
}

/**
 * Inside generic code `SnapshotFrom<M>` is an unresolved conditional type, so its members cannot be
 * read directly; this names the few members of a machine snapshot the helpers use.
 */
interface SnapshotView<M extends AnyStateMachine> {
  readonly value: unknown
  readonly status: "active" | "done" | "error" | "stopped"
  readonly context: ContextFrom<M>
  readonly error: unknown
  can(event: EventFromLogic<M>): boolean
}

const view = <M extends AnyStateMachine>(snapshot: SnapshotFrom<M>): SnapshotView<M> =>
  snapshot as unknown as SnapshotView<M>

/**
 * What a machine's context factory answers when it is called without input. The actor behind a
 * machine's step scope (stepScopeOf) computes the machine's initial state without input when it is
 * made; a factory that read its input there threw a TypeError that xstate caught and dropped. The
 * placeholder never reaches a snapshot anyone keeps: `start` always passes input, and `step` uses
 * only the snapshot it is given. One shared frozen object.
 */
export const inertContext = <C>(): C => INERT_CONTEXT as C

const INERT_CONTEXT: object = Object.freeze({})

/** A machine's inert actor scope, and the actions its last step left (the machines leave none). */
interface StepScope {
  readonly scope: AnyActorScope
  readonly actions: Array<unknown>
}

const stepScopes = new WeakMap<AnyStateMachine, StepScope>()

/**
 * One inert scope per machine, what xstate's pure `initialTransition` / `transition` build anew for
 * every call (an actor made, its initial state computed, an actor system: under load about 3% of a
 * node's CPU). The actor is never started and nothing is ever sent to it; the machines are flat
 * with `assign` as their only action, which reads neither `self` nor the system, so sharing the
 * scope between steps changes no snapshot.
 */
const stepScopeOf = (machine: AnyStateMachine): StepScope => {
  const found = stepScopes.get(machine)
  if (found !== undefined) return found
  const self = createActor(machine)
  const actions: Array<unknown> = []
  const nothing = () => {}
  const scope: AnyActorScope = {
    self,
    id: "",
    sessionId: "",
    logger: nothing,
    defer: nothing,
    emit: nothing,
    system: self.system,
    stopChild: nothing,
    actionExecutor: (action) => void actions.push(action)
  }
  const made = { scope, actions }
  stepScopes.set(machine, made)
  return made
}

/**
 * The initial snapshot for `input`. A context factory that throws (a broken invariant on the
 * input) rethrows here: xstate would otherwise hand back a snapshot in status "error".
 */
export const start = <M extends AnyStateMachine>(machine: M, input: InputFrom<M>): SnapshotFrom<M> => {
  const { scope, actions } = stepScopeOf(machine)
  actions.length = 0
  return settled(machine.getInitialSnapshot(scope, input) as SnapshotFrom<M>)
}

const settled = <M extends AnyStateMachine>(snapshot: SnapshotFrom<M>): SnapshotFrom<M> => {
  const { status, error } = view<M>(snapshot)
  if (status === "error") throw error
  return snapshot
}

/**
 * Applies one event. The event is accepted when the machine took a transition (a new snapshot,
 * possibly in the same state with an updated context); otherwise the very same snapshot comes back
 * with the refusal, because xstate itself silently ignores events a state does not take.
 */
export const step = <M extends AnyStateMachine>(
  machine: M,
  snapshot: SnapshotFrom<M>,
  event: EventFromLogic<M>
): StepResult<M> => {
  const refusal = refusalOf<M>(snapshot, event)
  if (refusal !== undefined) return { accepted: false, snapshot, refusal }
  const state = stateOf<M>(snapshot)
  const { scope, actions } = stepScopeOf(machine)
  actions.length = 0
  const stepped = machine.transition(snapshot, event, scope)
  // The machines have no actions other than `assign`, which the transition applies itself.
  invariant(actions.length === 0, () => `${machine.id}: ${event.type} in ${state} left actions to execute`)
  const next = settled<M>(stepped as SnapshotFrom<M>)
  invariant(next !== snapshot, () => `${machine.id}: ${event.type} in ${state} was enabled but changed nothing`)
  return { accepted: true, snapshot: next }
}

/**
 * Why the machine would refuse `event` now, or undefined when it would take it: asks the
 * lifecycle whether a step is still possible without taking it (guards included).
 */
export const refusalOf = <M extends AnyStateMachine>(snapshot: SnapshotFrom<M>, event: EventFromLogic<M>): Refusal | undefined => {
  const state = stateOf<M>(snapshot)
  // A final state never moves; xstate would simply ignore the event, which callers must not do.
  if (view<M>(snapshot).status !== "active") return { kind: "notAllowedInState", state, event: event.type }
  if (view<M>(snapshot).can(event)) return undefined
  const candidates = getNextTransitions(snapshot).filter((t) => t.eventType === event.type)
  if (candidates.length === 0) return { kind: "notAllowedInState", state, event: event.type }
  return { kind: "conditionFailed", state, event: event.type, guards: candidates.map((t) => guardName(t.guard)) }
}

/** Applies events in order, keeping refused ones out of the state; used to replay a stored log. */
export const replay = <M extends AnyStateMachine>(
  machine: M,
  snapshot: SnapshotFrom<M>,
  events: Iterable<EventFromLogic<M>>
): { readonly snapshot: SnapshotFrom<M>; readonly refusals: ReadonlyArray<Refusal> } => {
  let current = snapshot
  const refusals: Array<Refusal> = []
  for (const event of events) {
    const result = step(machine, current, event)
    current = result.snapshot
    if (!result.accepted) refusals.push(result.refusal)
  }
  return { snapshot: current, refusals }
}

/** Whether `event` would be accepted now (guards included), without stepping. */
export const accepts = <M extends AnyStateMachine>(snapshot: SnapshotFrom<M>, event: EventFromLogic<M>): boolean =>
  view<M>(snapshot).status === "active" && view<M>(snapshot).can(event)

export const stateOf = <M extends AnyStateMachine>(snapshot: SnapshotFrom<M>): StateOf<M> => {
  const value = view<M>(snapshot).value
  invariant(typeof value === "string", () => `lifecycle machines are flat, got state ${JSON.stringify(value)}`)
  return value as StateOf<M>
}

export const contextOf = <M extends AnyStateMachine>(snapshot: SnapshotFrom<M>): ContextFrom<M> =>
  view<M>(snapshot).context

/** A final state (completed, expired, deleted, ...) accepts no further event. */
export const isFinal = <M extends AnyStateMachine>(snapshot: SnapshotFrom<M>): boolean => view<M>(snapshot).status === "done"

/** The machine's top-level state names, in declaration order. */
export const stateNames = (machine: AnyStateMachine): ReadonlyArray<string> => Object.keys(machine.root.states)

/** The names of the machine's final states, in declaration order. */
export const finalStateNames = (machine: AnyStateMachine): ReadonlyArray<string> =>
  Object.entries(machine.root.states)
    .filter(([, node]) => node.type === "final")
    .map(([name]) => name)

/**
 * A JSON-safe copy of the snapshot. We keep only what a flat, actor-less machine needs (state and
 * context): xstate's own `getPersistedSnapshot` also carries children and history that these
 * machines never have, and restoring it needs a live actor scope.
 */
export const persist = <M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>): PersistedLifecycle<M> => {
  const context = view<M>(snapshot).context
  assertJson(context, `${machine.id}.context`)
  return { machine: machine.id, version: versionOf(machine), state: stateOf<M>(snapshot), context }
}

/**
 * Rebuilds a snapshot from `persist`'s output (after a JSON round trip). The envelope is checked,
 * and the context is decoded with the machine's context Schema (`setup({ schemas: { context } })`)
 * when it has one. A stored snapshot that does not fit is a defect in what Sandnet wrote, so it
 * throws an InvariantViolation.
 */
export const restore = <M extends AnyStateMachine>(machine: M, persisted: unknown): SnapshotFrom<M> => {
  invariant(isRecord(persisted), () => `${machine.id}: persisted snapshot is not an object`)
  const { machine: id, version, state, context } = persisted
  invariant(id === machine.id, () => `persisted snapshot of ${String(id)} restored into ${machine.id}`)
  invariant(
    version === versionOf(machine),
    () => `${machine.id}: persisted version ${String(version)}, machine version ${versionOf(machine)}`
  )
  invariant(
    typeof state === "string" && stateNames(machine).includes(state),
    () => `${machine.id}: unknown state ${JSON.stringify(state)}`
  )
  invariant(isRecord(context), () => `${machine.id}: persisted context is not an object`)
  const decoded = decodeContext(machine, context)
  // resolveState is xstate's pure way to build a snapshot from a state value and a context; it
  // marks final states as done, so restored final snapshots stay final.
  return machine.resolveState({ value: state, context: decoded }) as SnapshotFrom<M>
}

const versionOf = (machine: AnyStateMachine): string => machine.version ?? "1"

const decodeContext = (machine: AnyStateMachine, context: Record<string, unknown>): unknown => {
  const schema = contextSchemaOf(machine)
  if (schema === undefined) return context
  const decoded = Schema.decodeUnknownEither(schema)(context)
  if (Either.isLeft(decoded)) {
    throw new InvariantViolation(
      `${machine.id}: persisted context does not decode: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
    )
  }
  return decoded.right
}

const contextSchemaOf = (machine: AnyStateMachine): Schema.Schema<unknown> | undefined => {
  const schemas: unknown = machine.schemas
  if (!isRecord(schemas)) return undefined
  const context = schemas["context"]
  if (!Schema.isSchema(context)) return undefined
  // Context schemas are plain data (no services), so the requirement channel is empty.
  return context as Schema.Schema<unknown>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Contexts must survive JSON.stringify unchanged: no undefined, NaN, bigint, Date or class. */
const assertJson = (value: unknown, path: string): void => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return
  if (typeof value === "number") {
    invariant(Number.isFinite(value), () => `${path} is not a finite number`)
    return
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJson(item, `${path}[${i}]`))
    return
  }
  invariant(
    typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype,
    () => `${path} is not JSON-safe (${typeof value})`
  )
  for (const [key, item] of Object.entries(value)) assertJson(item, `${path}.${key}`)
}

const guardName = (guard: unknown): string => {
  if (typeof guard === "string") return guard
  if (isRecord(guard) && typeof guard["type"] === "string") return guard["type"]
  return "inline"
}
