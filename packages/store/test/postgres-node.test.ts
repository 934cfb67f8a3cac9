/** What is specific to a shared PostgreSQL server: one schema per node, a second writer on one schema. */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect, Either, Redacted } from "effect"
import { EventStore, MIGRATIONS_TABLE } from "../src/index.ts"
import { dropTestSchemas, postgresUrl, testSchema } from "./postgres.ts"

afterAll(() => Effect.runPromise(dropTestSchemas))

const entry = (stream: string, seq: number) => ({ stream, seq, kind: "k", body: { stream, seq } })
const admin = PgClient.layer({ url: Redacted.make(postgresUrl), maxConnections: 1 })

describe("PostgreSQL server shared by nodes", () => {
  it.live("gives every node its own schema, with its tables and migration history", () =>
    Effect.gen(function*() {
      const [one, two] = [testSchema(), testSchema()]
      yield* Effect.flatMap(EventStore, (store) => store.append([entry("a", 1), entry("a", 2)])).pipe(
        Effect.provide(EventStore.postgres({ url: postgresUrl, schema: one }))
      )
      yield* Effect.flatMap(EventStore, (store) =>
        Effect.gen(function*() {
          expect(yield* store.streams()).toEqual([])
          yield* store.append([entry("a", 1)])
        })).pipe(Effect.provide(EventStore.postgres({ url: postgresUrl, schema: two })))

      const tables = yield* Effect.gen(function*() {
        const sql = yield* SqlClient
        return yield* sql<{ schema: string; name: string }>`
          SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
          WHERE table_schema IN (${one}, ${two}) ORDER BY 1, 2`
      }).pipe(Effect.provide(admin))
      const expected = ["events", MIGRATIONS_TABLE, "snapshots", "streams"].sort()
      expect(tables.filter((t) => t.schema === one).map((t) => t.name)).toEqual(expected)
      expect(tables.filter((t) => t.schema === two).map((t) => t.name)).toEqual(expected)

      const counts = yield* Effect.gen(function*() {
        const sql = yield* SqlClient
        return [
          yield* sql<{ n: string }>`SELECT count(*) AS n FROM ${sql(`${one}.events`)}`,
          yield* sql<{ n: string }>`SELECT count(*) AS n FROM ${sql(`${two}.events`)}`,
          yield* sql<{ n: string }>`SELECT count(*) AS n FROM ${sql(`${one}.${MIGRATIONS_TABLE}`)}`
        ].map((rows) => Number(rows[0]!.n))
      }).pipe(Effect.provide(admin))
      expect(counts).toEqual([2, 1, 1])
    }))

  it.live("rejects a bad schema name", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.provide(EventStore, EventStore.postgres({ url: postgresUrl, schema: "Bad-Name" })))
      expect(error._tag).toBe("StoreConfigError")
    }))

  it.live("detects a second writer on the same schema instead of doubling or losing entries", () =>
    Effect.gen(function*() {
      const schema = testSchema()
      const layer = EventStore.postgres({ url: postgresUrl, schema })
      // Two stores on one schema (two processes by mistake); both loaded their heads before either wrote.
      yield* Effect.gen(function*() {
        const first = yield* EventStore
        yield* Effect.gen(function*() {
          const second = yield* EventStore
          yield* first.append([entry("s", 1)])
          const clash = yield* Effect.either(second.append([entry("s", 1)]))
          expect(Either.isLeft(clash) && clash.left._tag).toBe("StorageError")
          // the second store re-read the heads: its view is right again
          const late = yield* Effect.either(second.append([entry("s", 1)]))
          expect(Either.isLeft(late) && late.left._tag).toBe("DuplicateSequence")
          yield* second.append([entry("s", 2)])
          // and the first one, whose cached head is now behind, is stopped too
          const behind = yield* Effect.either(first.append([entry("s", 2)]))
          expect(Either.isLeft(behind) && behind.left._tag).toBe("StorageError")
          yield* first.append([entry("s", 3)])
          expect((yield* first.readStream("s")).map((e) => e.seq)).toEqual([1, 2, 3])
          // a reset through one store leaves the other's heads wrong: no seq clashes, the head check catches it
          yield* second.resetStream("s")
          const afterReset = yield* Effect.either(first.append([entry("s", 4)]))
          expect(Either.isLeft(afterReset) && afterReset.left.message).toContain("moved under the store")
          expect(yield* first.readStream("s")).toEqual([])
          yield* first.append([entry("s", 1)])
        }).pipe(Effect.provide(layer))
      }).pipe(Effect.provide(layer))
    }))
})
