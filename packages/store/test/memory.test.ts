import { Effect } from "effect"
import { EventStore, makeMemoryBacking } from "../src/index.ts"
import { behaviouralSuite } from "./suite.ts"

behaviouralSuite("memory", () => Effect.sync(() => ({ layer: EventStore.memoryWith(makeMemoryBacking()), groupCommit: false })))
