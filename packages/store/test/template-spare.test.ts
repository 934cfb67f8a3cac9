/**
 * The template's spare copy (pglite-files.ts): a new data directory takes it with a rename instead
 * of copying the template, the start that filled a new directory makes the next one once it serves,
 * and nothing half-made is ever taken. Each test has a template of its own (a copy of the migrated
 * one), so that other files' nodes, which take the shared template's spare, cannot interfere.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EmbeddedPglite, makeTemplateSpare, pgliteLayer, prepareMigratedTemplate, templateSpareDir } from "../src/index.ts"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-store-spare-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** A template of the test's own: a copy of the migrated template. */
const ownTemplate = (name: string) =>
  Effect.gen(function*() {
    const { template } = yield* prepareMigratedTemplate()
    const own = path.join(root, `${name}-template`)
    fs.cpSync(template, own, { recursive: true })
    return own
  })

const isDataDir = (dir: string) => fs.existsSync(path.join(dir, "PG_VERSION"))

/** Opens a new data directory from `template`, answers a query; the origin it reports, and `then` run while it is open. */
const openNew = <A>(template: string, name: string, then: Effect.Effect<A> = Effect.void as Effect.Effect<A>) =>
  Effect.gen(function*() {
    const info = yield* EmbeddedPglite
    const sql = yield* SqlClient
    const rows = yield* sql<{ one: number }>`SELECT 1 AS one`
    expect(rows).toEqual([{ one: 1 }])
    const after = yield* then
    return { origin: info.origin, after }
  }).pipe(Effect.provide(pgliteLayer({ dataDir: path.join(root, name), template })))

/** Waits (up to 20 s) until `dir` is a data directory. */
const eventually = (dir: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200 && !isDataDir(dir); i++) yield* Effect.sleep("100 millis")
    return isDataDir(dir)
  })

describe("the template's spare copy", () => {
  it.live("is taken by a new data directory, and the start that took it makes the next one once it serves", () =>
    Effect.gen(function*() {
      const template = yield* ownTemplate("taken")
      const spare = templateSpareDir(template)
      expect(yield* Effect.promise(() => makeTemplateSpare(template))).toBe(true)
      expect(yield* Effect.promise(() => makeTemplateSpare(template))).toBe(false) // there is one already
      const { origin, after } = yield* openNew(
        template,
        "taken",
        Effect.gen(function*() {
          const goneAtOnce = !fs.existsSync(spare)
          return { goneAtOnce, remade: yield* eventually(spare) }
        })
      )
      expect(origin).toBe("template-spare")
      expect(after).toEqual({ goneAtOnce: true, remade: true })
      // the data directory is a whole one: it reopens
      const reopened = yield* Effect.provide(EmbeddedPglite, pgliteLayer({ dataDir: path.join(root, "taken"), template }))
      expect(reopened.origin).toBe("existing")
    }))

  it.live("without one, a new data directory copies the template, then makes one; a reopen makes none", () =>
    Effect.gen(function*() {
      const template = yield* ownTemplate("copied")
      const spare = templateSpareDir(template)
      const { origin, after } = yield* openNew(template, "copied", eventually(spare))
      expect(origin).toBe("template")
      expect(after).toBe(true)
      fs.rmSync(spare, { recursive: true })
      const reopened = yield* Effect.provide(
        Effect.gen(function*() {
          yield* Effect.sleep("1500 millis") // longer than a new directory's wait before it copies
          return (yield* EmbeddedPglite).origin
        }),
        pgliteLayer({ dataDir: path.join(root, "copied"), template })
      )
      expect(reopened).toBe("existing")
      expect(fs.existsSync(spare)).toBe(false)
    }))

  it.live("two new data directories at once: one takes it, the other copies the template", () =>
    Effect.gen(function*() {
      const template = yield* ownTemplate("race")
      yield* Effect.promise(() => makeTemplateSpare(template))
      const origins = yield* Effect.all([openNew(template, "race-a"), openNew(template, "race-b")], { concurrency: 2 })
      expect(origins.map((o) => o.origin).sort()).toEqual(["template", "template-spare"])
    }))

  it.live("a spare that is no data directory is not taken; copies left by dead processes are removed, a live one's kept", () =>
    Effect.gen(function*() {
      const template = yield* ownTemplate("junk")
      const spare = templateSpareDir(template)
      fs.mkdirSync(spare)
      fs.writeFileSync(path.join(spare, "not-postgres"), "x")
      const { origin } = yield* openNew(template, "junk")
      expect(origin).toBe("template")
      fs.rmSync(spare, { recursive: true, force: true })
      // a copy cut short by a kill (its pid gone: 2^22 is above Linux's pid_max limit) and one being made now
      const dead = `${spare}.tmp-4194304-abcd1234`
      const live = `${spare}.tmp-${process.pid}-abcd1234`
      for (const dir of [dead, live]) fs.mkdirSync(dir)
      expect(yield* Effect.promise(() => makeTemplateSpare(template))).toBe(true)
      expect(isDataDir(spare)).toBe(true)
      expect(fs.existsSync(dead)).toBe(false)
      expect(fs.existsSync(live)).toBe(true)
    }))
})
