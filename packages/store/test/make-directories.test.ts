/**
 * `makeDirectories` (pglite-files.ts), the data directory's `mkdir -p` a directory at a time (Node's
 * recursive mkdir never returns on some paths: the CLI's command-line test starts on one, in a child
 * process it can kill).
 */
import { afterAll, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeDirectories } from "../src/pglite-files.ts"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-mkdirs-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("makeDirectories", () => {
  it("makes every missing directory down to the one asked for, and leaves existing ones as they are", () => {
    const deep = path.join(root, "a", "b", "c")
    makeDirectories(deep)
    expect(fs.statSync(deep).isDirectory()).toBe(true)
    fs.writeFileSync(path.join(root, "a", "kept"), "x")
    makeDirectories(deep)
    makeDirectories(path.join(root, "a", "b", "d"))
    expect(fs.readFileSync(path.join(root, "a", "kept"), "utf8")).toBe("x")
    expect(fs.readdirSync(path.join(root, "a", "b")).sort()).toEqual(["c", "d"])
  })

  it("fails with the system's reason when a component is a file", () => {
    fs.writeFileSync(path.join(root, "file"), "")
    expect(() => makeDirectories(path.join(root, "file", "x"))).toThrow(/ENOTDIR|EEXIST/)
  })
})
