/**
 * The template's spare copy (pglite-files.ts): a new data directory takes it with a rename instead
 * of copying the template, the start that filled a new directory makes the next one once it serves,
 * and nothing half-made is ever taken. The file has a template of its own (a copy of the migrated
 * one), so that other files' nodes, which take the shared template's spare, cannot interfere.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql/SqlClient"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fillPgdata } from "../src/pglite-files.ts"
import { EmbeddedPglite, makeTemplateSpare, pgliteLayer, prepareMigratedTemplate, templateSpareDir } from "../src/index.ts"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-store-spare-"))
const template = path.join(root, "template")
const spare = templateSpareDir(template)
beforeAll(async () => {
  const { template: migrated } = await Effect.runPromise(prepareMigratedTemplate())
  fs.cpSync(migrated, template, { recursive: true })
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const isDataDir = (dir: string) => fs.existsSync(path.join(dir, "PG_VERSION"))
const filesOf = (dir: string): Array<string> =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()

/** Waits (up to 20 s) until `dir` is a data directory. */
const eventually = (dir: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200 && !isDataDir(dir); i++) yield* Effect.sleep("100 millis")
    return isDataDir(dir)
  })

describe("the template's spare copy", () => {
  it.live("is taken by a new data directory, which answers; the start that took it makes the next one once it serves; a reopen makes none", () =>
    Effect.gen(function*() {
      expect(yield* Effect.promise(() => makeTemplateSpare(template))).toBe(true)
      expect(yield* Effect.promise(() => makeTemplateSpare(template))).toBe(false) // there is one already
      const dataDir = path.join(root, "taken")
      const opened = yield* Effect.gen(function*() {
        const info = yield* EmbeddedPglite
        const goneAtOnce = !fs.existsSync(spare)
        const rows = yield* (yield* SqlClient)<{ one: number }>`SELECT 1 AS one`
        return { origin: info.origin, goneAtOnce, rows, remade: yield* eventually(spare) }
      }).pipe(Effect.provide(pgliteLayer({ dataDir, template })))
      expect(opened).toEqual({ origin: "template-spare", goneAtOnce: true, rows: [{ one: 1 }], remade: true })
      fs.rmSync(spare, { recursive: true })
      const reopened = yield* Effect.gen(function*() {
        yield* Effect.sleep("1500 millis") // longer than a new directory's start waits before it makes one
        return (yield* EmbeddedPglite).origin
      }).pipe(Effect.provide(pgliteLayer({ dataDir, template })))
      expect(reopened).toBe("existing")
      expect(fs.existsSync(spare)).toBe(false)
    }))

  it("two new data directories at once: one takes it, the other copies the template; both hold the template's files", async () => {
    await makeTemplateSpare(template)
    const a = path.join(root, "race-a")
    const b = path.join(root, "race-b")
    const origins = await Promise.all([fillPgdata(a, template), fillPgdata(b, template)])
    expect([...origins].sort()).toEqual(["template", "template-spare"])
    expect(filesOf(a)).toEqual(filesOf(template))
    expect(filesOf(b)).toEqual(filesOf(template))
    expect(fs.existsSync(spare)).toBe(false)
  })

  it("a spare that is no data directory is not taken; copies left by dead processes are removed, a live one's kept", async () => {
    fs.mkdirSync(spare)
    fs.writeFileSync(path.join(spare, "not-postgres"), "x")
    const pgdata = path.join(root, "junk")
    expect(await fillPgdata(pgdata, template)).toBe("template")
    expect(filesOf(pgdata)).toEqual(filesOf(template))
    // a copy cut short by a kill (its pid gone: 2^22 is above Linux's limit for pids) and one being made now
    const dead = `${spare}.tmp-4194304-abcd1234`
    const live = `${spare}.tmp-${process.pid}-abcd1234`
    for (const dir of [dead, live]) fs.mkdirSync(dir)
    fs.mkdirSync(spare, { recursive: true }) // another junk spare: replaced
    expect(await makeTemplateSpare(template)).toBe(true)
    expect(filesOf(spare)).toEqual(filesOf(template))
    expect(fs.existsSync(dead)).toBe(false)
    expect(fs.existsSync(live)).toBe(true)
  })
})
