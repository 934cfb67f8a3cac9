import { afterAll } from "@effect/vitest"
import { Effect } from "effect"
import { EventStore } from "../src/index.ts"
import { behaviouralSuite } from "./suite.ts"
import { dropTestSchemas, postgresUrl, testSchema } from "./postgres.ts"

afterAll(() => Effect.runPromise(dropTestSchemas))

behaviouralSuite("postgres", () =>
  Effect.sync(() => ({ layer: EventStore.postgres({ url: postgresUrl, schema: testSchema() }), groupCommit: true })))
