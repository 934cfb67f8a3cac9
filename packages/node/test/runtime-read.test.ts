/**
 * Reads without the lock (runtime/read.ts): a read waits for the operation running and the commit
 * of what it saw, never for the operations queued behind it, never sees an operation half done,
 * and never answers with a change whose commit failed.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { EventStore, StorageError, type EventStoreService } from "@sandnet/store"
import { Context, Effect, Either, Exit, Layer, Scope } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

/** A store whose writes can be held back and made to fail. */
interface Control {
  hold: Promise<void> | undefined
  fail: boolean
  /** Called when a write reaches the store (which then waits for `hold`, then fails if `fail` was set when it came). */
  onWrite: () => void
}

let scope: Scope.CloseableScope | undefined
afterEach(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  scope = undefined
})

const start = async (): Promise<{ readonly runtime: Node.NodeRuntimeService; readonly control: Control }> => {
  const control: Control = { hold: undefined, fail: false, onWrite: () => {} }
  scope = Effect.runSync(Scope.make())
  const runtime = await Effect.runPromise(
    Effect.gen(function* () {
      const memory = Context.get(yield* Layer.buildWithScope(EventStore.memory, scope!), EventStore)
      const store: EventStoreService = {
        ...memory,
        write: (batch) =>
          Effect.suspend(() => {
            // Whether it fails is decided when the write reaches the store.
            const fail = control.fail
            const hold = control.hold ?? Promise.resolve()
            control.onWrite()
            return Effect.flatMap(
              Effect.promise(() => hold),
              () => (fail ? Effect.fail(new StorageError({ operation: "commit", message: "disk on fire" })) : memory.write(batch))
            )
          })
      }
      const storage = yield* Node.makeNodeStorage(store)
      return yield* Node.makeNodeRuntime({ storage, clock: { _tag: "manual", start: SIMULATION_EPOCH } })
    }).pipe(Scope.extend(scope))
  )
  return { runtime, control }
}

const logic = (engine: Node.EngineInstance) => engine.network.validators[0]!.participant.logic

/** Allocates a party named `hint` on validator1 (a change the runtime journals). */
const allocate = (engine: Node.EngineInstance, hint: string) => Either.getOrThrow(logic(engine).allocateParty(hint, engine.clock.now))

const hosted = (engine: Node.EngineInstance, hint: string): boolean => [...logic(engine).hostedParties()].some((p) => p.startsWith(`${hint}::`))

const opened = () => {
  let open = () => {}
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

/** Lets every fiber that can run do so. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

describe("reads without the lock", () => {
  it("wait for the operation running, not for the operations queued behind it, and never see one half done", async () => {
    const { runtime } = await start()
    const first = opened()
    const second = opened()
    // An operation that crosses an async boundary between two changes, and one queued behind it.
    const running = Effect.runPromise(
      runtime.run((engine) =>
        Effect.gen(function* () {
          allocate(engine, "first-a")
          yield* Effect.promise(() => first.promise)
          allocate(engine, "first-b")
        })
      )
    )
    await settle()
    const answered: Array<string> = []
    const queued = Effect.runPromise(
      runtime.run((engine) =>
        Effect.gen(function* () {
          allocate(engine, "second-a")
          yield* Effect.promise(() => second.promise)
          allocate(engine, "second-b")
        })
      )
    ).then(() => answered.push("queued write"))
    await settle()
    const read = Effect.runPromise(
      runtime.read((engine) => Effect.sync(() => ["first-a", "first-b", "second-a"].filter((hint) => hosted(engine, hint))))
    ).then((seen) => {
      answered.push("read")
      return seen
    })
    await settle()
    expect(answered).toEqual([])
    first.open()
    // The running operation's changes, all of them, and none of the queued one, which is still pending.
    expect(await read).toEqual(["first-a", "first-b"])
    expect(answered).toEqual(["read"])
    second.open()
    await Promise.all([running, queued])
    expect(await Effect.runPromise(runtime.read((engine) => Effect.sync(() => hosted(engine, "second-b"))))).toBe(true)
  })

  it("never answer with a change whose commit failed", async () => {
    const { runtime, control } = await start()
    const held = opened()
    const writing = opened()
    control.hold = held.promise
    control.fail = true
    control.onWrite = writing.open
    const write = Effect.runPromise(Effect.exit(runtime.run((engine) => Effect.sync(() => allocate(engine, "lost")))))
    await writing.promise
    // The engine holds the change; its commit is on its way to the store.
    const read = Effect.runPromise(runtime.read((engine) => Effect.sync(() => hosted(engine, "lost"))))
    await settle()
    control.onWrite = () => {}
    control.hold = undefined
    control.fail = false
    held.open()
    expect(Exit.isFailure(await write)).toBe(true)
    expect(await read).toBe(false)
    // The rebuilt engine takes the allocation again.
    await Effect.runPromise(runtime.run((engine) => Effect.sync(() => allocate(engine, "lost"))))
    expect(await Effect.runPromise(runtime.read((engine) => Effect.sync(() => hosted(engine, "lost"))))).toBe(true)
  })
})

/** `readNow` as a promise: what `answer` got, or "otherwise" (the caller would take `read`). */
const readNow = <A>(runtime: Node.NodeRuntimeService, read: (engine: Node.EngineInstance) => A) =>
  new Promise<{ readonly answered: A } | "otherwise">((resolve) =>
    runtime.readNow(read, (answered) => resolve({ answered }), () => resolve("otherwise"))
  )

describe("reads without a fiber (readNow, runtime/read-now.ts)", () => {
  it("wait for the operation running, run before the one queued behind it, and never see one half done", async () => {
    const { runtime } = await start()
    const first = opened()
    const second = opened()
    const running = Effect.runPromise(
      runtime.run((engine) =>
        Effect.gen(function* () {
          allocate(engine, "first-a")
          yield* Effect.promise(() => first.promise)
          allocate(engine, "first-b")
        })
      )
    )
    await settle()
    const queued = Effect.runPromise(
      runtime.run((engine) =>
        Effect.gen(function* () {
          allocate(engine, "second-a")
          yield* Effect.promise(() => second.promise)
          allocate(engine, "second-b")
        })
      )
    )
    await settle()
    let answered = false
    const read = readNow(runtime, (engine) => ["first-a", "first-b", "second-a"].filter((hint) => hosted(engine, hint))).then((seen) => {
      answered = true
      return seen
    })
    await settle()
    expect(answered).toBe(false)
    first.open()
    expect(await read).toEqual({ answered: ["first-a", "first-b"] })
    second.open()
    await Promise.all([running, queued])
    expect(await readNow(runtime, (engine) => hosted(engine, "second-b"))).toEqual({ answered: true })
  })

  it("leave a change whose commit failed, and a node shutting down, to the Effect path", async () => {
    const { runtime, control } = await start()
    const held = opened()
    const writing = opened()
    control.hold = held.promise
    control.fail = true
    control.onWrite = writing.open
    const write = Effect.runPromise(Effect.exit(runtime.run((engine) => Effect.sync(() => allocate(engine, "lost")))))
    await writing.promise
    // The engine holds the change; its commit is on its way to the store, and will fail.
    const read = readNow(runtime, (engine) => hosted(engine, "lost"))
    await settle()
    control.onWrite = () => {}
    control.hold = undefined
    control.fail = false
    held.open()
    expect(Exit.isFailure(await write)).toBe(true)
    expect(await read).toBe("otherwise")
    // Until an operation heals the engine, every read is the Effect path's.
    expect(await readNow(runtime, (engine) => hosted(engine, "lost"))).toBe("otherwise")
    expect(await Effect.runPromise(runtime.read((engine) => Effect.sync(() => hosted(engine, "lost"))))).toBe(false)
    expect(await readNow(runtime, (engine) => hosted(engine, "lost"))).toEqual({ answered: false })
    await Effect.runPromise(runtime.beginShutdown)
    expect(await readNow(runtime, (engine) => hosted(engine, "lost"))).toBe("otherwise")
  })
})
