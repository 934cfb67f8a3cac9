import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** Which packages each package may import (the design's direction: cli -> http -> node -> engine/store -> core, and sim -> engine). */
const allowed: Record<string, ReadonlyArray<string>> = {
  core: [],
  engine: ["core"],
  store: ["core"],
  node: ["core", "engine", "store"],
  sim: ["core", "engine"],
  http: ["core", "engine", "node"],
  cli: ["core", "engine", "store", "node", "http", "sim"],
  // the pages talk to the node over HTTP only
  web: []
}

const root = fileURLToPath(new URL("../../", import.meta.url))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(path) ? [path] : []
  })

describe("dependency direction", () => {
  for (const [pkg, may] of Object.entries(allowed)) {
    it(`${pkg} imports only ${may.length === 0 ? "no other package" : may.join(", ")}`, () => {
      const offending: Array<string> = []
      for (const file of sourceFiles(join(root, pkg, "src"))) {
        const text = readFileSync(file, "utf8")
        for (const match of text.matchAll(/from\s+["']([^"']+)["']/g)) {
          const target = match[1]!
          const sandnet = /^@sandnet\/([a-z]+)/.exec(target)
          if (sandnet !== null && !may.includes(sandnet[1]!) && sandnet[1] !== pkg) offending.push(`${file}: ${target}`)
          // Relative imports must stay inside the package.
          if (target.startsWith("../") && !join(file, "..", target).startsWith(join(root, pkg))) offending.push(`${file}: ${target}`)
        }
      }
      expect(offending).toEqual([])
    })
  }
})
