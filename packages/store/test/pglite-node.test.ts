/** What is specific to the embedded PGlite layer: data directory lock, start-up origin, crash recovery. */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect, Layer, Option, Schedule } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { pgliteCheckpoints } from "../src/EventStore.ts"
import { EmbeddedPglite, EventStore, migratedTemplateDir, pgliteLayer, prepareMigratedTemplate } from "../src/index.ts"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-store-node-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("embedded PGlite", () => {
  it.live("reports where it started from, and releases its lock on close", () =>
    Effect.gen(function*() {
      const dataDir = path.join(root, "origin")
      const layer = EventStore.pglite({ dataDir })
      const first = yield* Effect.provide(EmbeddedPglite, layer)
      expect(["template", "template-created", "template-spare"]).toContain(first.origin)
      expect(first.dataDir).toBe(dataDir)
      expect(first.port).toBeGreaterThan(0)
      expect(fs.existsSync(path.join(dataDir, "pglite.lock"))).toBe(false)
      const second = yield* Effect.provide(EmbeddedPglite, layer)
      expect(second.origin).toBe("existing")
    }))

  it.live("a template built from scratch says what it is doing before each slow step (the install prints them)", () =>
    Effect.gen(function*() {
      const steps: Array<string> = []
      const templateDir = path.join(root, "fresh-template")
      const prepared = yield* prepareMigratedTemplate({ templateDir, onStep: (step) => steps.push(step) })
      expect(prepared.created).toBe(true)
      expect(steps).toEqual([expect.stringMatching(/^creating the PGlite template: initdb/), expect.stringMatching(/^applying the store's migrations/)])
      // ready: nothing to say the second time
      const again: Array<string> = []
      expect((yield* prepareMigratedTemplate({ templateDir, onStep: (step) => again.push(step) })).created).toBe(false)
      expect(again).toEqual([])
    }))

  it.live("starts new data directories of the default schema from the migrated template, others from the initdb one", () =>
    Effect.gen(function*() {
      const prepared = yield* prepareMigratedTemplate()
      expect(prepared.template).toBe(migratedTemplateDir())
      expect(fs.existsSync(path.join(prepared.template, "PG_VERSION"))).toBe(true)
      // Only the database the store uses: initdb's template0 and template1 would be copied into every new directory.
      expect(fs.readdirSync(path.join(prepared.template, "base"))).toHaveLength(1)
      // Idempotent: a second call finds it.
      expect((yield* prepareMigratedTemplate()).created).toBe(false)
      // The migrated template holds the schema and nothing else: a node copied from it starts empty and writes.
      for (const schema of [undefined, "other_node"]) {
        const dataDir = path.join(root, `migrated-${schema ?? "default"}`)
        yield* Effect.gen(function*() {
          const store = yield* EventStore
          expect(yield* store.streams()).toEqual([])
          yield* store.append([{ stream: "s", seq: 1, kind: "k", body: { schema: schema ?? "sandnet" } }])
          expect((yield* store.readStream("s")).map((e) => e.body)).toEqual([{ schema: schema ?? "sandnet" }])
        }).pipe(Effect.provide(EventStore.pglite(schema === undefined ? { dataDir } : { dataDir, schema })))
      }
    }))

  it.live("checkpoints what it committed, so that a start after kill -9 redoes only the WAL written since", () =>
    Effect.gen(function*() {
      const dataDir = path.join(root, "checkpoints")
      yield* Effect.gen(function*() {
        const store = yield* EventStore
        const sql = yield* SqlClient
        const redo = sql<{ readonly redo: string }>`SELECT redo_lsn::text AS redo FROM pg_control_checkpoint()`.pipe(Effect.map((rows) => rows[0]!.redo))
        // START_PARAMS apply: a small buffer pool (PostgreSQL zeroes its whole shared memory at every start), no full-page writes
        const settings = (yield* sql<{ readonly buffers: string; readonly shared: string; readonly fpw: string }>`SELECT current_setting('shared_buffers') AS buffers, current_setting('shared_memory_size') AS shared, current_setting('full_page_writes') AS fpw`)[0]!
        expect(settings).toEqual({ buffers: "8MB", shared: expect.stringMatching(/^\d+MB$/), fpw: "off" })
        expect(Number.parseInt(settings.shared, 10)).toBeLessThanOrEqual(16)
        const before = yield* redo
        yield* store.append(Array.from({ length: 50 }, (_, i) => ({ stream: "s", seq: i + 1, kind: "k", body: { i } })))
        // the next checkpoint starts its redo after the append's WAL
        const written = (yield* sql<{ readonly lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`)[0]!.lsn
        const after = yield* redo.pipe(
          Effect.filterOrFail((lsn) => lsn !== before, () => "not yet"),
          Effect.retry(Schedule.spaced("50 millis"))
        )
        const lsn = (text: string) => text.split("/").reduce((high, low) => high * 2 ** 32 + Number.parseInt(low, 16), 0)
        expect(lsn(after)).toBeGreaterThanOrEqual(lsn(written))
      }).pipe(Effect.provide(pgliteCheckpoints("100 millis").pipe(Layer.provideMerge(EventStore.sql()), Layer.provideMerge(pgliteLayer({ dataDir })))))
    }))

  it.live("refuses a data directory that another store has open", () =>
    Effect.gen(function*() {
      const dataDir = path.join(root, "locked")
      const error = yield* Effect.gen(function*() {
        yield* EventStore
        return yield* Effect.flip(Effect.provide(EventStore, EventStore.pglite({ dataDir })))
      }).pipe(Effect.provide(EventStore.pglite({ dataDir })))
      expect(error._tag).toBe("StoreConfigError")
      expect(error.message).toContain(`in use by process ${process.pid}`)
    }))

  it.live("keeps acknowledged writes when the process is killed (no clean close)", () =>
    Effect.gen(function*() {
      const dataDir = path.join(root, "crash")
      const fixture = fileURLToPath(new URL("./fixtures/crash-writer.ts", import.meta.url))
      const child = spawnSync(process.execPath, ["--import", "tsx", fixture, dataDir], {
        encoding: "utf8",
        timeout: 120_000
      })
      expect(child.stdout).toContain("acknowledged")
      expect(child.signal).toBe("SIGKILL")
      // the dead process's lock is still there and gets taken over
      expect(fs.readFileSync(path.join(dataDir, "pglite.lock"), "utf8")).toBe(String(child.pid))

      yield* Effect.gen(function*() {
        const store = yield* EventStore
        expect((yield* store.streams()).length).toBe(20)
        for (let i = 0; i < 20; i++) {
          expect((yield* store.readStream(`s${i}`)).map((e) => e.body)).toEqual(
            Array.from({ length: 5 }, (_, j) => ({ i, j }))
          )
        }
        expect(yield* store.getSnapshot("s0", "state")).toEqual(Option.some({ acknowledged: true }))
        yield* store.append([{ stream: "s0", seq: 6, kind: "k", body: "after recovery" }])
      }).pipe(Effect.provide(EventStore.pglite({ dataDir })))
    }))
})
