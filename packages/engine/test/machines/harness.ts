/**
 * Checks shared by every machine's tests: JSON round trips and the random-walk property (states
 * stay declared, final stays final, refusals change nothing, a restored snapshot behaves the same).
 */
import { expect } from "@effect/vitest"
import type { AnyStateMachine, EventFromLogic, InputFrom, SnapshotFrom } from "xstate"
import { contextOf, isFinal, persist, restore, start, stateOf, step, type StepResult } from "../../src/machines/index.ts"

/** persist -> JSON text -> parse -> restore, as the store does. */
export const roundTrip = <M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>): SnapshotFrom<M> =>
  restore(machine, JSON.parse(JSON.stringify(persist(machine, snapshot))))

/** Steps through `events`, insisting that each one is accepted; returns the last snapshot. */
export const walk = <M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
  events: ReadonlyArray<EventFromLogic<M>>
): SnapshotFrom<M> => {
  let snapshot = start(machine, input)
  for (const event of events) {
    const result = step(machine, snapshot, event)
    expect(result.accepted, `${event.type} in ${stateOf(snapshot)}`).toBe(true)
    snapshot = result.snapshot
  }
  return snapshot
}

/** The observable outcome of a step, for comparing a snapshot with its restored copy. */
const outcome = <M extends AnyStateMachine>(result: StepResult<M>) => ({
  accepted: result.accepted,
  state: stateOf<M>(result.snapshot),
  context: contextOf<M>(result.snapshot),
  refusal: result.accepted ? undefined : result.refusal
})

/** Asserts that a restored snapshot has the same state, context, finality and reactions. */
export const expectSameBehaviour = <M extends AnyStateMachine>(
  machine: M,
  original: SnapshotFrom<M>,
  restored: SnapshotFrom<M>,
  probes: ReadonlyArray<EventFromLogic<M>>
): void => {
  expect(stateOf<M>(restored)).toBe(stateOf<M>(original))
  expect(contextOf<M>(restored)).toEqual(contextOf<M>(original))
  expect(isFinal<M>(restored)).toBe(isFinal<M>(original))
  for (const probe of probes) {
    expect(outcome(step(machine, restored, probe))).toEqual(outcome(step(machine, original, probe)))
  }
}

/**
 * One random walk: every event either moves the machine (to a declared state) or is refused and
 * leaves the very same snapshot; a final state refuses everything; at every point the JSON round
 * trip gives a snapshot that reacts to the next event exactly as the original does.
 */
export const checkRandomWalk = <M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
  events: ReadonlyArray<EventFromLogic<M>>,
  declared: ReadonlyArray<string>
): void => {
  let snapshot = start(machine, input)
  expect(declared).toContain(stateOf<M>(snapshot))
  for (const event of events) {
    const restored = roundTrip(machine, snapshot)
    const result = step(machine, snapshot, event)
    expect(outcome(step(machine, restored, event))).toEqual(outcome(result))
    if (isFinal<M>(snapshot)) {
      expect(result.accepted).toBe(false)
    }
    if (result.accepted) {
      expect(result.snapshot).not.toBe(snapshot)
    } else {
      expect(result.snapshot).toBe(snapshot)
    }
    snapshot = result.snapshot
    expect(declared).toContain(stateOf<M>(snapshot))
  }
}

/** How a test reaches a state from the start, and which event types that state takes. */
export type StatePaths<M extends AnyStateMachine> = Readonly<
  Record<string, { readonly events: ReadonlyArray<EventFromLogic<M>>; readonly allowed: ReadonlyArray<string> }>
>

/** Every listed path is accepted event by event and ends in its state; final iff it takes nothing. */
export const checkPaths = <M extends AnyStateMachine>(machine: M, input: InputFrom<M>, paths: StatePaths<M>): void => {
  for (const [state, { events, allowed }] of Object.entries(paths)) {
    const snapshot = walk(machine, input, events)
    expect(stateOf<M>(snapshot)).toBe(state)
    expect(isFinal<M>(snapshot), `${state} final`).toBe(allowed.length === 0)
  }
}

/** In every state, each probe whose type the state does not take is refused as notAllowedInState. */
export const checkRefusals = <M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
  paths: StatePaths<M>,
  probes: ReadonlyArray<EventFromLogic<M>>
): void => {
  for (const [state, { events, allowed }] of Object.entries(paths)) {
    const snapshot = walk(machine, input, events)
    for (const probe of probes.filter((p) => !allowed.includes(p.type))) {
      const result = step(machine, snapshot, probe)
      expect(result.accepted, `${probe.type} in ${state}`).toBe(false)
      expect(result.snapshot).toBe(snapshot)
      if (!result.accepted) expect(result.refusal).toEqual({ kind: "notAllowedInState", state, event: probe.type })
    }
  }
}

/** Every state's snapshot survives persist -> JSON -> restore and then reacts like the original. */
export const checkRoundTrips = <M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
  paths: StatePaths<M>,
  probes: ReadonlyArray<EventFromLogic<M>>
): void => {
  for (const { events } of Object.values(paths)) {
    const snapshot = walk(machine, input, events)
    expectSameBehaviour(machine, snapshot, roundTrip(machine, snapshot), probes)
  }
}
