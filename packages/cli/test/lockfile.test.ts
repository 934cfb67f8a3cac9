/**
 * The committed package-lock.json is one that `npm ci` accepts on any platform: it agrees with every
 * package.json of the workspace, and it lists every platform's optional binary of the packages that
 * ship them (esbuild, rollup, msgpackr-extract, ...). npm on one platform may leave the others' out,
 * and `npm ci` elsewhere then refuses the lock as out of sync; CI runs `npm ci` only.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { root } from "./node-support.ts"

interface LockEntry {
  readonly version?: string
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly optionalDependencies?: Record<string, string>
}

const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as { readonly packages: Record<string, LockEntry> }
const manifest = (dir: string): LockEntry => JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8")) as LockEntry

describe("package-lock.json", () => {
  it("agrees with the root and every workspace package.json", () => {
    const dirs = ["", ...fs.readdirSync(path.join(root, "packages")).map((p) => `packages/${p}`).filter((d) => fs.existsSync(path.join(root, d, "package.json")))]
    for (const dir of dirs) {
      const wanted = manifest(dir)
      const locked = lock.packages[dir]
      expect(locked, `${dir || "root"} is in the lock`).toBeDefined()
      for (const field of ["dependencies", "devDependencies", "optionalDependencies"] as const) {
        expect(locked![field] ?? {}, `${dir || "root"} ${field}`).toEqual(wanted[field] ?? {})
      }
    }
  })

  it("lists every platform's optional binaries, so npm ci accepts it on any platform", () => {
    const missing: Array<string> = []
    for (const [where, entry] of Object.entries(lock.packages)) {
      if (!where.startsWith("node_modules/")) continue
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        const nested = `${where}/node_modules/${name}`
        if (lock.packages[nested] === undefined && lock.packages[`node_modules/${name}`] === undefined) missing.push(`${where} -> ${name}`)
      }
    }
    expect(missing).toEqual([])
  })
})
